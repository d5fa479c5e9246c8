/**
 * Part 9 `pg` (Node clients only, no browser): the service on SQLite (one instance) against the
 * service on PostgreSQL (one instance, then two on one database), each instance in its own
 * process (`server/main.ts`, as deployed), on a throw-away cluster with PostgreSQL's default
 * durability. The load, from this process over loopback:
 * - N phones replay their unsent edits at once (each: GET the dog run, PUT with If-Match; one
 *   request at a time per phone, each phone its own dog runs);
 * - M spectators' boards read their ring's next dogs with If-None-Match every POLL_MS (the app's
 *   live-updates pace), starting at random points of the first period.
 * Two instances get alternate clients (what a round-robin balancer does). Figures: requests/s,
 * PUT and GET p50/p99, errors, whether the database holds exactly the acknowledged writes, and
 * the CPU the service processes and PostgreSQL spent per request (read from /proc), so that the
 * figure for a larger machine can be read off: on this 2-core machine the load generator,
 * PostgreSQL and the instances share the same two cores, so two instances cannot double anything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startCluster, type Cluster } from '../../scripts/pg-cluster.ts';
import { expandLink, findLink, type LinkMap } from '../../src/lib/api/links.ts';
import { POLL_MS } from '../../src/lib/sync/live-updates.ts';
import { getJson, http, nextOf, type DogRunItem } from '../lib/live-http.ts';
import { percentile, spread } from '../lib/stats.ts';
import type { BenchContext } from './context.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PART = '9 pg';

interface Config {
	name: string;
	engine: 'sqlite' | 'postgres';
	instances: number;
}

const CONFIGS: Config[] = [
	{ name: 'SQLite, 1 instance', engine: 'sqlite', instances: 1 },
	{ name: 'PostgreSQL, 1 instance', engine: 'postgres', instances: 1 },
	{ name: 'PostgreSQL, 2 instances', engine: 'postgres', instances: 2 }
];

interface Instance {
	url: string;
	child: ChildProcess;
}

/** Starts `server/main.ts` in its own process; resolves with its address once it listens. */
function startInstance(db: string, seedDate: string): Promise<Instance> {
	const args = ['--import', 'tsx', join(ROOT, 'server/main.ts')];
	const opts = ['--port', '0', '--db', db, '--seed', 'realistic', '--seed-date', seedDate];
	// One client address (127.0.0.1) for every board: no read budget, which is per address.
	const child = spawn(process.execPath, [...args, ...opts, '--quiet', '--read-budget', 'off'], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'pipe']
	});
	return new Promise((resolve, reject) => {
		let out = '';
		const timer = setTimeout(() => reject(new Error(`no start within 60 s: ${out}`)), 60_000);
		const onData = (chunk: Buffer): void => {
			out += chunk.toString('utf8');
			const m = /Ringside is running at (http:\/\/\S+)/.exec(out);
			if (m?.[1]) {
				clearTimeout(timer);
				child.stdout?.off('data', onData);
				child.stdout?.resume();
				resolve({ url: m[1], child });
			}
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`instance exited (${code}): ${out}`));
		});
	});
}

async function stopInstance(i: Instance): Promise<void> {
	if (i.child.exitCode !== null) return;
	const exited = new Promise((r) => i.child.once('exit', r));
	i.child.kill('SIGTERM');
	await exited;
}

const TICK = 100; // USER_HZ of /proc/<pid>/stat on Linux

/** CPU time (ms) of a process, from /proc: user + system. */
function cpuMsOf(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK;
	} catch {
		return 0;
	}
}

/** The parent pid of a process, from /proc; null when it is gone. */
function parentOf(pid: number): number | null {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
	} catch {
		return null;
	}
}

