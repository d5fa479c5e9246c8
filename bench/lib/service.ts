import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, type Service, type ServiceOptions } from '../../server/app.ts';
import type { SeedSize } from '../../server/seed/seed.ts';

/** Requests the service answered, counted from its log lines. */
export interface RequestCounts {
	get: number;
	put: number;
	other: number;
	/** Sum of the service's own handling time of the PUTs (its log's `ms`, latency included). */
	putMs: number;
}

export interface BenchService {
	service: Service;
	url: string;
	counts: RequestCounts;
	resetCounts(): void;
	close(): Promise<void>;
}

interface LogLine {
	method?: string;
	path?: string;
	ms?: number;
}

/**
 * Seeds each size once into a template file, then gives every service a fresh copy of it, so each
 * side of a comparison starts from the same data without paying for seeding again.
 */
export class ServiceFactory {
	readonly #dir = mkdtempSync(join(tmpdir(), 'ringside-bench-'));
	readonly #templates = new Map<SeedSize, string>();
	readonly #seedDate: string;
	#next = 0;

	constructor(seedDate: string) {
		this.#seedDate = seedDate;
	}

	/** Where services started with `tls` keep the one CA and certificate they share. */
	get tlsDir(): string {
		return join(this.#dir, 'tls');
	}

	async template(seed: SeedSize): Promise<string> {
		const known = this.#templates.get(seed);
		if (known) return known;
		const file = join(this.#dir, `template-${seed}.sqlite`);
		const service = await createService({
			dbFile: file,
			seed,
			seedDate: this.#seedDate,
			port: 0,
			quiet: true
		});
		await service.close();
		this.#templates.set(seed, file);
		return file;
	}

	async start(options: {
		seed: SeedSize;
		latencyMs: number;
		/** Served as the app (sirv); none for parts without a browser. */
		appDir?: string;
		/** ETags and conditional requests (off in createService unless asked). */
		etag?: boolean;
		/** Runs on the fresh copy before the service opens it. */
		prepare?: (dbFile: string) => void;
		/** A chronometer for the timer bridge (`--timer`), and its tuning. */
		timer?: ServiceOptions['timer'];
		timerOptions?: ServiceOptions['timerOptions'];
		/** HTTPS by the event's own CA (`--tls local`), kept in `tlsDir` for every service. */
		tls?: boolean;
	}): Promise<BenchService> {
		const template = await this.template(options.seed);
		const dbFile = join(this.#dir, `run-${this.#next++}.sqlite`);
		copyFileSync(template, dbFile);
		for (const suffix of ['-wal', '-shm']) {
			if (existsSync(template + suffix)) copyFileSync(template + suffix, dbFile + suffix);
		}
		options.prepare?.(dbFile);
		const counts: RequestCounts = { get: 0, put: 0, other: 0, putMs: 0 };
		const service = await createService({
			dbFile,
			seed: options.seed,
			port: 0,
			latencyMs: options.latencyMs,
			appDir: options.appDir,
			etag: options.etag,
			timer: options.timer,
			timerOptions: options.timerOptions,
			...(options.tls ? { tls: 'local' as const, tlsDir: this.tlsDir } : {}),
			// Every simulated device shares 127.0.0.1, where at an event each has its own address:
			// one shared read budget would throttle the bench's crowd, not measure the service.
			readBudget: false,
			quiet: false,
			log: (line) => {
				const parsed = JSON.parse(line) as LogLine;
				if (!parsed.path?.startsWith('/api/')) return;
				if (parsed.method === 'GET') counts.get++;
				else if (parsed.method === 'PUT') {
					counts.put++;
					counts.putMs += parsed.ms ?? 0;
				} else counts.other++;
			},
			logError: (line) => console.error(line)
		});
		return {
			service,
			url: service.url,
			counts,
			resetCounts() {
				counts.get = 0;
				counts.put = 0;
				counts.other = 0;
				counts.putMs = 0;
			},
			async close() {
				await service.close();
				for (const suffix of ['', '-wal', '-shm']) rmSync(dbFile + suffix, { force: true });
			}
		};
	}

	dispose(): void {
		rmSync(this.#dir, { recursive: true, force: true });
	}
}
