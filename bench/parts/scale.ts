import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import {
	dogRunIds,
	downloadViaUi,
	inProgress,
	query,
	runsOf,
	serviceWorkerReady
} from '../lib/app.ts';
import { PHONE } from '../lib/browser.ts';
import { heaviest, profileDir, startProfile, stopProfile } from '../lib/profile.ts';
import type { BenchService } from '../lib/service.ts';
import { spread } from '../lib/stats.ts';
import { judged, MB, type BenchContext } from './context.ts';

interface TaskProbe {
	/** Long tasks (≥ 50 ms, as the browser reports them): start and duration. */
	tasks: [number, number][];
	/** Gaps between animation frames longer than 20 ms: end and length. */
	gaps: [number, number][];
}

/**
 * Installed before the app. Plain JavaScript: a function would be serialised after tsx rewrote it.
 * Long tasks are what the browser reports (≥ 50 ms); frame gaps > 20 ms are recorded as well.
 */
const TASK_PROBE = `(() => {
	const probe = { tasks: [], gaps: [] };
	globalThis.taskProbe = probe;
	new PerformanceObserver((list) => {
		for (const e of list.getEntries()) probe.tasks.push([e.startTime, e.duration]);
	}).observe({ type: 'longtask', buffered: true });
	let last = performance.now();
	const frame = (now) => {
		if (now - last > 20) probe.gaps.push([now, now - last]);
		last = now;
		requestAnimationFrame(frame);
	};
	requestAnimationFrame(frame);
})();`;

async function now(page: Page): Promise<number> {
	return page.evaluate(() => performance.now());
}

/** The longest task and the longest frame gap since `since` (page clock). */
async function worstSince(page: Page, since: number): Promise<{ task: number; gap: number }> {
	return page.evaluate((from) => {
		const probe = (globalThis as unknown as { taskProbe: TaskProbe }).taskProbe;
		const task = Math.max(0, ...probe.tasks.filter(([s]) => s >= from).map(([, d]) => d));
		const gap = Math.max(0, ...probe.gaps.filter(([end, d]) => end - d >= from).map(([, d]) => d));
		return { task, gap };
	}, since);
}

/** The long tasks since `since`: [start after `since`, duration] in ms. */
async function longTasksSince(page: Page, since: number): Promise<[number, number][]> {
	return page.evaluate((from) => {
		const probe = (globalThis as unknown as { taskProbe: TaskProbe }).taskProbe;
		return probe.tasks
			.filter(([s]) => s >= from)
			.map(([s, d]): [number, number] => [Math.round(s - from), Math.round(d)]);
	}, since);
}

async function heapMb(session: CDPSession): Promise<number> {
	const usage = await session.send('Runtime.getHeapUsage');
	return usage.usedSize / MB;
}

/** Makes `runId` hold `size` dog runs, with dogs of the same competition not yet in it. */
function enlargeRun(svc: BenchService, competitionId: number, runId: number, size: number): void {
	const db = svc.service.db;
	if (!db) throw new Error('no database');
	const [{ n } = { n: 0 }] = query<{ n: number }>(
		svc,
		'SELECT COUNT(*) AS n FROM dog_run WHERE competition_run_id = ?',
		runId
	);
	if (n >= size) return;
	db.prepare(
		`INSERT INTO dog_run (competition_run_id, start_no, dog_id, competitor_id)
		 SELECT @run, (SELECT MAX(start_no) FROM dog_run WHERE competition_run_id = @run)
		          + ROW_NUMBER() OVER (ORDER BY dog_id), dog_id, competitor_id
		 FROM (SELECT dog_id, MIN(competitor_id) AS competitor_id FROM dog_run
		       WHERE competition_run_id IN (SELECT id FROM competition_run WHERE competition_id = @cid)
		         AND dog_id NOT IN (SELECT dog_id FROM dog_run WHERE competition_run_id = @run)
		       GROUP BY dog_id ORDER BY dog_id LIMIT @more)`
	).run({ run: runId, cid: competitionId, more: size - n });
}

interface Screen {
	name: string;
	path: string;
	/** Waits until the screen shows its data. */
	ready(page: Page): Promise<void>;
	/** Dog runs to save from another tab while the screen is open. */
	saveIds: number[];
}

