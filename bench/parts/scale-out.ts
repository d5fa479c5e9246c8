/**
 * Part 10 `scale-out` (Node clients only, no browser): spectators at scale on the federation's
 * layout, two instances of the service in separate processes on one PostgreSQL behind Debian's
 * nginx (scripts/topology.ts, the site of docs/deployment.md), all on loopback:
 * - VIEWERS idle phones on the competition's push link (Server-Sent Events through nginx), and
 *   BOARDS ring boards polling their ring's next dogs with If-None-Match every 3 s, spread over
 *   several client processes (bench/lib/spectator-worker.ts);
 * - a steward records one result a second (PUT through nginx, round-robin over the instances).
 * Figures: when each change reached each viewer (from just before its PUT left), the share of
 * viewers each reached, errors, and each instance's CPU and memory per 1,000 viewers (from
 * /proc: CPU while the changes flow and while idle, resident memory over its size before the
 * viewers came). File descriptors: every instance and client process runs with its open-files
 * limit raised to the hard limit (`ulimit -n`), and nginx's workers with worker_rlimit_nofile.
 *
 * Long because a bench part sets up its load, measures and words its rows in one place, so
 * that a figure can be read next to how it was taken.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startTopology, type Topology } from '../../scripts/topology.ts';
import { expandLink, findLink, type LinkMap } from '../../src/lib/api/links.ts';
import { getJson, http } from '../lib/live-http.ts';
import type { StartMessage, WorkerResult } from '../lib/spectator-worker.ts';
import { percentile, spread } from '../lib/stats.ts';
import { judged, MB, type BenchContext } from './context.ts';

const PART = '10 scale-out';
const ROOT = resolve(import.meta.dirname, '../..');
const WORKER = resolve(import.meta.dirname, '../lib/spectator-worker.ts');
const TICK = 100; // USER_HZ of /proc/<pid>/stat

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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

/** Resident memory of a process, in bytes. */
function rssOf(pid: number): number {
	try {
		const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return Number(m?.[1] ?? 0) * 1024;
	} catch {
		return 0;
	}
}

const fdsOf = (pid: number): number => {
	try {
		return readdirSync(`/proc/${pid}/fd`).length;
	} catch {
		return 0;
	}
};

const childrenOf = (pid: number): number[] =>
	readdirSync('/proc')
		.filter((n) => /^\d+$/.test(n))
		.map(Number)
		.filter((p) => {
			try {
				const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
				return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
			} catch {
				return false;
			}
		});

/** The node process of an instance: its child (the shell `exec`s node, so the same pid). */
const instancePid = (t: Topology, i: number): number => t.instances[i]!.child.pid!;

/** Every process of the cluster (postmaster and backends), by the postmaster's port argument. */
function postgresPids(t: Topology): number[] {
	const port = t.cluster?.port;
	if (!port) return [];
	const all = readdirSync('/proc')
		.filter((n) => /^\d+$/.test(n))
		.map(Number);
	const master = all.find((p) => {
		try {
			const args = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
			return args[0]?.endsWith('/postgres') === true && args.includes(String(port));
		} catch {
			return false;
		}
	});
	return master === undefined ? [] : [master, ...childrenOf(master)];
}

interface Worker {
	child: ChildProcess;
	ready: Promise<{ opened: number; openFailed: number }>;
	result: Promise<WorkerResult>;
}

/** A spectator process, its open-files limit raised to the hard limit. */
function startWorker(start: StartMessage): Worker {
	const child = spawn(
		'/bin/sh',
		[
			'-c',
			'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"',
			process.execPath,
			'--import',
			'tsx',
			WORKER
		],
		{ cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }
	);
	let ready: (v: { opened: number; openFailed: number }) => void = () => undefined;
	let result: (v: WorkerResult) => void = () => undefined;
	const w: Worker = {
		child,
		ready: new Promise((r) => (ready = r)),
		result: new Promise((r) => (result = r))
	};
	child.on('message', (m: { type: string } & Record<string, unknown>) => {
		if (m.type === 'ready') ready(m as unknown as { opened: number; openFailed: number });
		if (m.type === 'result') result(m as unknown as WorkerResult);
	});
	child.send(start);
	return w;
}

