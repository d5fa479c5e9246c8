import type { Page } from '@playwright/test';
import type { BenchApi, PlainResult, PlannedPut } from '../pages/protocol.ts';
import type { BenchService } from '../lib/service.ts';
import { heaviest, profileDir, startProfile, stopProfile } from '../lib/profile.ts';
import { spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';

/** Connections per origin in Chromium over HTTP/1.1. */
const CONNECTIONS = 6;
const RUNS_EDITED = 10;

export async function openBenchPage(ctx: BenchContext, svc: BenchService): Promise<Page> {
	const context = await ctx.browser.newContext();
	const page = await context.newPage();
	page.on('pageerror', (e) => ctx.log(`bench page error: ${e.message}`));
	await page.goto(svc.url);
	await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
	return page;
}

/** Plain fetch of `puts` from the bench page, on a fresh copy of the seed: the browser's own cost. */
async function plainPuts(
	ctx: BenchContext,
	seed: 'small' | 'realistic',
	latencyMs: number,
	puts: PlannedPut[]
): Promise<number> {
	const svc = await ctx.factory.start({ seed, latencyMs, appDir: ctx.benchPageDir });
	try {
		const page = await openBenchPage(ctx, svc);
		const result: PlainResult = await page.evaluate(
			([p, c]) =>
				(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.plainPuts(p, c),
			[puts, CONNECTIONS] as const
		);
		await page.context().close();
		if (result.failed > 0) throw new Error(`plain fetch: ${result.failed} PUTs not answered 2xx`);
		return result.ms;
	} finally {
		await svc.close();
	}
}

/** The PUTs from Node, `CONNECTIONS` at a time, on a fresh copy of the seed: the service alone. */
async function nodePuts(
	ctx: BenchContext,
	seed: 'small' | 'realistic',
	latencyMs: number,
	puts: PlannedPut[]
): Promise<number> {
	const svc = await ctx.factory.start({ seed, latencyMs, appDir: ctx.benchPageDir });
	try {
		const queue = [...puts];
		const t0 = performance.now();
		await Promise.all(
			Array.from({ length: CONNECTIONS }, async () => {
				for (let put = queue.shift(); put; put = queue.shift()) {
					const answer = await fetch(new URL(put.path, svc.url), {
						method: 'PUT',
						headers: { 'Content-Type': 'application/json' },
						body: JSON.stringify(put.body)
					});
					await answer.arrayBuffer();
					if (answer.status !== 200) throw new Error(`PUT ${put.path}: ${answer.status}`);
				}
			})
		);
		return performance.now() - t0;
	} finally {
		await svc.close();
	}
}

/**
 * Part 1: the same unsent dog-run edits replayed by the app's replay (conflict check included,
 * parallel across resources) and by Workbox's Queue.replayRequests() (one at a time), each on a
 * fresh copy of the realistic seed, in the same browser.
 */
export async function benchReplay(ctx: BenchContext): Promise<void> {
	const edits = ctx.smoke ? 50 : 1000;
	const reps = ctx.reps(5);
	const seed = ctx.smoke ? 'small' : 'realistic';
	const runsEdited = ctx.smoke ? 2 : RUNS_EDITED;
	const app: number[] = [];
	const workbox: number[] = [];
	const ratios: number[] = [];
	const appGets: number[] = [];
	const appPuts: number[] = [];
	const wbPuts: number[] = [];
	const wbGets: number[] = [];
	const plans: PlannedPut[][] = [];
	const plain: number[] = [];
	const appOverPlain: number[] = [];
	for (let rep = 0; rep < reps; rep++) {
		let puts: PlannedPut[] | undefined;
		// The app's side: download, save the edits through the outbox, then replay until empty.
		const svc = await ctx.factory.start({
			seed,
			latencyMs: ctx.latencyMs,
			appDir: ctx.benchPageDir
		});
		let appMs: number;
		try {
			const page = await openBenchPage(ctx, svc);
			const prepared = await page.evaluate(
				([n, r]) =>
					(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.prepareEdits(n, r),
				[edits, runsEdited] as const
			);
			puts = prepared.puts;
			plans.push(puts);
			svc.resetCounts();
			const result = await page.evaluate(
				(c) => (globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.replayApp(c),
				CONNECTIONS
			);
			const accepted = svc.service.db
				?.prepare('SELECT COUNT(*) AS n FROM put_log WHERE status = 200')
				.get() as { n: number } | undefined;
			ctx.log(
				`replay ${rep + 1}/${reps} app: ${result.ms.toFixed(0)} ms, ${result.passes} pass(es), ` +
					`sent ${result.sent}, already applied ${result.alreadyApplied}, conflicts ` +
					`${result.conflicts}, failed ${result.failed}, left ${result.left}; service saw ` +
					`${svc.counts.get} GET, ${svc.counts.put} PUT (${accepted?.n ?? '?'} accepted)`
			);
			if (result.left !== 0 || result.sent !== edits) {
				throw new Error(`app replay did not drain: ${JSON.stringify(result)}`);
			}
			appMs = result.ms;
			appGets.push(svc.counts.get);
			appPuts.push(svc.counts.put);
			await page.context().close();
		} finally {
			await svc.close();
		}

		// Workbox's side: the same PUTs queued, then replayRequests() on a fresh copy of the seed.
		const svc2 = await ctx.factory.start({
			seed,
			latencyMs: ctx.latencyMs,
			appDir: ctx.benchPageDir
		});
		try {
			const page = await openBenchPage(ctx, svc2);
			svc2.resetCounts();
			const result = await page.evaluate(
				(p) =>
					(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.replayWorkbox(p),
				puts
			);
			ctx.log(
				`replay ${rep + 1}/${reps} workbox: ${result.ms.toFixed(0)} ms, queued ${result.queued}, ` +
					`left ${result.left}; service saw ${svc2.counts.get} GET, ${svc2.counts.put} PUT`
			);
			if (result.left !== 0) throw new Error(`workbox replay did not drain: ${result.left} left`);
			workbox.push(result.ms);
			wbPuts.push(svc2.counts.put);
			wbGets.push(svc2.counts.get);
			await page.context().close();
		} finally {
			await svc2.close();
		}
		app.push(appMs);
		ratios.push(appMs / (workbox[workbox.length - 1] ?? NaN));

		// The browser alone: the same PUTs by plain fetch from the bench page, no app code at all.
		const plainMs = await plainPuts(ctx, seed, ctx.latencyMs, puts ?? []);
		ctx.log(`replay ${rep + 1}/${reps} plain fetch: ${plainMs.toFixed(0)} ms`);
		plain.push(plainMs);
		appOverPlain.push(appMs / plainMs);
	}

	// The same replay with no added latency: what the client itself costs (IndexedDB, merge).
	const local: number[] = [];
	const serverPut: number[] = [];
	const localPlain: number[] = [];
	for (let rep = 0; rep < Math.min(reps, 3); rep++) {
		const svc = await ctx.factory.start({ seed, latencyMs: 0, appDir: ctx.benchPageDir });
		try {
			const page = await openBenchPage(ctx, svc);
			await page.evaluate(
				([n, r]) =>
					(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.prepareEdits(n, r),
				[edits, runsEdited] as const
			);
			svc.resetCounts();
			const profiling = profileDir();
			const session = profiling ? await page.context().newCDPSession(page) : null;
			if (session) await startProfile(session);
			const result = await page.evaluate(
				(c) => (globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.replayApp(c),
				CONNECTIONS
			);
			if (session && profiling) {
				const profile = await stopProfile(session, profiling, `replay-0ms-${rep + 1}`);
				for (const f of heaviest(profile, 25)) ctx.log(`  ${f.ms.toFixed(1)} ms  ${f.where}`);
			}
			ctx.log(
				`replay at 0 ms latency ${rep + 1}: ${result.ms.toFixed(0)} ms, sent ${result.sent}; ` +
					`the service spent ${svc.counts.putMs.toFixed(0)} ms handling the PUTs`
			);
			local.push(result.ms);
			serverPut.push(svc.counts.putMs);
			await page.context().close();
		} finally {
			await svc.close();
		}
		localPlain.push(await plainPuts(ctx, seed, 0, plans[0] ?? []));
	}

	// The service alone: the same PUTs from Node, 6 at a time, with no latency (what it can take)
	// and with the bench's latency (what any client of it could reach).
	const serviceOnly: number[] = [];
	const serviceOnlyLatency: number[] = [];
	for (let rep = 0; rep < Math.min(reps, 3); rep++) {
		serviceOnly.push(await nodePuts(ctx, seed, 0, plans[0] ?? []));
		serviceOnlyLatency.push(await nodePuts(ctx, seed, ctx.latencyMs, plans[0] ?? []));
	}

	const floor = (edits * ctx.latencyMs) / CONNECTIONS;
	const appSpread = spread(app);
	const part = '1 replay';
	ctx.rows.push(
		{
			part,
			metric: `app replay, ${edits} edits in ${runsEdited} runs`,
			unit: 'ms',
			value: appSpread,
			target: `≤ 2× floor (${(2 * floor).toFixed(0)} ms)`,
			met: judged(ctx, appSpread.median <= 2 * floor)
		},
		{
			part,
			metric: 'Workbox Queue.replayRequests()',
			unit: 'ms',
			value: spread(workbox)
		},
		{
			part,
			metric: 'app ÷ Workbox (same rep)',
			unit: '×',
			value: spread(ratios),
			target: '≤ 0.25',
			met: judged(ctx, spread(ratios).median <= 0.25)
		},
		{
			part,
			metric: `floor N × latency ÷ ${CONNECTIONS}`,
			unit: 'ms',
			value: spread([floor])
		},
		{ part, metric: 'app ÷ floor', unit: '×', value: spread(app.map((ms) => ms / floor)) },
		{
			part,
			metric: `service alone: the same ${edits} PUTs from Node, 6 at a time, ${ctx.latencyMs} ms latency`,
			unit: 'ms',
			value: spread(serviceOnlyLatency)
		},
		{
			part,
			metric: `plain fetch: the same ${edits} PUTs from the bench page, 6 at a time (the browser alone)`,
			unit: 'ms',
			value: spread(plain)
		},
		{ part, metric: 'app ÷ plain fetch (same rep)', unit: '×', value: spread(appOverPlain) },
		{
			part,
			metric: 'app replay with 0 ms latency (client-side cost)',
			unit: 'ms',
			value: spread(local)
		},
		{
			part,
			metric: 'plain fetch with 0 ms latency (the browser alone)',
			unit: 'ms',
			value: spread(localPlain)
		},
		{
			part,
			metric: 'sum of the service’s PUT handling times in that replay (they overlap)',
			unit: 'ms',
			value: spread(serverPut)
		},
		{
			part,
			metric: `service alone: the same ${edits} PUTs from Node, 6 at a time, 0 ms latency`,
			unit: 'ms',
			value: spread(serviceOnly)
		},
		{ part, metric: 'app requests: GET', unit: '', value: spread(appGets) },
		{ part, metric: 'app requests: PUT', unit: '', value: spread(appPuts) },
		{ part, metric: 'Workbox requests: GET', unit: '', value: spread(wbGets) },
		{ part, metric: 'Workbox requests: PUT', unit: '', value: spread(wbPuts) }
	);
}