async function measureScreen(
	ctx: BenchContext,
	context: BrowserContext,
	baseUrl: string,
	screen: Screen,
	reps: number
): Promise<void> {
	const page = await context.newPage();
	page.on('pageerror', (e) => ctx.log(`page error: ${e.message}`));
	await page.addInitScript({ content: TASK_PROBE });
	await page.goto(baseUrl + screen.path.slice(1));
	await screen.ready(page);
	const session = await context.newCDPSession(page);
	await session.send('Emulation.setCPUThrottlingRate', { rate: 4 });
	const other = await context.newPage();
	const scrollTask: number[] = [];
	const scrollGap: number[] = [];
	const saveTask: number[] = [];
	const saveGap: number[] = [];
	const heap: number[] = [];
	try {
		for (let rep = 0; rep < reps; rep++) {
			await page.bringToFront();
			let mark = await now(page);
			for (let i = 0; i < 12; i++) {
				await page.mouse.wheel(0, i < 8 ? 900 : -1200);
				await page.waitForTimeout(120);
			}
			await page.waitForTimeout(300);
			const scrolled = await worstSince(page, mark);
			scrollTask.push(scrolled.task);
			scrollGap.push(scrolled.gap);

			// A save in another tab of the app: the screen's live queries take the change.
			const id = screen.saveIds[rep % screen.saveIds.length];
			await other.goto(`${baseUrl}dog-runs/${id}`);
			const input = other.getByTestId('time-input');
			await input.waitFor({ state: 'visible' });
			await other.waitForTimeout(300);
			await input.fill((30 + rep / 100).toFixed(2));
			const profiling = profileDir();
			if (profiling) await startProfile(session);
			mark = await now(page);
			await other.getByTestId('save').click();
			await other.getByTestId('flash').filter({ hasText: 'Saved on device' }).waitFor();
			// The replay sends it and stores the server's answer: a second change to show.
			await page.waitForTimeout(2500);
			const saved = await worstSince(page, mark);
			if (profiling) {
				const name = `${screen.path.replace(/\W+/g, '-')}-save-${rep + 1}`;
				const profile = await stopProfile(session, profiling, name);
				ctx.log(
					`${screen.name} ${rep + 1}/${reps}: tasks after the save ${JSON.stringify(await longTasksSince(page, mark))}`
				);
				for (const f of heaviest(profile)) ctx.log(`  ${f.ms.toFixed(1)} ms  ${f.where}`);
			}
			saveTask.push(saved.task);
			saveGap.push(saved.gap);
			heap.push(await heapMb(session));
			ctx.log(
				`${screen.name} ${rep + 1}/${reps}: scroll longest task ${scrolled.task.toFixed(0)} ms ` +
					`(frame gap ${scrolled.gap.toFixed(0)}), after save ${saved.task.toFixed(0)} ms ` +
					`(gap ${saved.gap.toFixed(0)}), heap ${heap[heap.length - 1]?.toFixed(1)} MB`
			);
		}
	} finally {
		await other.close();
		await page.close();
	}
	const part = '5 scale';
	const taskRow = (metric: string, values: number[]) => {
		const s = spread(values);
		return {
			part,
			metric,
			unit: 'ms',
			value: s,
			target: '< 50',
			met: judged(ctx, s.max < 50),
			note: s.max === 0 ? 'no long task (≥ 50 ms) at all' : undefined
		};
	};
	const heapSpread = spread(heap);
	ctx.rows.push(
		taskRow(`${screen.name}: longest task while scrolling, CPU 4×`, scrollTask),
		{
			part,
			metric: `${screen.name}: longest frame gap while scrolling`,
			unit: 'ms',
			value: spread(scrollGap)
		},
		taskRow(`${screen.name}: longest task after a save (other tab), CPU 4×`, saveTask),
		{
			part,
			metric: `${screen.name}: longest frame gap after a save`,
			unit: 'ms',
			value: spread(saveGap)
		},
		{
			part,
			metric: `${screen.name}: JS heap used`,
			unit: 'MB',
			value: heapSpread,
			target: '< 150',
			met: judged(ctx, heapSpread.max < 150)
		}
	);
}

/**
 * Part 5: the run screen with a run of 1,000 dog runs and the ring board of the stress event:
 * the longest main-thread task while scrolling and after a save, and the JS heap.
 */
export async function benchScale(ctx: BenchContext): Promise<void> {
	const reps = ctx.reps(3);
	const size = ctx.smoke ? 100 : 1000;
	const seed = ctx.smoke ? 'small' : 'stress';
	const svc = await ctx.factory.start({ seed, latencyMs: ctx.latencyMs, appDir: ctx.appDir });
	const context = await ctx.browser.newContext(PHONE);
	try {
		const competition = inProgress(svc);
		const [big] = runsOf(svc, competition.id)
			.filter((r) => r.recorded === 0)
			.sort((a, b) => b.dogRuns - a.dogRuns);
		if (!big) throw new Error('no unrecorded run');
		enlargeRun(svc, competition.id, big.id, size);
		const ids = dogRunIds(svc, big.id);
		ctx.log(`scale: run ${big.id} now has ${ids.length} dog runs`);

		const page = await context.newPage();
		await page.goto(svc.url);
		await serviceWorkerReady(page);
		const ms = await downloadViaUi(page, competition.name, 240_000);
		ctx.log(`scale: ${seed} event downloaded through the UI in ${ms} ms`);
		await page.close();

		await measureScreen(
			ctx,
			context,
			svc.url,
			{
				name: `run screen (${ids.length} dog runs)`,
				path: `/runs/${big.id}`,
				saveIds: ids.slice(0, reps),
				// A virtual list: only rows in view exist; the heading counts them all.
				ready: async (p) => {
					const count = String(ids.length).replace(/\B(?=(\d{3})+(?!\d))/g, '[,. \u00a0\u202f]?');
					await p
						.getByRole('heading', { level: 2 })
						.filter({ hasText: new RegExp(`\\(${count}\\b`) })
						.waitFor({ timeout: 60_000 });
					await p.getByTestId('dog-run').first().waitFor({ timeout: 60_000 });
				}
			},
			reps
		);
		await measureScreen(
			ctx,
			context,
			svc.url,
			{
				name: `ring board (${seed} event)`,
				path: `/rings/${competition.id}/${big.ringId}`,
				saveIds: ids.slice(reps, 2 * reps),
				ready: (p) => p.getByTestId('ring-next').waitFor({ state: 'visible', timeout: 60_000 })
			},
			reps
		);
	} finally {
		await context.close();
		await svc.close();
	}
}
