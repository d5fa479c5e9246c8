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
 *
 * Long because a bench part sets up its load, measures and words its rows in one place, so
 * that a figure can be read next to how it was taken.
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
	/** Connections of each instance's pool (PostgreSQL). */
	pool?: number;
}

/**
 * The default pool (10) of one instance, then of two, then one instance with the connections of
 * two: under a burst a request waits for a connection, so the pool bounds what one instance does.
 */
const CONFIGS: Config[] = [
	{ name: 'SQLite, 1 instance', engine: 'sqlite', instances: 1 },
	{ name: 'PostgreSQL, 1 instance', engine: 'postgres', instances: 1, pool: 10 },
	{ name: 'PostgreSQL, 2 instances', engine: 'postgres', instances: 2, pool: 10 },
	{ name: 'PostgreSQL, 1 instance, pool 20', engine: 'postgres', instances: 1, pool: 20 }
];

interface Instance {
	url: string;
	child: ChildProcess;
}

/** Starts `server/main.ts` in its own process; resolves with its address once it listens. */
function startInstance(db: string, seedDate: string, pool?: number): Promise<Instance> {
	const args = ['--import', 'tsx', join(ROOT, 'server/main.ts')];
	const opts = ['--port', '0', '--db', db, '--seed', 'realistic', '--seed-date', seedDate];
	if (pool !== undefined) opts.push('--pool', String(pool));
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

/** A dog run as far as the phones choose theirs. */
type Unrun = DogRunItem & { disqualified: boolean; absence: boolean };

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
				const p = await getJson<{ _embedded?: { dogRuns?: Unrun[] }; _links: LinkMap }>(d, agent);
				for (const item of p._embedded?.dogRuns ?? []) {
					const self = findLink(item._links, 'self');
					// Not yet run (absent or disqualified dogs have no time either).
					if (self && item.time === null && !item.disqualified && !item.absence) {
						dogs.push(expandLink(self));
					}
				}
				d = nextOf(p._links);
			}
		}
		href = nextOf(page._links);
	}
	return { dogs, boards };
}

/** What one phase measured. */
interface Phase {
	seconds: number;
	requests: number;
	putMs: number[];
	getMs: number[];
	errors: number;
	/** Answers by status ('error': none came). */
	statuses: Record<string, number>;
	serviceCpuMs: number;
	pgCpuMs: number;
	clientCpuMs: number;
}

/** What one configuration measured: the replay (with the boards), then the boards alone. */
interface Measured {
	replay: Phase;
	boards: Phase;
	/** Acknowledged writes: dog run id → the fields of its last 200. */
	acked: Map<number, { time_cs: number; faults: number }>;
	ackedCount: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * CPU of the instances, of PostgreSQL's processes (those at the end; a backend that started in
 * between counts whole) and of this process, from now until the returned function is called.
 */
function cpuMeter(pids: number[], cluster: Cluster | null) {
	const cpu0 = pids.map(cpuMsOf);
	const pg0 = new Map(clusterPids(cluster).map((p) => [p, cpuMsOf(p)]));
	const client0 = process.cpuUsage();
	const t0 = performance.now();
	return (p: Phase): void => {
		p.seconds = (performance.now() - t0) / 1000;
		const client = process.cpuUsage(client0);
		p.clientCpuMs = (client.user + client.system) / 1000;
		p.serviceCpuMs = pids.map(cpuMsOf).reduce((a, c, k) => a + c - (cpu0[k] ?? 0), 0);
		p.pgCpuMs = clusterPids(cluster).reduce((a, pid) => a + cpuMsOf(pid) - (pg0.get(pid) ?? 0), 0);
	};
}

const newPhase = (): Phase => ({
	seconds: 0,
	requests: 0,
	putMs: [],
	getMs: [],
	errors: 0,
	statuses: {},
	serviceCpuMs: 0,
	pgCpuMs: 0,
	clientCpuMs: 0
});

