import type { Page } from '@playwright/test';
import { startTimerSim, type TimerSim } from '../../scripts/timer-sim.ts';
import { dogRunIds, downloadViaUi, inProgress, runsOf, serviceWorkerReady } from '../lib/app.ts';
import { PHONE, throttleCpu } from '../lib/browser.ts';
import { getJson, openEventStream, type SseClient } from '../lib/live-http.ts';
import { percentile, spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';
import { freePort } from '../../scripts/free-port.ts';

const PART = '8 timing';
/** The simulator's speed-up: a 40 s run is sent in 2 s (the times in its lines stay real). */
const PACE = 20;

interface TimeProbe {
	/** Every value the app put in the Time field, with Date.now() when it did, and when painted. */
	fills: { value: string; at: number; painted: number | null }[];
}

/**
 * Installed before the app: records each value the app writes to the Time field (its `value`
 * setter), with the wall clock, which Node shares on this machine, and the next frame after it.
 */
function installTimeProbe(): void {
	const probe: TimeProbe = { fills: [] };
	(globalThis as unknown as { timeProbe: TimeProbe }).timeProbe = probe;
	const own = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
	if (!own?.set || !own.get) return;
	const { get, set } = own;
	Object.defineProperty(HTMLInputElement.prototype, 'value', {
		configurable: true,
		get(this: HTMLInputElement) {
			return get.call(this);
		},
		set(this: HTMLInputElement, v: string) {
			set.call(this, v);
			if (this.dataset.testid !== 'time-input' || v === '') return;
			const fill = { value: v, at: Date.now(), painted: null as number | null };
			probe.fills.push(fill);
			requestAnimationFrame(() => setTimeout(() => (fill.painted = Date.now())));
			// The field must be empty for the next run's stop to go in by itself (a time in it is
			// never replaced without asking): Esc clears it, as a steward's keyboard would.
			setTimeout(() => {
				const escape = new KeyboardEvent('keydown', { key: 'Escape', bubbles: true });
				document.body.dispatchEvent(escape);
			}, 200);
		}
	});
}

/**
 * Part 8: electronic timing end to end. The simulated chronometer (scripts/timer-sim.ts, seeded)
 * → the service's timer bridge (TCP) → the ring's timer stream → a phone's capture screen (CPU 4×),
 * where each STOP fills the Time field of the dog on screen. Measured: the STOP line's write →
 * the app writing the time into the field, and → the next frame. The peer in the same run: a Node
 * client on the same stream (the bridge's relay alone), so the ratio is the phone's own share.
 */
export async function benchTiming(ctx: BenchContext): Promise<void> {
	const runs = ctx.smoke ? 4 : 40;
	const seed = 8;
	const port = await freePort();
	const svcSeed = 'small';
	// The ring of a run nobody has recorded yet: its first dog stays on screen for every run.
	const probeSvc = await ctx.factory.start({ seed: svcSeed, latencyMs: 0 });
	const competition = inProgress(probeSvc);
	const run = runsOf(probeSvc, competition.id).find((r) => r.recorded === 0);
	await probeSvc.close();
	if (!run) throw new Error('no unrecorded run');
	const svc = await ctx.factory.start({
		seed: svcSeed,
		latencyMs: ctx.latencyMs,
		appDir: ctx.appDir,
		timer: `ring=${run.ringId},tcp:127.0.0.1:${port}`,
		timerOptions: { reconnectMinMs: 50, reconnectMaxMs: 200 }
	});
	const context = await ctx.browser.newContext(PHONE);
	let sim: TimerSim | null = null;
	let stream: SseClient | null = null;
	try {
		const page: Page = await context.newPage();
		page.on('pageerror', (e) => ctx.log(`page error: ${e.message}`));
		await page.addInitScript(installTimeProbe);
		await page.goto(svc.url);
		await serviceWorkerReady(page);
		await downloadViaUi(page, competition.name, 120_000);
		const [first] = dogRunIds(svc, run.id);
		await page.goto(`${svc.url}dog-runs/${first}`);
		await page.getByTestId('time-input').waitFor({ state: 'visible' });
		await throttleCpu(page, 4);

		// The peer: the same stream read by Node.
		const c = await getJson<{
			_embedded?: {
				competitions?: {
					id: number;
					rings: { id: number; _links: { timer?: { href: string } } }[];
				}[];
			};
		}>(`${svc.url}api/v1/competitions?size=100`);
		const href = c._embedded?.competitions
			?.find((x) => x.id === competition.id)
			?.rings.find((r) => r.id === run.ringId)?._links.timer?.href;
		if (!href) throw new Error('the ring has no timer link');
		const relayed: number[] = [];
		stream = openEventStream(href, (m) => {
			if (m.event === 'timing' && m.data.includes('"stop"')) relayed.push(Date.now());
		});
		await stream.opened;

		const stops: { sentAt: number; elapsedCs: number | null }[] = [];
		let pending: number | null = null;
		sim = await startTimerSim({
			port,
			seed,
			pace: PACE,
			runs,
			onLine: (line) => {
				if (line.startsWith('STOP')) pending = Date.now();
			},
			onRun: (r) => {
				if (pending !== null) stops.push({ sentAt: pending, elapsedCs: r.elapsedCs });
				pending = null;
			}
		});
		// The phone shows the gates connected before the first run ends.
		await page.locator('[data-testid=capture][data-gates=connected]').waitFor({ timeout: 30_000 });
		await sim.done;
		await page.waitForTimeout(500);
		const fills = await page.evaluate(
			() => (globalThis as unknown as { timeProbe: TimeProbe }).timeProbe.fills
		);
		const toField: number[] = [];
		const toFrame: number[] = [];
		const toNode: number[] = [];
		let missing = 0;
		for (const stop of stops) {
			if (stop.elapsedCs === null) continue;
			const want = (stop.elapsedCs / 100).toFixed(2);
			const fill = fills.find((f) => f.value === want && f.at >= stop.sentAt);
			const node = relayed.find((at) => at >= stop.sentAt);
			if (!fill) {
				missing++;
				continue;
			}
			toField.push(fill.at - stop.sentAt);
			if (fill.painted !== null) toFrame.push(fill.painted - stop.sentAt);
			if (node !== undefined) toNode.push(node - stop.sentAt);
		}
		ctx.log(
			`timing: seed ${seed}, ${runs} runs, ${stops.length} with a stop, ${toField.length} measured, ${missing} not filled`
		);
		if (toField.length === 0) throw new Error('no stop reached the Time field');
		const p95 = percentile(toField, 0.95);
		const single = (v: number) => spread([v]);
		const nodeP50 = percentile(toNode, 0.5);
		ctx.rows.push(
			{
				part: PART,
				metric: `STOP line → Time field filled on the phone, p50, ${toField.length} stops, CPU 4×`,
				unit: 'ms',
				value: single(percentile(toField, 0.5))
			},
			{
				part: PART,
				metric: 'same, p95',
				unit: 'ms',
				value: single(p95),
				target: '≤ 200',
				met: judged(ctx, p95 <= 200)
			},
			{
				part: PART,
				metric: 'STOP line → next frame painted, p95',
				unit: 'ms',
				value: single(percentile(toFrame, 0.95))
			},
			{
				part: PART,
				metric: 'peer: STOP line → a Node client of the same stream, p50',
				unit: 'ms',
				value: single(nodeP50)
			},
			{
				part: PART,
				metric: 'phone ÷ Node client, p50 (the app’s own share)',
				unit: '×',
				value: single(percentile(toField, 0.5) / Math.max(nodeP50, 0.1))
			},
			{
				part: PART,
				metric: 'stops that did not reach the field',
				unit: '',
				value: single(missing),
				target: '0',
				met: judged(ctx, missing === 0)
			}
		);
	} finally {
		stream?.close();
		await sim?.close();
		await context.close();
		await svc.close();
	}
}
