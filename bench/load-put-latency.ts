// Steward PUT latency under heavy readers (issue 11): 20 writers each record a result every
// 50 ms while 10 readers fetch `size=2000` lists as fast as they can, all on 127.0.0.1. The
// service runs in its own process (`server/main.ts`), as at an event.
//
//   npx tsx bench/load-put-latency.ts                      # default options (read budget on)
//   npx tsx bench/load-put-latency.ts --seconds=20
//   npx tsx bench/load-put-latency.ts --service-args="--read-budget off"   # no budget
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './lib/stats.ts';

const arg = (name: string, fallback: string): string =>
	process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

const SECONDS = Number(arg('seconds', '15'));
const WRITERS = Number(arg('writers', '20'));
const READERS = Number(arg('readers', '10'));
const WRITER_PAUSE_MS = 50;
const SERVICE_ARGS = arg('service-args', '').split(/\s+/).filter(Boolean);

interface Answer {
	status: number;
	text: string;
	ms: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function http(
	url: string,
	method = 'GET',
	body?: string,
	headers: Record<string, string> = {}
): Promise<Answer> {
	const t0 = performance.now();
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		const req = request(
			{ hostname: u.hostname, port: u.port, path: u.pathname + u.search, method, headers, agent },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						text: Buffer.concat(chunks).toString('utf8'),
						ms: performance.now() - t0
					})
				);
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}

const json = <T>(a: Answer): T => JSON.parse(a.text) as T;
const untemplate = (href: string): string => href.replace(/\{[^}]*\}$/, '');

interface Link {
	href: string;
}
interface Competition {
	_links: { competitionRuns: Link };
	rings: { _links: { nextDogRuns: Link } }[];
}
interface Run {
	_links: { dogRuns: Link };
}
interface DogRun {
	_links: { self: Link };
}

async function startService(): Promise<{ url: string; stop: () => void }> {
	const dir = mkdtempSync(join(tmpdir(), 'ringside-load-'));
	const child = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			'server/main.ts',
			'--port',
			'0',
			'--db',
			join(dir, 'load.sqlite'),
			'--seed',
			'realistic',
			'--quiet',
			...SERVICE_ARGS
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] }
	);
	const url = await new Promise<string>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (b: Buffer) => {
			out += b.toString();
			const m = /running at (http:\/\/\S+)/.exec(out);
			if (m?.[1]) resolve(m[1]);
		});
		child.once('exit', (code) => reject(new Error(`service exited (${code})`)));
	});
	return { url, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
	const service = await startService();
	try {
		const entry = `${service.url}api/v1/competitions`;
		const list = json<{ _embedded: { competitions: Competition[] } }>(
			await http(`${entry}?state=IN_PROGRESS`)
		);
		const competition = list._embedded.competitions[0]!;
		const runsUrl = `${untemplate(competition._links.competitionRuns.href)}?size=2000`;
		const runs = json<{ _embedded: { competitionRuns: Run[] } }>(await http(runsUrl));
		const heavy = [
			runsUrl,
			...competition.rings.map((r) => `${untemplate(r._links.nextDogRuns.href)}?size=2000`)
		];
		// One dog run per writer, from different runs.
		const dogs: string[] = [];
		for (const run of runs._embedded.competitionRuns) {
			if (dogs.length >= WRITERS) break;
			const page = json<{ _embedded?: { dogRuns: DogRun[] } }>(
				await http(`${untemplate(run._links.dogRuns.href)}?size=5`)
			);
			const d = page._embedded?.dogRuns[0];
			if (d) dogs.push(d._links.self.href);
		}

		const until = Date.now() + SECONDS * 1000;
		const putMs: number[] = [];
		const putStatus = new Map<number, number>();
		const readStatus = new Map<number, number>();
		const readMs: number[] = [];
		const count = (m: Map<number, number>, s: number): void => {
			m.set(s, (m.get(s) ?? 0) + 1);
		};

		const writer = async (i: number): Promise<void> => {
			const url = dogs[i % dogs.length]!;
			let n = 0;
			while (Date.now() < until) {
				const a = await http(url, 'PUT', JSON.stringify({ faults: n++ % 5 }), {
					'Content-Type': 'application/json',
					'User-Agent': `load-writer-${i}`
				});
				putMs.push(a.ms);
				count(putStatus, a.status);
				await new Promise((r) => setTimeout(r, WRITER_PAUSE_MS));
			}
		};
		const reader = async (i: number): Promise<void> => {
			let n = i;
			while (Date.now() < until) {
				const a = await http(heavy[n++ % heavy.length]!);
				count(readStatus, a.status);
				if (a.status === 200) readMs.push(a.ms);
			}
		};
		// A warm-up of the writers alone, then everything together.
		await Promise.all([
			...Array.from({ length: WRITERS }, (_, i) => writer(i)),
			...Array.from({ length: READERS }, (_, i) => reader(i))
		]);

		const fmt = (m: Map<number, number>): string => [...m].map(([s, n]) => `${s}×${n}`).join(', ');
		console.log(
			`service args: ${SERVICE_ARGS.join(' ') || '(defaults)'}; ${WRITERS} writers (PUT every ${WRITER_PAUSE_MS} ms), ${READERS} readers of ${heavy.length} size=2000 lists, ${SECONDS} s, all on 127.0.0.1`
		);
		console.log(
			`PUT   n=${putMs.length}  p50=${percentile(putMs, 0.5).toFixed(1)} ms  p95=${percentile(putMs, 0.95).toFixed(1)} ms  p99=${percentile(putMs, 0.99).toFixed(1)} ms  max=${Math.max(...putMs).toFixed(1)} ms  (${fmt(putStatus)})`
		);
		console.log(
			`reads answered 200: ${readMs.length} (${(readMs.length / SECONDS).toFixed(1)}/s, p50 ${percentile(readMs, 0.5).toFixed(1)} ms); statuses ${fmt(readStatus)}`
		);
	} finally {
		service.stop();
		agent.destroy();
	}
}

main().catch((e: unknown) => {
	console.error(e);
	process.exit(1);
});
