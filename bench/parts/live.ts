/**
 * Part 7 `live` (Node clients only, no browser): how fast a result recorded on one device shows on
 * others (push stream and the polled ring board), and what idle screens cost the service. See
 * bench/README.md, part 7. Long because a bench part sets up its load, measures and words its rows
 * in one place, so that a figure can be read next to how it was taken.
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { findLink, expandLink, type LinkMap } from '../../src/lib/api/links.ts';
import { dogRunsHref, POLL_MS } from '../../src/lib/sync/live-updates.ts';
import {
	ConditionalList,
	getJson,
	nextOf,
	openEventStream,
	putJson,
	type DogRunItem
} from '../lib/live-http.ts';
import type { LoadConfig, LoadDone } from '../lib/live-load.ts';
import type { BenchService } from '../lib/service.ts';
import { percentile, spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PART = '7 live';
/** The writer's pace in the propagation measurement. */
const WRITE_EVERY_MS = 300;
/** The steward's pace while the idle screens are measured. */
const STEWARD_MS = 10_000;
/** The ring screen and the board show the dog at the start and the next five. */
const SHOWN = 6;

interface Competition {
	state: string;
	rings: { _links: LinkMap }[];
	_links: LinkMap;
}

/** What both measurements follow, found through links from the entry point only. */
interface Scene {
	changes: string;
	/** The ring's dogs on screen (the dog at the start first). */
	shown: DogRunItem[];
	/** dogRuns links of the runs those dogs belong to, as the app polls them. */
	lists: string[];
}