/**
 * The replay phase: the phones replay their edits while the boards read; it ends when the last
 * phone is done. Then the boards phase: the boards alone for `windowMs`, every result recorded.
 */
async function load(
	instances: Instance[],
	scene: Scene,
	o: { phones: number; edits: number; spectators: number; windowMs: number },
	cluster: Cluster | null
): Promise<Measured> {
	const agent = new Agent({ keepAlive: true, maxSockets: 256 });
	const on = (k: number, href: string): string =>
		href.replace(/^http:\/\/[^/]+\//, instances[k % instances.length]!.url);
	const m: Measured = { replay: newPhase(), boards: newPhase(), acked: new Map(), ackedCount: 0 };
	let phase = m.replay;
	const timed = async <T extends { status: number }>(
		kind: 'put' | 'get',
		f: () => Promise<T>
	): Promise<T | null> => {
		const p = phase;
		const t0 = performance.now();
		try {
			const a = await f();
			(kind === 'put' ? p.putMs : p.getMs).push(performance.now() - t0);
			p.requests++;
			p.statuses[a.status] = (p.statuses[a.status] ?? 0) + 1;
			if (a.status !== 200 && a.status !== 304) p.errors++;
			return a;
		} catch {
			p.errors++;
			p.statuses.error = (p.statuses.error ?? 0) + 1;
			return null;
		}
	};
	const pids = instances.map((i) => i.child.pid ?? 0);
	let stop = false;
	let meter = cpuMeter(pids, cluster);

	const phones = Array.from({ length: o.phones }, async (_, p) => {
		for (let e = 0; e < o.edits; e++) {
			const k = p * o.edits + e;
			const href = scene.dogs[k];
			if (!href) return;
			const url = on(p, href);
			const read = await timed('get', () => http(url, { agent }));
			// Whole hundredths: 30.00 to 79.99 s.
			const body = { time: (3000 + (k % 5000)) / 100, faults: (e % 3) * 5 };
			const w = await timed('put', () =>
				http(url, {
					method: 'PUT',
					agent,
					headers: {
						'Content-Type': 'application/json',
						...(read?.etag ? { 'If-Match': read.etag } : {})
					},
					body: JSON.stringify(body)
				})
			);
			if (w?.status === 200) {
				m.ackedCount++;
				const id = Number(/\/dogRuns\/(\d+)$/.exec(href)?.[1]);
				m.acked.set(id, { time_cs: 3000 + (k % 5000), faults: body.faults });
			}
		}
	});
	const boards = Array.from({ length: o.spectators }, async (_, s) => {
		const url = on(s, scene.boards[s % scene.boards.length]!);
		let etag: string | undefined;
		await sleep(Math.random() * POLL_MS);
		while (!stop) {
			const a = await timed('get', () =>
				http(url, { agent, headers: etag ? { 'If-None-Match': etag } : {} })
			);
			etag = a?.etag ?? etag;
			await sleep(POLL_MS);
		}
	});
	await Promise.all(phones);
	meter(m.replay);
	phase = m.boards;
	meter = cpuMeter(pids, cluster);
	await sleep(o.windowMs);
	stop = true;
	meter(m.boards);
	await Promise.all(boards);
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

/** One figure over the repetitions: its values, and the note of the last one. */
interface Figure {
	metric: string;
	unit: string;
	values: number[];
	note?: string;
}

export async function benchPg(ctx: BenchContext): Promise<void> {
	const o = ctx.smoke
		? { phones: 20, edits: 3, spectators: 100, windowMs: 5_000 }
		: { phones: 200, edits: 5, spectators: 2_000, windowMs: 20_000 };
	const reps = ctx.reps(2);
	const seedDate = new Date().toISOString().slice(0, 10);
	const dir = mkdtempSync(join(tmpdir(), 'ringside-bench-pg-'));
	ctx.log(`pg: starting a throw-away PostgreSQL cluster`);
	const cluster = await startCluster();
	const loads: number[] = [];
	const figures = new Map<string, Figure>();
	const figure = (metric: string, unit: string, value: number, note?: string): void => {
		const f = figures.get(metric) ?? { metric, unit, values: [] };
		f.values.push(value);
		if (note) f.note = note;
		figures.set(metric, f);
	};
	let n = 0;
	try {
		for (let rep = 0; rep < reps; rep++) {
			loads.push(loadavg()[0] ?? NaN);
			for (const config of CONFIGS) {
				const db =
					config.engine === 'sqlite'
						? join(dir, `bench-${n}.sqlite`)
						: await cluster.createDatabase(`bench_${n}`);
				n++;
				const instances: Instance[] = [];
				try {
					// The first instance migrates and seeds; the others find the data there.
					for (let i = 0; i < config.instances; i++) {
						instances.push(await startInstance(db, seedDate, config.pool));
					}
					const agent = new Agent({ keepAlive: true });
					const scene = await discover(instances[0]!.url, agent);
					agent.destroy();
					if (scene.dogs.length < o.phones * o.edits) {
						throw new Error(
							`only ${scene.dogs.length} unrecorded dog runs for ${o.phones * o.edits} edits`
						);
					}
					ctx.log(
						`pg: ${config.name} (${rep + 1}/${reps}): ${o.phones} phones × ${o.edits} edits, ${o.spectators} boards, ${o.windowMs / 1000} s`
					);
					const m = await load(instances, scene, o, config.engine === 'postgres' ? cluster : null);
					const check = await matches(config, db, m);
					const row = (metric: string, unit: string, value: number, note?: string): void =>
						figure(`${config.name}: ${metric}`, unit, value, note);
					for (const [label, p] of [
						['replay + boards', m.replay],
						['boards alone', m.boards]
					] as const) {
						const cpuMs = p.serviceCpuMs + p.pgCpuMs;
						row(
							`${label}: requests/s`,
							'/s',
							p.requests / p.seconds,
							`${p.requests} in ${p.seconds.toFixed(1)} s; ${JSON.stringify(p.statuses)}`
						);
						if (p.putMs.length > 0) {
							row(`${label}: PUT p50`, 'ms', percentile(p.putMs, 0.5));
							row(`${label}: PUT p99`, 'ms', percentile(p.putMs, 0.99), `${p.putMs.length} PUTs`);
						}
						row(`${label}: GET p50`, 'ms', percentile(p.getMs, 0.5));
						row(`${label}: GET p99`, 'ms', percentile(p.getMs, 0.99), `${p.getMs.length} GETs`);
						row(`${label}: errors`, '', p.errors);
						row(
							`${label}: CPU per request (instances + PostgreSQL)`,
							'ms',
							cpuMs / p.requests,
							`instances ${(p.serviceCpuMs / p.requests).toFixed(2)} ms, PostgreSQL ${(p.pgCpuMs / p.requests).toFixed(2)} ms; the load generator ${(p.clientCpuMs / p.requests).toFixed(2)} ms`
						);
					}
					row('database = acknowledged writes', '', check.ok ? 1 : 0, check.detail);
					if (!check.ok) throw new Error(`${config.name}: ${check.detail}`);
				} finally {
					for (const i of instances) await stopInstance(i);
				}
			}
		}
		for (const f of figures.values()) {
			ctx.rows.push({
				part: PART,
				metric: f.metric,
				unit: f.unit,
				value: spread(f.values),
				...(f.note ? { note: f.note } : {})
			});
		}
		ctx.rows.push({
			part: PART,
			metric: 'machine: load average at the start of each repetition',
			unit: '',
			value: spread(loads),
			note: '2 cores shared by the load generator, PostgreSQL and every instance: two instances cannot double anything here, read the CPU per request'
		});
	} finally {
		cluster.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}
