import { test as base, expect } from '@playwright/test';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, readPutLog, type Service, type ServiceOptions } from '../../server/app';

export type RunningService = Service;

/**
 * The real embedded service (and the built app) on a temporary SQLite file, which a test can
 * stop and start again on the same port and file: "the service is unreachable" for real.
 */
export class ServiceHandle {
	readonly dir = mkdtempSync(join(tmpdir(), 'ringside-e2e-'));
	#service: Service | null = null;
	#port = 0;

	constructor(private readonly options: Partial<ServiceOptions> = {}) {}

	/**
	 * Where a phone opens it: loopback over HTTP, or (with TLS) the address it listens on over
	 * HTTPS, as at the venue. Known while it is stopped too.
	 */
	get url(): string {
		const host = this.options.host;
		const named = host !== undefined && host !== '0.0.0.0' && host !== '::' ? host : '127.0.0.1';
		return this.options.tls || this.options.tlsCert
			? `https://${named}:${this.#port}/`
			: `http://127.0.0.1:${this.#port}/`;
	}

	get service(): Service {
		if (!this.#service) throw new Error('the service is stopped');
		return this.#service;
	}

	/** Starts the service; `overrides` apply to this start only (e.g. a new build of the app). */
	async start(overrides: Partial<ServiceOptions> = {}): Promise<this> {
		this.#service = await createService({
			dbFile: join(this.dir, 'results.sqlite'),
			seed: 'small',
			appDir: 'build',
			quiet: true,
			...this.options,
			...overrides,
			port: this.#port
		});
		this.#port = this.#service.port;
		return this;
	}

	async stop(): Promise<void> {
		await this.#service?.close();
		this.#service = null;
	}

	/**
	 * Two copies of the built app in this handle's directory, the second with a changed worker
	 * (a new version for the browser to find); start the service on either with `{ appDir }`.
	 */
	appVersions(label: string): { v1: string; v2: string } {
		const v1 = join(this.dir, 'app-v1');
		const v2 = join(this.dir, 'app-v2');
		cpSync('build', v1, { recursive: true });
		cpSync('build', v2, { recursive: true });
		appendFileSync(join(v2, 'service-worker.js'), `\n// ${label}: version 2\n`);
		return { v1, v2 };
	}

	/** Every PUT the service received, in order (from its own log). */
	putLog() {
		const db = this.service.db;
		if (!db) throw new Error('no database in proxy mode');
		return readPutLog(db);
	}

	async dispose(): Promise<void> {
		await this.stop();
		rmSync(this.dir, { recursive: true, force: true });
	}
}

/** Starts the real embedded service (and the built app) on a temporary SQLite file. */
export async function startService(options: Partial<ServiceOptions> = {}): Promise<{
	service: Service;
	dispose: () => Promise<void>;
}> {
	const handle = await new ServiceHandle(options).start();
	return { service: handle.service, dispose: () => handle.dispose() };
}

export const test = base.extend<{ service: Service; handle: ServiceHandle }>({
	handle: async ({}, use) => {
		const handle = await new ServiceHandle().start();
		await use(handle);
		await handle.dispose();
	},
	service: async ({ handle }, use) => {
		await use(handle.service);
	},
	baseURL: async ({ handle }, use) => {
		await use(handle.url);
	}
});

export { expect };