/** The pids of the cluster: its postmaster (listening on its port) and its children. */
function clusterPids(cluster: Cluster | null): number[] {
	if (!cluster) return [];
	const all = readdirSync('/proc')
		.filter((n) => /^\d+$/.test(n))
		.map(Number);
	const postmaster = all.find((p) => {
		try {
			const args = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
			return args[0]?.endsWith('/postgres') === true && args.includes(String(cluster.port));
		} catch {
			return false;
		}
	});
	if (postmaster === undefined) return [];
	return [postmaster, ...all.filter((p) => parentOf(p) === postmaster)];
}

interface Scene {
	/** Self links of unrecorded dog runs, in the order the phones take them. */
	dogs: string[];
	/** nextDogRuns links of the rings (first page, the next few dogs). */
	boards: string[];
}

async function discover(url: string, agent: Agent): Promise<Scene> {
	interface Competition {
		state: string;
		rings: { _links: LinkMap }[];
		_links: LinkMap;
	}
	const list = await getJson<{ _embedded?: { competitions?: Competition[] } }>(
		`${url}api/v1/competitions?state=IN_PROGRESS`,
		agent
	);
	const c = list._embedded?.competitions?.[0];
	if (!c) throw new Error('no competition in progress');
	const boards = c.rings.map((r) => {
		const next = findLink(r._links, 'nextDogRuns');
		if (!next) throw new Error('a ring has no nextDogRuns link');
		return `${expandLink(next)}?size=6`;
	});
	const dogs: string[] = [];
	const runsLink = findLink(c._links, 'competitionRuns');
	for (let href = runsLink && expandLink(runsLink); href;) {
		const page = await getJson<{
			_embedded?: { competitionRuns?: { _links: LinkMap }[] };
			_links: LinkMap;
		}>(href, agent);
		for (const run of page._embedded?.competitionRuns ?? []) {
			const dogRuns = findLink(run._links, 'dogRuns');
			if (!dogRuns) continue;
			for (let d: string | undefined = `${expandLink(dogRuns)}?size=500`; d;) {
				const p = await getJson<{ _embedded?: { dogRuns?: DogRunItem[] }; _links: LinkMap }>(
					d,
					agent
				);
				for (const item of p._embedded?.dogRuns ?? []) {
					const self = findLink(item._links, 'self');
					if (self && item.time === null) dogs.push(expandLink(self));
				}
				d = nextOf(p._links);
			}
		}
		href = nextOf(page._links);
	}
	return { dogs, boards };
}

