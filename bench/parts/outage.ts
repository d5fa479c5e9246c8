/**
 * Part 11 `outage`: delivery after the service was away, in Chromium, WebKit and Firefox, each
 * through its own driver (tests/engines); see bench/README.md, part 11. Long because a bench part
 * sets up its load, measures and words its rows in one place, so that a figure can be read next to
 * how it was taken.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceHandle } from '../../tests/e2e/fixtures.ts';
import { unrecordedRun } from '../../tests/e2e/support/service-data.ts';
import { mulberry32, type Random } from '../../tests/e2e/support/random.ts';
import { ENGINES, type Driver, type Engine } from '../../tests/engines/driver.ts';
import { launchDriver } from '../../tests/engines/drivers/index.ts';
import {
	attempts,
	runOutage,
	Shift,
	type OutagePlan,
	type OutageResult,
	type RequestLine
} from '../../tests/engines/outage.ts';
import { Steward, type Entry } from '../../tests/engines/steward.ts';
import type { Row } from '../lib/report.ts';
import { percentile, spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';

const PART = '11 outage';
/** Issue 19's targets: every result on the service p95 ≤ 5 s after it answers; ≤ 1 probe per 5 s. */
const TARGET_P95_S = 5;
const TARGET_PROBES_PER_5S = 1;
/** The header may take this long to notice the service went away (as in flow d). */
const PILL_GRACE_MS = 2_000;
/** The entry point: what a cheap probe of the service reads (issue 19: a conditional GET). */
const ENTRY_POINT = '/api/v1/competitions';

interface Settings {
	seed: number;
	outages: number;
	minMs: number;
	maxMs: number;
	capMs: number;
	/** An outage with nothing waiting, to count what the phone sends then (0: none). */
	idleMs: number;
	/** Outages where the steward taps Sync now as the service answers: the peer. */
	peers: number;
	peerMs: number;
	/** Online between outages, once nothing waits. */
	lullMs: number;
	engines: Engine[];
}

function settings(ctx: BenchContext): Settings {
	const seed = Number(process.env.RINGSIDE_OUTAGE_SEED ?? 19);
	if (!Number.isInteger(seed)) throw new Error('RINGSIDE_OUTAGE_SEED must be a whole number');
	const engines = (process.env.RINGSIDE_OUTAGE_ENGINES ?? ENGINES.join(','))
		.split(',')
		.map((e) => e.trim())
		.filter((e): e is Engine => {
			if ((ENGINES as string[]).includes(e)) return true;
			throw new Error(`RINGSIDE_OUTAGE_ENGINES: unknown engine '${e}' (${ENGINES.join(', ')})`);
		});
	const maxS = Number(process.env.RINGSIDE_OUTAGE_MAX_S ?? 600);
	if (!Number.isFinite(maxS) || maxS < 30) {
		throw new Error('RINGSIDE_OUTAGE_MAX_S must be a number of seconds, at least 30');
	}
	return ctx.smoke
		? {
				seed,
				outages: 1,
				minMs: 6_000,
				maxMs: 6_000,
				capMs: 180_000,
				idleMs: 0,
				peers: 1,
				peerMs: 5_000,
				lullMs: 1_000,
				engines
			}
		: {
				seed,
				outages: ctx.reps(10),
				minMs: 30_000,
				maxMs: maxS * 1000,
				capMs: 480_000,
				idleMs: 60_000,
				peers: 3,
				peerMs: 30_000,
				lullMs: 5_000,
				engines
			};
}

/** A steward's pace: the first Save & next 5–20 s in, then one every 10–40 s. */
function stewardSaves(random: Random, durationMs: number): OutagePlan['saves'] {
	const saves: { atMs: number; entry: Entry }[] = [];
	const last = durationMs - 2_000;
	let at = Math.min(5_000 + random() * 15_000, last);
	while (at <= last) {
		const time = (30 + random() * 21).toFixed(2).replace('.', ',');
		saves.push({ atMs: Math.round(at), entry: { time } });
		at += 10_000 + random() * 30_000;
	}
	return saves;
}