async function discover(svc: BenchService): Promise<Scene> {
	let competition: Competition | undefined;
	for (let href: string | undefined = `${svc.url}api/v1/competitions`; href && !competition;) {
		const page = await getJson<{
			_embedded?: { competitions?: Competition[] };
			_links: LinkMap;
		}>(href);
		competition = page._embedded?.competitions?.find((c) => c.state === 'IN_PROGRESS');
		href = nextOf(page._links);
	}
	if (!competition) throw new Error('no IN_PROGRESS competition');
	const changes = findLink(competition._links, 'changes');
	if (!changes || changes.templated) throw new Error('the competition has no changes link');
	const next = findLink(competition.rings[0]?._links, 'nextDogRuns');
	if (!next) throw new Error('the ring has no nextDogRuns link');
	const page = await getJson<{ _embedded?: { dogRuns?: DogRunItem[] } }>(expandLink(next));
	const shown = (page._embedded?.dogRuns ?? []).slice(0, SHOWN);
	if (shown.length === 0) throw new Error('no dog waiting in ring 1');
	const lists = [
		...new Set(
			shown.map((d) => dogRunsHref(d.competitionRun)).filter((h): h is string => h !== undefined)
		)
	];
	return { changes: expandLink(changes), shown, lists };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function selfOf(d: DogRunItem): string {
	const link = findLink(d._links, 'self');
	if (!link) throw new Error(`dog run ${d.id} has no self link`);
	return expandLink(link);
}

/**
 * A writes one dog run's time every WRITE_EVERY_MS; B follows the `changes` stream and, at the
 * same time, polls the run's dog-run list conditionally every POLL_MS (as the app does without
 * push). For write i: first time B holds write i or a later one − time A's PUT answered.
 */
export async function propagation(
	ctx: BenchContext,
	svc: BenchService,
	writes: number
): Promise<{ push: number[]; polling: number[]; pollRequests: Record<string, number> }> {
	const scene = await discover(svc);
	const dog = scene.shown[0]!;
	const dogHref = selfOf(dog);
	const listHref = dogRunsHref(dog.competitionRun);
	if (!listHref) throw new Error('the run has no dogRuns link');
	// Write i sets time BASE + i/100: unmistakable, since the dog at the start has no result.
	const BASE = 20;
	const indexOf = (time: number | null): number => {
		if (time === null) return -1;
		const i = Math.round((time - BASE) * 100);
		return i >= 0 && i < writes ? i : -1;
	};
	const answered: number[] = [];
	const seen = { push: [] as number[], polling: [] as number[] };
	const observe = (kind: keyof typeof seen, i: number, at: number): void => {
		const list = seen[kind];
		while (list.length <= i) list.push(at);
	};

	let pushReady: () => void = () => undefined;
	const ready = new Promise<void>((r) => (pushReady = r));
	const stream = openEventStream(scene.changes, (m) => {
		const at = performance.now();
		if (m.event === 'ready') pushReady();
		if (m.event !== 'dogRun') return;
		const d = JSON.parse(m.data) as DogRunItem;
		if (d.id === dog.id) {
			const i = indexOf(d.time);
			if (i >= 0) observe('push', i, at);
		}
	});
	let stopped = false;
	const pollRequests: Record<string, number> = {};
	const list = new ConditionalList(listHref);
	const readOnce = (): Promise<void> =>
		list.read(
			(s) => (pollRequests[s] = (pollRequests[s] ?? 0) + 1),
			(items) => {
				const at = performance.now();
				const d = items.find((x) => x.id === dog.id);
				const i = d ? indexOf(d.time) : -1;
				if (i >= 0) observe('polling', i, at);
			}
		);
	try {
		if ((await stream.opened) !== 200) throw new Error('the changes stream did not open');
		await ready;
		await readOnce();
		// The app polls POLL_MS after the previous read ended.
		const poller = (async () => {
			while (!stopped) {
				await sleep(POLL_MS);
				if (!stopped) await readOnce();
			}
		})();
		const t0 = performance.now();
		for (let i = 0; i < writes; i++) {
			const wait = t0 + i * WRITE_EVERY_MS - performance.now();
			if (wait > 0) await sleep(wait);
			const a = await putJson(dogHref, { time: BASE + i / 100 });
			answered.push(performance.now());
			if (a.status !== 200) throw new Error(`PUT ${dogHref} answered ${a.status}`);
		}
		const deadline = performance.now() + 2 * POLL_MS + 2000;
		while (
			(seen.push.length < writes || seen.polling.length < writes) &&
			performance.now() < deadline
		) {
			await sleep(50);
		}
		stopped = true;
		await poller;
	} finally {
		stopped = true;
		stream.close();
	}
	for (const kind of ['push', 'polling'] as const) {
		if (seen[kind].length < writes) {
			throw new Error(`${kind}: B saw ${seen[kind].length} of ${writes} writes`);
		}
	}
	const delays = (kind: keyof typeof seen): number[] =>
		answered.map((t, i) => (seen[kind][i] ?? NaN) - t);
	ctx.log(
		`live propagation: ${writes} writes; push p50 ${percentile(delays('push'), 0.5).toFixed(0)} ms ` +
			`p95 ${percentile(delays('push'), 0.95).toFixed(0)} ms; polling p50 ` +
			`${percentile(delays('polling'), 0.5).toFixed(0)} ms p95 ` +
			`${percentile(delays('polling'), 0.95).toFixed(0)} ms; poll answers ${JSON.stringify(pollRequests)}`
	);
	return { push: delays('push'), polling: delays('polling'), pollRequests };
}

export interface IdleResult {
	requestsPerMin: number;
	/** Share of one core, %. */
	serviceCpu: number;
	loadCpu: number;
	done: LoadDone;
	gets: number;
	puts: number;
	/** Dog-run lists each polling client reads. */
	lists: number;
}

/**
 * `clients` idle screens on ring 1 for `durationMs`, in a forked load generator; the service runs
 * in this process, whose CPU time over the window (process.cpuUsage) is the service's share.
 */
export async function idleScreens(
	ctx: BenchContext,
	svc: BenchService,
	mode: LoadConfig['mode'],
	clients: number,
	durationMs: number
): Promise<IdleResult> {
	const scene = await discover(svc);
	const config: LoadConfig = {
		mode,
		clients,
		lists: scene.lists,
		changes: scene.changes,
		stewardDogs: scene.shown.map(selfOf),
		stewardMs: STEWARD_MS,
		pollMs: POLL_MS,
		durationMs
	};
	const child = fork(join(import.meta.dirname, '../lib/live-load.ts'), [], {
		cwd: ROOT,
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc']
	});
	let cpu0: NodeJS.CpuUsage | null = null;
	let t0 = 0;
	const limitMs = durationMs + POLL_MS + 60_000;
	try {
		const done = await new Promise<{ done: LoadDone; cpuUs: number; wallMs: number }>(
			(resolveDone, reject) => {
				const timer = setTimeout(
					() => reject(new Error(`load generator not done within ${limitMs} ms`)),
					limitMs
				);
				child.on('message', (m: { type: string }) => {
					if (m.type === 'start') {
						svc.resetCounts();
						cpu0 = process.cpuUsage();
						t0 = performance.now();
					} else if (m.type === 'done' && cpu0) {
						const cpu = process.cpuUsage(cpu0);
						clearTimeout(timer);
						resolveDone({
							done: m as LoadDone,
							cpuUs: cpu.user + cpu.system,
							wallMs: performance.now() - t0
						});
					}
				});
				child.once('exit', (code) => {
					clearTimeout(timer);
					reject(new Error(`load generator exited (${code}) before it was done`));
				});
				child.send(config);
			}
		);
		const gets = svc.counts.get;
		const puts = svc.counts.put;
		const result: IdleResult = {
			requestsPerMin: ((gets + puts + svc.counts.other) / done.wallMs) * 60_000,
			serviceCpu: (done.cpuUs / 1000 / done.wallMs) * 100,
			loadCpu: (done.done.cpuUs / 1000 / done.done.wallMs) * 100,
			done: done.done,
			gets,
			puts,
			lists: scene.lists.length
		};
		ctx.log(
			`live idle ${mode}: ${clients} clients, ${(done.wallMs / 1000).toFixed(1)} s, ` +
				`${result.requestsPerMin.toFixed(0)} requests/min (service: ${gets} GET, ${puts} PUT; ` +
				`clients saw ${JSON.stringify(done.done.statuses)}, ${done.done.events} events, ` +
				`${done.done.failures} failures), service CPU ${result.serviceCpu.toFixed(1)} % of a ` +
				`core, load generator ${result.loadCpu.toFixed(1)} %, load avg ${loadavg()[0]?.toFixed(2)}`
		);
		return result;
	} finally {
		if (child.exitCode === null && child.signalCode === null) {
			await Promise.race([
				new Promise((r) => child.once('exit', r)),
				sleep(POLL_MS + 8000).then(() => child.kill('SIGKILL'))
			]);
		}
	}
}

/**
 * Part 7: how fast a result reaches another screen (push link against polling), and what idle
 * screens cost the service. Node clients only (no browser), the service in-process.
 */
export async function benchLive(ctx: BenchContext): Promise<void> {
	const seed = ctx.smoke ? 'small' : 'realistic';
	const writes = ctx.smoke ? 8 : 100;
	const clients = ctx.smoke ? 20 : 200;
	const durationMs = ctx.smoke ? 4000 : 30_000;
	const start = (): Promise<BenchService> =>
		ctx.factory.start({ seed, latencyMs: ctx.latencyMs, etag: true });
	const loadNote = (): string =>
		`load avg ${loadavg()
			.map((l) => l.toFixed(1))
			.join('/')}`;
	const loadBefore = loadNote();

	const push50: number[] = [];
	const push95: number[] = [];
	const poll50: number[] = [];
	const poll95: number[] = [];
	const ratio50: number[] = [];
	const ratio95: number[] = [];
	let pollAnswers = '';
	for (let rep = 0, reps = ctx.reps(1); rep < reps; rep++) {
		const svc = await start();
		try {
			const r = await propagation(ctx, svc, writes);
			const p50 = percentile(r.push, 0.5);
			const p95 = percentile(r.push, 0.95);
			const q50 = percentile(r.polling, 0.5);
			const q95 = percentile(r.polling, 0.95);
			push50.push(p50);
			push95.push(p95);
			poll50.push(q50);
			poll95.push(q95);
			ratio50.push(q50 / p50);
			ratio95.push(q95 / p95);
			pollAnswers = Object.entries(r.pollRequests)
				.map(([s, n]) => `${s}×${n}`)
				.join(', ');
		} finally {
			await svc.close();
		}
	}
	const p95push = spread(push95);
	const p95poll = spread(poll95);
	const how = `${writes} writes every ${WRITE_EVERY_MS} ms, ${seed} seed`;
	ctx.rows.push(
		{
			part: PART,
			metric: 'propagation A → B, push (changes stream), p50',
			unit: 'ms',
			value: spread(push50),
			note: how
		},
		{
			part: PART,
			metric: 'propagation A → B, push, p95',
			unit: 'ms',
			value: p95push,
			target: '≤ 1000',
			met: judged(ctx, p95push.median <= 1000)
		},
		{
			part: PART,
			metric: `propagation A → B, polling every ${POLL_MS} ms (If-None-Match), p50`,
			unit: 'ms',
			value: spread(poll50),
			note: `reader's answers: ${pollAnswers}`
		},
		{
			part: PART,
			metric: 'propagation A → B, polling, p95',
			unit: 'ms',
			value: p95poll,
			target: '≤ 5000',
			met: judged(ctx, p95poll.median <= 5000)
		},
		{ part: PART, metric: 'polling ÷ push, p50', unit: '×', value: spread(ratio50) },
		{ part: PART, metric: 'polling ÷ push, p95', unit: '×', value: spread(ratio95) }
	);

	const figures = {
		polling: { rpm: [] as number[], cpu: [] as number[], load: [] as number[], notes: '' },
		push: { rpm: [] as number[], cpu: [] as number[], load: [] as number[], notes: '' }
	};
	for (let rep = 0, reps = ctx.reps(2); rep < reps; rep++) {
		// Alternate which goes first, so neither always meets the warmer machine.
		const order: LoadConfig['mode'][] = rep % 2 === 0 ? ['polling', 'push'] : ['push', 'polling'];
		for (const mode of order) {
			const svc = await start();
			try {
				const r = await idleScreens(ctx, svc, mode, clients, durationMs);
				const f = figures[mode];
				f.rpm.push(r.requestsPerMin);
				f.cpu.push(r.serviceCpu);
				f.load.push(r.loadCpu);
				const statuses = Object.entries(r.done.statuses)
					.map(([s, n]) => `${s}×${n}`)
					.join(', ');
				f.notes =
					mode === 'polling'
						? `${r.lists} dog-run list(s) watched; ${r.gets} GET, ${r.puts} PUT in the window; answers ${statuses}`
						: `${r.done.streamsOpen} streams, ${r.done.events} events delivered, answers ${statuses}`;
				if (r.done.failures > 0) f.notes += `, ${r.done.failures} failures`;
			} finally {
				await svc.close();
			}
		}
	}
	const how2 = `${clients} clients on ring 1, ${durationMs / 1000} s, steward PUT every ${STEWARD_MS / 1000} s`;
	for (const mode of ['polling', 'push'] as const) {
		const f = figures[mode];
		const cpu = spread(f.cpu);
		const label =
			mode === 'polling'
				? `polling every ${POLL_MS} ms (If-None-Match)`
				: 'push (held changes streams)';
		ctx.rows.push(
			{
				part: PART,
				metric: `idle screens, ${label}: requests per minute`,
				unit: '/min',
				value: spread(f.rpm),
				note: mode === 'polling' ? how2 : undefined
			},
			{
				part: PART,
				metric: `idle screens, ${label}: service CPU`,
				unit: '% of a core',
				value: cpu,
				target: '< 10',
				met: judged(ctx, cpu.median < 10),
				note: `service in-process, clients in a child process (its CPU: ${spread(f.load).median.toFixed(0)} %); ${f.notes}`
			}
		);
	}
	ctx.log(`live: ${loadBefore} before, ${loadNote()} after (${ctx.smoke ? 'smoke' : 'full'})`);
	const last = ctx.rows[ctx.rows.length - 1];
	if (last) last.note = `${last.note ?? ''}; ${loadBefore} at start`;
}