/** What one configuration measured. */
interface Measured {
	seconds: number;
	requests: number;
	putMs: number[];
	getMs: number[];
	errors: number;
	/** Acknowledged writes: dog run id → the fields of its last 200. */
	acked: Map<number, { time_cs: number; faults: number }>;
	ackedCount: number;
	serviceCpuMs: number;
	pgCpuMs: number;
	clientCpuMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function load(
	instances: Instance[],
	scene: Scene,
	o: { phones: number; edits: number; spectators: number; windowMs: number },
	cluster: Cluster | null
): Promise<Measured> {
	const agent = new Agent({ keepAlive: true, maxSockets: 256 });
	const on = (k: number, href: string): string =>
		href.replace(/^http:\/\/[^/]+\//, instances[k % instances.length]!.url);
	const m: Measured = {
		seconds: 0,
		requests: 0,
		putMs: [],
		getMs: [],
		errors: 0,
		acked: new Map(),
		ackedCount: 0,
		serviceCpuMs: 0,
		pgCpuMs: 0,
		clientCpuMs: 0
	};
	const timed = async <T extends { status: number }>(
		kind: 'put' | 'get',
		f: () => Promise<T>
	): Promise<T | null> => {
		const t0 = performance.now();
		try {
			const a = await f();
			(kind === 'put' ? m.putMs : m.getMs).push(performance.now() - t0);
			m.requests++;
			if (a.status !== 200 && a.status !== 304) m.errors++;
			return a;
		} catch {
			m.errors++;
			return null;
		}
	};
	const pids = instances.map((i) => i.child.pid ?? 0);
	const pgPids = clusterPids(cluster);
	const cpu0 = pids.map(cpuMsOf);
	const pg0 = pgPids.map(cpuMsOf);
	const client0 = process.cpuUsage();
	const t0 = performance.now();
	const end = t0 + o.windowMs;
	let stop = false;

	const phones = Array.from({ length: o.phones }, async (_, p) => {
		for (let e = 0; e < o.edits; e++) {
			const href = scene.dogs[p * o.edits + e];
			if (!href) return;
			const url = on(p, href);
			const read = await timed('get', () => http(url, { agent }));
			const etag = read?.etag;
			const body = { time: 30 + ((p * o.edits + e) % 5000) / 100, faults: (e % 3) * 5 };
			const w = await timed('put', () =>
				http(url, {
					method: 'PUT',
					agent,
					headers: { 'Content-Type': 'application/json', ...(etag ? { 'If-Match': etag } : {}) },
					body: JSON.stringify(body)
				})
			);
			if (w?.status === 200) {
				m.ackedCount++;
				const id = Number(/\/dogRuns\/(\d+)$/.exec(href)?.[1]);
				m.acked.set(id, { time_cs: Math.round(body.time * 100), faults: body.faults });
			}
		}
	});
	const boards = Array.from({ length: o.spectators }, async (_, s) => {
		const url = on(s, scene.boards[s % scene.boards.length]!);
		let etag: string | undefined;
		await sleep(Math.random() * POLL_MS);
		while (!stop && performance.now() < end) {
			const a = await timed('get', () =>
				http(url, { agent, headers: etag ? { 'If-None-Match': etag } : {} })
			);
			etag = a?.etag ?? etag;
			await sleep(POLL_MS);
		}
	});
	await Promise.all(phones);
	await Promise.all(boards);
	stop = true;
	m.seconds = (performance.now() - t0) / 1000;
	const client = process.cpuUsage(client0);
	m.clientCpuMs = (client.user + client.system) / 1000;
	m.serviceCpuMs = pids.map(cpuMsOf).reduce((a, c, k) => a + c - (cpu0[k] ?? 0), 0);
	m.pgCpuMs = pgPids.map(cpuMsOf).reduce((a, c, k) => a + c - (pg0[k] ?? 0), 0);
	agent.destroy();
	return m;
}

/** Whether the database holds exactly the acknowledged writes (fields and PUT-log rows). */
async function matches(
	config: Config,
	db: string,
	m: Measured
): Promise<{ ok: boolean; detail: string }> {
	const ids = [...m.acked.keys()];
	let rows: { id: number; time_cs: number | null; faults: number }[];
	let logged: number;
	if (config.engine === 'sqlite') {
		const lite = new Database(db, { readonly: true });
		try {
			const get = lite.prepare('SELECT id, time_cs, faults FROM dog_run WHERE id = ?');
			rows = ids.map((id) => get.get(id) as { id: number; time_cs: number | null; faults: number });
			logged = (
				lite
					.prepare(
						"SELECT COUNT(*) AS n FROM put_log WHERE status = 200 AND resource_kind = 'dogRun'"
					)
					.get() as { n: number }
			).n;
		} finally {
			lite.close();
		}
	} else {
		const client = new pg.Client({ connectionString: db });
		await client.connect();
		try {
			const r = await client.query<{ id: number; time_cs: number | null; faults: number }>(
				'SELECT id, time_cs, faults FROM dog_run WHERE id = ANY($1::int[])',
				[ids]
			);
			rows = r.rows;
			const n = await client.query<{ n: string }>(
				"SELECT COUNT(*) AS n FROM put_log WHERE status = 200 AND resource_kind = 'dogRun'"
			);
			logged = Number(n.rows[0]?.n);
		} finally {
			await client.end();
		}
	}
	const wrong = rows.filter((r) => {
		const want = m.acked.get(r.id);
		return !want || r.time_cs !== want.time_cs || r.faults !== want.faults;
	}).length;
	const ok = rows.length === ids.length && wrong === 0 && logged === m.ackedCount;
	return {
		ok,
		detail: `${ids.length} dog runs written, ${wrong} differ; ${logged} PUT-log rows with 200 for ${m.ackedCount} acknowledged`
	};
}

export async function benchPg(ctx: BenchContext): Promise<void> {
	const o = ctx.smoke
		? { phones: 20, edits: 3, spectators: 100, windowMs: 5_000 }
		: { phones: 200, edits: 5, spectators: 2_000, windowMs: 20_000 };
	const seedDate = new Date().toISOString().slice(0, 10);
	const dir = mkdtempSync(join(tmpdir(), 'ringside-bench-pg-'));
	ctx.log(`pg: starting a throw-away PostgreSQL cluster`);
	const cluster = await startCluster();
	const load0 = loadavg()[0]?.toFixed(1) ?? '?';
	try {
		for (const [k, config] of CONFIGS.entries()) {
			const db =
				config.engine === 'sqlite'
					? join(dir, `bench-${k}.sqlite`)
					: await cluster.createDatabase(`bench_${k}`);
			const instances: Instance[] = [];
			try {
				// The first instance migrates and seeds; the others find the data there.
				for (let i = 0; i < config.instances; i++)
					instances.push(await startInstance(db, seedDate));
				const agent = new Agent({ keepAlive: true });
				const scene = await discover(instances[0]!.url, agent);
				agent.destroy();
				if (scene.dogs.length < o.phones * o.edits) {
					throw new Error(
						`only ${scene.dogs.length} unrecorded dog runs for ${o.phones * o.edits} edits`
					);
				}
				ctx.log(
					`pg: ${config.name}: ${o.phones} phones × ${o.edits} edits, ${o.spectators} boards, ${o.windowMs / 1000} s`
				);
				const m = await load(instances, scene, o, config.engine === 'postgres' ? cluster : null);
				const check = await matches(config, db, m);
				const row = (metric: string, unit: string, value: number, note?: string) =>
					ctx.rows.push({
						part: PART,
						metric: `${config.name}: ${metric}`,
						unit,
						value: spread([value]),
						...(note ? { note } : {})
					});
				const cpuMs = m.serviceCpuMs + m.pgCpuMs;
				row(
					'requests/s',
					'/s',
					m.requests / m.seconds,
					`${m.requests} in ${m.seconds.toFixed(1)} s`
				);
				row('PUT p50', 'ms', percentile(m.putMs, 0.5));
				row('PUT p99', 'ms', percentile(m.putMs, 0.99), `${m.putMs.length} PUTs`);
				row('GET p50', 'ms', percentile(m.getMs, 0.5));
				row('GET p99', 'ms', percentile(m.getMs, 0.99), `${m.getMs.length} GETs`);
				row('errors', '', m.errors);
				row('database = acknowledged writes', '', check.ok ? 1 : 0, check.detail);
				row(
					'CPU per request (instances + PostgreSQL)',
					'ms',
					cpuMs / m.requests,
					`instances ${(m.serviceCpuMs / m.requests).toFixed(2)} ms, PostgreSQL ${(m.pgCpuMs / m.requests).toFixed(2)} ms; the load generator ${(m.clientCpuMs / m.requests).toFixed(2)} ms`
				);
				if (!check.ok) throw new Error(`${config.name}: ${check.detail}`);
			} finally {
				for (const i of instances) await stopInstance(i);
			}
		}
		ctx.rows.push({
			part: PART,
			metric: 'machine',
			unit: '',
			value: spread([Number(load0)]),
			note: `load average at start; 2 cores shared by the load generator, PostgreSQL and every instance: two instances cannot double anything here, read the CPU per request`
		});
	} finally {
		cluster.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}