/** Durations spread evenly on a log scale between min and max (as many short as long ones). */
export function outagePlans(s: Settings): OutagePlan[] {
	const random = mulberry32(s.seed);
	const plans: OutagePlan[] = [];
	for (let i = 0; i < s.outages; i++) {
		const durationMs = Math.round(s.minMs * Math.pow(s.maxMs / s.minMs, random()));
		plans.push({ durationMs, saves: stewardSaves(random, durationMs) });
	}
	return plans;
}

/** What the phone's requests to the service were: the entry point, the push stream, reads, writes. */
function kindOf(line: { method: string; path: string }): string {
	const path = line.path.split('?')[0] ?? line.path;
	if ((line.method === 'GET' || line.method === 'HEAD') && path === ENTRY_POINT) {
		return 'entry point';
	}
	if (line.method === 'GET' && path.endsWith('/changes')) return 'push stream';
	if (line.method === 'GET' || line.method === 'HEAD') return 'reads';
	return line.method;
}

function breakdown(lines: readonly { method: string; path: string }[]): string {
	const counts = new Map<string, number>();
	for (const l of lines) counts.set(kindOf(l), (counts.get(kindOf(l)) ?? 0) + 1);
	return [...counts].map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
}

/** The service's own request log, each line placed at the request's arrival. */
interface Logged {
	arrivedAt: number;
	method: string;
	path: string;
}