interface Scene {
	changes: string;
	board: string;
	/** Self links of the ring's next dogs, in start order (the steward records them). */
	dogs: { id: number; href: string }[];
}

async function discover(base: string, agent: Agent): Promise<Scene> {
	interface Competition {
		rings: { _links: LinkMap }[];
		_links: LinkMap;
	}
	const list = await getJson<{ _embedded?: { competitions?: Competition[] } }>(
		`${base}api/v1/competitions?state=IN_PROGRESS`,
		agent
	);
	const c = list._embedded?.competitions?.[0];
	const changes = c && findLink(c._links, 'changes');
	const next = c && findLink(c.rings[0]!._links, 'nextDogRuns');
	if (!changes || !next) throw new Error('no competition in progress with a changes link');
	const page = await getJson<{ _embedded?: { dogRuns?: { id: number; _links: LinkMap }[] } }>(
		`${expandLink(next)}?size=200`,
		agent
	);
	const dogs = (page._embedded?.dogRuns ?? []).map((d) => ({
		id: d.id,
		href: expandLink(findLink(d._links, 'self')!)
	}));
	return { changes: expandLink(changes), board: `${expandLink(next)}?size=6`, dogs };
}

export async function benchScaleOut(ctx: BenchContext): Promise<void> {
	const viewers = ctx.smoke ? 300 : 10_000;
	const boards = ctx.smoke ? 100 : 2_000;
	const changes = ctx.smoke ? 5 : 30;
	const viewerWorkers = ctx.smoke ? 1 : 4;
	const boardWorkers = ctx.smoke ? 1 : 2;
	const hardLimit = Number(execFileSync('/bin/sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }));
	ctx.log(
		`${PART}: ${viewers} viewers, ${boards} boards, ${changes} changes (open-files hard limit ${hardLimit})`
	);
	const load0 = loadavg()[0] ?? 0;
	const t = await startTopology({
		args: [
			'--seed',
			'realistic',
			'--quiet',
			'--read-budget',
			'off',
			'--max-streams',
			String(viewers)
		],
		workers: ctx.smoke ? 1 : 4,
		workerConnections: ctx.smoke ? 2048 : Math.min(8000, Math.floor((hardLimit - 64) / 2)),
		// Spread over nginx's workers; a burst of arrivals waits in a longer queue (default 511).
		listenOptions: 'reuseport backlog=4096'
	});
	const agent = new Agent({ keepAlive: true, maxSockets: 4 });
	const workers: Worker[] = [];
	try {
		const scene = await discover(t.url, agent);
		if (scene.dogs.length < changes + 10)
			throw new Error(`only ${scene.dogs.length} dogs to record`);
		const pids = [0, 1].map((i) => instancePid(t, i));
		const rss0 = pids.map(rssOf);
		const fds0 = pids.map(fdsOf);

		// The spectators arrive over a few seconds.
		const rampMs = ctx.smoke ? 1000 : 20_000;
		for (let w = 0; w < viewerWorkers; w++) {
			const n = Math.floor(viewers / viewerWorkers) + (w < viewers % viewerWorkers ? 1 : 0);
			workers.push(
				startWorker({
					type: 'start',
					changes: scene.changes,
					board: scene.board,
					viewers: n,
					boards: 0,
					rampMs
				})
			);
		}
		const ready = await Promise.all(workers.map((w) => w.ready));
		const opened = ready.reduce((a, r) => a + r.opened, 0);
		const openFailed = ready.reduce((a, r) => a + r.openFailed, 0);
		const idleMs = ctx.smoke ? 2000 : 15_000;
		ctx.log(
			`${PART}: ${opened} streams open (${openFailed} failed); viewers alone ${idleMs / 1000} s`
		);

		// The viewers alone, idle: their heartbeats only.
		await sleep(ctx.smoke ? 1000 : 5000);
		const rss1 = pids.map(rssOf);
		const fds1 = pids.map(fdsOf);
		const viewersCpu0 = pids.map(cpuMsOf);
		const tViewers = performance.now();
		await sleep(idleMs);
		const viewersS = (performance.now() - tViewers) / 1000;
		const viewersCpu = pids.map((p, i) => (cpuMsOf(p) - viewersCpu0[i]!) / viewersS / 10);

		// A few changes while the viewers are alone: what push costs without the boards' load.
		const change = async (
			k: number
		): Promise<{ key: string; at: number; ms: number; status: number }> => {
			const dog = scene.dogs[k]!;
			const time = Number((30 + k / 100 + 0.01).toFixed(2));
			const at = now();
			const a = await http(dog.href, {
				method: 'PUT',
				agent,
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ time })
			});
			return { key: `${dog.id}/${time}`, at, ms: now() - at, status: a.status };
		};
		const viewersOnly = ctx.smoke ? 2 : 10;
		const sentAlone = new Map<string, number>();
		for (let k = 0; k < viewersOnly; k++) {
			const tick = performance.now();
			const c = await change(k);
			sentAlone.set(c.key, c.at);
			await sleep(Math.max(0, 1000 - (performance.now() - tick)));
		}

		// Then the boards.
		for (let w = 0; w < boardWorkers; w++) {
			const n = Math.floor(boards / boardWorkers) + (w < boards % boardWorkers ? 1 : 0);
			workers.push(
				startWorker({
					type: 'start',
					changes: scene.changes,
					board: scene.board,
					viewers: 0,
					boards: n,
					rampMs
				})
			);
		}
		await Promise.all(workers.map((w) => w.ready));
		await sleep(ctx.smoke ? 1000 : 5000);
		ctx.log(`${PART}: ${boards} boards polling; idle ${idleMs / 1000} s`);
		const nginxPids = (): number[] => {
			const master = t.proxy.masterPid();
			return master === null ? [] : [master, ...childrenOf(master)];
		};
		const cpuOf = (list: number[]): number => list.reduce((a, p) => a + cpuMsOf(p), 0);
		let tIdle = performance.now();
		const idleCpu0 = pids.map(cpuMsOf);
		await sleep(idleMs);
		const idleS = (performance.now() - tIdle) / 1000;
		const idleCpu = pids.map((p, i) => (cpuMsOf(p) - idleCpu0[i]!) / idleS / 10);

		// One result a second.
		const sent = new Map<string, number>();
		const putMs: number[] = [];
		const putStatuses: Record<string, number> = {};
		let nextDog = viewersOnly;
		const busyCpu0 = pids.map(cpuMsOf);
		const nginxCpu0 = cpuOf(nginxPids());
		const clientPids = workers.map((w) => w.child.pid!);
		const clientCpu0 =
			cpuOf(clientPids) + process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000;
		const pgCpu0 = cpuOf(postgresPids(t));
		tIdle = performance.now();
		for (let k = 0; k < changes; k++) {
			const tick = performance.now();
			const c = await change(nextDog++);
			putMs.push(c.ms);
			putStatuses[c.status] = (putStatuses[c.status] ?? 0) + 1;
			sent.set(c.key, c.at);
			await sleep(Math.max(0, 1000 - (performance.now() - tick)));
		}
		const busyS = (performance.now() - tIdle) / 1000;
		const busyCpu = pids.map((p, i) => (cpuMsOf(p) - busyCpu0[i]!) / busyS / 10);
		const nginxCpu = (cpuOf(nginxPids()) - nginxCpu0) / busyS / 10;
		const pgCpu = (cpuOf(postgresPids(t)) - pgCpu0) / busyS / 10;
		const clientCpu =
			(cpuOf(clientPids) +
				process.cpuUsage().user / 1000 +
				process.cpuUsage().system / 1000 -
				clientCpu0) /
			busyS /
			10;
		await sleep(3000);
		for (const w of workers) w.child.send({ type: 'stop' });
		const results = await Promise.all(workers.map((w) => w.result));

		// Delays: each change to each viewer; per change, when 95 % of the viewers had it.
		const delays: number[] = [];
		const p95PerChange: number[] = [];
		let received = 0;
		const byKey = new Map<string, number[]>();
		for (const r of results) {
			for (const [key, times] of r.arrivals) {
				const list = byKey.get(key) ?? [];
				list.push(...times);
				byKey.set(key, list);
			}
		}
		for (const [key, at] of sent) {
			const times = (byKey.get(key) ?? []).map((x) => x - at).sort((a, b) => a - b);
			received += times.length;
			for (const d of times) delays.push(d);
			// Not received counts as never: the 95th percentile over every viewer.
			const idx = Math.ceil(0.95 * opened) - 1;
			p95PerChange.push(idx < times.length ? times[idx]! : Infinity);
		}
		const p95Alone: number[] = [];
		for (const [key, at] of sentAlone) {
			const times = (byKey.get(key) ?? []).map((x) => x - at).sort((a, b) => a - b);
			const idx = Math.ceil(0.95 * opened) - 1;
			p95Alone.push(idx < times.length ? times[idx]! : Infinity);
		}
		const dropped = results.reduce((a, r) => a + r.dropped, 0);
		const failures: Record<string, number> = {};
		for (const r of results) {
			for (const [why, n] of Object.entries(r.openFailures))
				failures[why] = (failures[why] ?? 0) + n;
		}
		// What nginx said (its log is deleted with the topology).
		const nginxLog = t.proxy
			.errors()
			.split('\n')
			.filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
		const nginxSaid = [
			...new Set(
				nginxLog.map((l) =>
					l.replace(/^.*?\[\w+\] [\d#*]+: (\*\d+ )?/, '').replace(/, client:.*$/, '')
				)
			)
		].slice(0, 3);
		const boardStatuses: Record<string, number> = {};
		let boardErrors = 0;
		for (const r of results) {
			boardErrors += r.boardErrors;
			for (const [s, n] of Object.entries(r.boardStatuses))
				boardStatuses[s] = (boardStatuses[s] ?? 0) + n;
		}
		const boardP95 = Math.max(
			...results.filter((r) => r.boardMsP95 > 0).map((r) => r.boardMsP95),
			0
		);
		const boardReads = Object.values(boardStatuses).reduce((a, n) => a + n, 0);
		const boardBad = Object.entries(boardStatuses)
			.filter(([s]) => s !== '200' && s !== '304')
			.reduce((a, [, n]) => a + n, 0);
		const putBad = Object.entries(putStatuses)
			.filter(([s]) => s !== '200')
			.reduce((a, [, n]) => a + n, 0);
		const errors = openFailed + dropped + boardErrors + boardBad + putBad;
		const perInstance = opened / 2 / 1000 || 1;
		const fmtList = (xs: number[], digits = 1): string =>
			xs.map((x) => x.toFixed(digits)).join(' / ');

		const rows = ctx.rows;
		const worstP95 = Math.max(...p95PerChange);
		rows.push({
			part: PART,
			metric: `a steward's change → ${opened.toLocaleString('en')} viewers on the push link: p95 of viewers, per change`,
			unit: 'ms',
			value: spread(p95PerChange.filter(Number.isFinite)),
			target: '≤ 1000 (worst change)',
			met: judged(ctx, worstP95 <= 1000),
			note: `worst change ${Number.isFinite(worstP95) ? worstP95.toFixed(0) : 'never'} ms; over every viewer and change p50 ${percentile(delays, 0.5).toFixed(0)} ms, p99 ${percentile(delays, 0.99).toFixed(0)} ms, max ${delays.reduce((a, d) => Math.max(a, d), 0).toFixed(0)} ms; ${received.toLocaleString('en')} of ${(opened * changes).toLocaleString('en')} deliveries`
		});
		const worstAlone = Math.max(...p95Alone);
		rows.push({
			part: PART,
			metric: `the same, ${opened.toLocaleString('en')} viewers alone (before the boards came): p95 of viewers, per change`,
			unit: 'ms',
			value: spread(p95Alone.filter(Number.isFinite)),
			target: '≤ 1000 (worst change)',
			met: judged(ctx, worstAlone <= 1000),
			note: `worst change ${Number.isFinite(worstAlone) ? worstAlone.toFixed(0) : 'never'} ms`
		});
		rows.push({
			part: PART,
			metric: 'errors: streams refused or dropped, board reads failed or not 200/304, PUTs not 200',
			unit: '',
			value: spread([errors]),
			target: '0',
			met: judged(ctx, errors === 0),
			note: `streams opened ${opened}, failed ${openFailed}${
				openFailed
					? ` (${Object.entries(failures)
							.map(([w, n]) => `${w}×${n}`)
							.join(', ')})`
					: ''
			}, dropped ${dropped}; nginx errors ${nginxLog.length}${nginxSaid.length ? ` (${nginxSaid.join('; ')})` : ''}; board reads ${boardReads} (${Object.entries(
				boardStatuses
			)
				.map(([s, n]) => `${s}×${n}`)
				.join(', ')}), failed ${boardErrors}; PUTs ${Object.entries(putStatuses)
				.map(([s, n]) => `${s}×${n}`)
				.join(', ')}`
		});
		rows.push({
			part: PART,
			metric: 'instance CPU per 1,000 viewers, one change a second (A / B)',
			unit: '% of a core',
			value: spread(busyCpu.map((c) => c / perInstance)),
			note: `instances ${fmtList(busyCpu)} % of a core with ${(opened / 2).toFixed(0)} viewers and ${boards / 2} boards each; nginx ${nginxCpu.toFixed(1)} %, PostgreSQL ${pgCpu.toFixed(1)} %, the clients ${clientCpu.toFixed(1)} %`
		});
		rows.push({
			part: PART,
			metric: 'instance CPU per 1,000 idle viewers, no boards (heartbeats every 15 s) (A / B)',
			unit: '% of a core',
			value: spread(viewersCpu.map((c) => c / perInstance)),
			note: `instances ${fmtList(viewersCpu, 2)} % of a core with ${(opened / 2).toFixed(0)} viewers each`
		});
		rows.push({
			part: PART,
			metric: 'instance CPU, idle viewers and boards polling, no changes (A / B)',
			unit: '% of a core',
			value: spread(idleCpu),
			note: `${boards / 2} boards each, a read every 3 s (about ${Math.round(boards / 2 / 3)}/s per instance)`
		});
		rows.push({
			part: PART,
			metric: 'instance memory per 1,000 viewers (resident, over its size before them) (A / B)',
			unit: 'MB',
			value: spread(pids.map((_, i) => (rss1[i]! - rss0[i]!) / MB / perInstance)),
			note: `resident ${fmtList(
				rss0.map((r) => r / MB),
				0
			)} MB before, ${fmtList(
				rss1.map((r) => r / MB),
				0
			)} MB with the viewers; open files ${fds0.join(' / ')} → ${fds1.join(' / ')} (hard limit ${hardLimit})`
		});
		rows.push({
			part: PART,
			metric: "steward's PUT through nginx meanwhile: p50 / p95",
			unit: 'ms',
			value: spread(putMs),
			note: `p95 ${percentile(putMs, 0.95).toFixed(1)} ms; boards' reads p95 ${boardP95.toFixed(1)} ms (worst process)`
		});
		rows.push({
			part: PART,
			metric: 'machine: load average before / after',
			unit: '',
			value: spread([load0, loadavg()[0] ?? 0]),
			note: '2 cores shared by the clients, nginx, PostgreSQL and both instances'
		});
	} finally {
		for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGTERM');
		agent.destroy();
		await t.stop();
	}
}