interface EngineFigures {
	engine: Engine;
	version: string;
	outages: OutageResult[];
	/**
	 * Requests to the service per outage after it answered again, until delivery (filled once
	 * the service closed: a push stream is logged when it ends).
	 */
	afterReturn: Logged[][];
	idle: { ms: number; lines: RequestLine[] } | null;
	peers: number[];
	undelivered: number;
	/** Why the engine's run stopped early (the figures so far are kept). */
	error: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const api = (l: { path: string }) => l.path.startsWith('/api/');

async function measureEngine(
	ctx: BenchContext,
	s: Settings,
	plans: OutagePlan[],
	engine: Engine
): Promise<EngineFigures> {
	const logged: Logged[] = [];
	const handle = new ServiceHandle({
		seed: 'realistic',
		appDir: ctx.appDir,
		latencyMs: ctx.latencyMs,
		// One phone here; the read budget is per client address and would not bind anyway.
		readBudget: false,
		quiet: false,
		log: (line) => {
			const parsed = JSON.parse(line) as { method?: string; path?: string; ms?: number };
			if (!parsed.path || !parsed.method) return;
			const arrivedAt = performance.now() - (parsed.ms ?? 0);
			logged.push({ arrivedAt, method: parsed.method, path: parsed.path });
		},
		logError: (line) => console.error(line)
	});
	copyFileSync(await ctx.factory.template('realistic'), join(handle.dir, 'results.sqlite'));
	await handle.start();
	let d: Driver | null = null;
	/** Per outage: from the service listening again until delivery. */
	const windows: { from: number; to: number }[] = [];
	const figures: EngineFigures = {
		engine,
		version: '?',
		outages: [],
		afterReturn: [],
		idle: null,
		peers: [],
		undelivered: 0,
		error: null
	};
	try {
		// The largest run nobody has recorded: a steward's shift never runs out of dogs.
		const scene = await unrecordedRun(handle.url, 150);
		d = await launchDriver(engine);
		const driver = d;
		figures.version = driver.version;
		ctx.log(`outage: ${engine} (${driver.version}), run of ${scene.dogRuns.length} dogs`);
		const steward = new Steward(driver, scene);
		await steward.openApp(handle.url);
		await steward.makeAvailableOffline();
		await steward.openRun();
		await steward.openDog(scene.dogRuns[0]!);
		const shift = new Shift(steward);
		const settle = async () => {
			// Online between outages: nothing left unsent, then a few quiet seconds.
			await driver.waitFor(
				'nothing unsent',
				async () => !(await driver.visible({ testid: 'pending-count' })),
				60_000
			);
			await sleep(s.lullMs);
		};
		for (const [i, plan] of plans.entries()) {
			await settle();
			const result = await runOutage(shift, handle, plan, { capMs: s.capMs, record: true });
			figures.outages.push(result);
			windows.push({
				from: result.listenedAt,
				to: result.listenedAt + (result.deliveredMs ?? s.capMs)
			});
			if (result.deliveredMs === null) figures.undelivered += 1;
			const shown = attempts(result.dark).filter(api);
			ctx.log(
				`outage: ${engine} #${i + 1}: ${(result.outageMs / 1000).toFixed(0)} s, ` +
					`${plan.saves.length} saves, delivered ` +
					(result.deliveredMs === null
						? `NOT within ${s.capMs / 1000} s`
						: `${(result.deliveredMs / 1000).toFixed(2)} s`) +
					` after the service answered; meanwhile ${shown.length} requests (${breakdown(shown)})`
			);
		}

		if (s.idleMs > 0) {
			// Nothing waits: what does the phone send while the service is away?
			await settle();
			const idle = await runOutage(
				shift,
				handle,
				{ durationMs: s.idleMs, saves: [] },
				{
					capMs: 1_000,
					record: true
				}
			);
			figures.idle = { ms: idle.outageMs, lines: attempts(idle.dark).filter(api) };
			ctx.log(`outage: ${engine} idle ${s.idleMs / 1000} s: ${breakdown(figures.idle.lines)}`);
		}

		for (let i = 0; i < s.peers; i++) {
			// The peer: the same outage, but the steward taps Sync now as the service answers.
			await settle();
			const peer = await runOutage(
				shift,
				handle,
				{ durationMs: s.peerMs, saves: [{ atMs: 3_000, entry: { time: '42,42' } }] },
				{
					capMs: s.capMs,
					onStopped: () => steward.openSync(),
					onListening: () => driver.tap({ role: 'button', name: 'Sync now' })
				}
			);
			if (peer.deliveredMs !== null) figures.peers.push(peer.deliveredMs);
			ctx.log(
				`outage: ${engine} peer #${i + 1} (Sync now at once): ${
					peer.deliveredMs === null ? 'not delivered' : `${(peer.deliveredMs / 1000).toFixed(2)} s`
				}`
			);
			// Back to the capture screen (the phone's back gesture).
			await driver.evaluate('(history.back(), true)');
			await steward.onDog(shift.dog);
		}
	} catch (e) {
		figures.error = e instanceof Error ? (e.stack ?? e.message) : String(e);
		ctx.log(`outage: ${engine} stopped: ${figures.error}`);
	} finally {
		await d?.close();
		await handle.dispose();
		for (const w of windows) {
			figures.afterReturn.push(
				logged.filter((l) => api(l) && l.arrivedAt >= w.from && l.arrivedAt <= w.to)
			);
		}
	}
	return figures;
}

function rowsOf(ctx: BenchContext, s: Settings, f: EngineFigures): Row[] {
	const single = (v: number) => spread([v]);
	const e = f.engine;
	const seconds = f.outages.map((o) => (o.deliveredMs ?? s.capMs) / 1000);
	const p95 = percentile(seconds, 0.95);
	const durations = f.outages.map((o) => o.outageMs / 1000);
	const saved = f.outages.reduce((n, o) => n + o.expected.size, 0);
	const per5s = (n: number, ms: number) => (n * 5_000) / ms;
	const waiting = f.outages.map((o) => attempts(o.dark).filter(api));
	const rate = waiting.map((lines, i) => per5s(lines.length, f.outages[i]!.outageMs));
	const probes = waiting.map((lines, i) =>
		per5s(lines.filter((l) => kindOf(l) === 'entry point').length, f.outages[i]!.outageMs)
	);
	const maxProbes = Math.max(...probes);
	const readings = f.outages.flatMap((o) => o.pill.filter((p) => p.at >= PILL_GRACE_MS));
	const online = readings.filter((p) => /\bOnline\b/i.test(p.text ?? '')).length;
	const stopped =
		f.error !== null
			? `; STOPPED after ${f.outages.length} of the planned outages: ${f.error.split('\n')[0]}`
			: '';
	const undelivered =
		f.undelivered > 0
			? `; ${f.undelivered} not delivered within ${s.capMs / 1000} s (counted as that)`
			: '';
	const rows: Row[] = [
		{
			part: PART,
			metric: `${e}: every result on the service after it answers again, no tap (p50, min–max)`,
			unit: 's',
			value: spread(seconds),
			note:
				`${f.version}; ${f.outages.length} outages of ${Math.min(...durations).toFixed(0)}–` +
				`${Math.max(...durations).toFixed(0)} s (seed ${s.seed}), ${saved} results saved during them${undelivered}${stopped}`
		},
		{
			part: PART,
			metric: `${e}: same, p95`,
			unit: 's',
			value: single(p95),
			target: `≤ ${TARGET_P95_S}`,
			met: judged(ctx, p95 <= TARGET_P95_S)
		},
		{
			part: PART,
			metric: `${e}: requests to the service's port per 5 s while results wait and it is down`,
			unit: '',
			value: spread(rate),
			note: `all outages: ${breakdown(waiting.flat())}; after it answered, until delivered: ${breakdown(f.afterReturn.flat())}`
		},
		{
			part: PART,
			metric: `${e}: entry-point GETs (probes) per 5 s while results wait, per outage`,
			unit: '',
			value: spread(probes),
			target: `≤ ${TARGET_PROBES_PER_5S} (max)`,
			met: judged(ctx, maxProbes <= TARGET_PROBES_PER_5S)
		},
		{
			part: PART,
			metric: `${e}: header read "Online" while the service was down (after ${PILL_GRACE_MS / 1000} s)`,
			unit: '%',
			value: single(readings.length === 0 ? 0 : (100 * online) / readings.length),
			target: '0',
			met: judged(ctx, online === 0),
			note: `${online} of ${readings.length} readings (every 500 ms and after each save)`
		}
	];
	if (f.idle) {
		const idleProbes = f.idle.lines.filter((l) => kindOf(l) === 'entry point').length;
		rows.push({
			part: PART,
			metric: `${e}: requests per 5 s while nothing waits and the service is down (${(f.idle.ms / 1000).toFixed(0)} s)`,
			unit: '',
			value: single(per5s(f.idle.lines.length, f.idle.ms)),
			target: '0 probes',
			met: judged(ctx, idleProbes === 0),
			note: breakdown(f.idle.lines)
		});
	}
	if (f.peers.length > 0) {
		const peerP50 = percentile(f.peers, 0.5) / 1000;
		rows.push(
			{
				part: PART,
				metric: `${e}: peer: the same with a tap on Sync now as the service answers (${s.peerMs / 1000} s outages)`,
				unit: 's',
				value: spread(f.peers.map((ms) => ms / 1000))
			},
			{
				part: PART,
				metric: `${e}: no tap ÷ tap, p50`,
				unit: '×',
				value: single(percentile(seconds, 0.5) / Math.max(peerP50, 0.001))
			}
		);
	}
	return rows;
}

/**
 * Part 11: issue 19's delivery figures. Per engine (Chromium, WebKit, Firefox, each through its
 * own driver: tests/engines), the app opened once on the realistic event, then outages of the
 * service (stopped; its port counts what the phone sends meanwhile) of seeded random length while
 * a steward saves at a steward's pace; measured from the service listening again until every
 * result is on it (its own data, polled every 50 ms), with no tap. The peer: the same with a tap on
 * Sync now at once.
 */
export async function benchOutage(ctx: BenchContext): Promise<void> {
	const s = settings(ctx);
	const plans = outagePlans(s);
	ctx.log(
		`outage: seed ${s.seed} (rerun with RINGSIDE_OUTAGE_SEED=${s.seed}), ${plans.length} outages of ` +
			plans.map((p) => `${(p.durationMs / 1000).toFixed(0)} s/${p.saves.length} saves`).join(', ')
	);
	ctx.environment['outage seed'] = s.seed;
	const failures: string[] = [];
	for (const engine of s.engines) {
		const figures = await measureEngine(ctx, s, plans, engine);
		ctx.environment[engine] = figures.version;
		if (figures.outages.length > 0) ctx.rows.push(...rowsOf(ctx, s, figures));
		if (figures.error !== null) {
			failures.push(
				`${engine} stopped after ${figures.outages.length} outages: ${figures.error.split('\n')[0]}`
			);
		}
	}
	if (failures.length > 0) throw new Error(failures.join('; '));
}
