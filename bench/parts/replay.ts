import type { BenchApi, PlannedPut, RecordedRequest } from '../pages/protocol.ts';
import { CONNECTIONS, nodePuts, openBenchPage, plainPuts, plainSame } from './baselines.ts';
import { heaviest, profileDir, startProfile, stopProfile } from '../lib/profile.ts';
import { spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';
import { replayAtPhoneLatency } from './replay-phone.ts';

const RUNS_EDITED = 10;

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
	const same: number[] = [];
	const appOverSame: number[] = [];
	for (let rep = 0; rep < reps; rep++) {
		let puts: PlannedPut[] | undefined;
		let requests: RecordedRequest[] | undefined;
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
			requests = result.requests;
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
		const sameMs = await plainSame(ctx, seed, ctx.latencyMs, requests ?? []);
		ctx.log(
			`replay ${rep + 1}/${reps} plain fetch of the app's ${requests.length} requests: ` +
				`${sameMs.toFixed(0)} ms`
		);
		same.push(sameMs);
		appOverSame.push(appMs / sameMs);
	}

	// The same replay with no added latency: what the client itself costs (IndexedDB, merge).
	const local: number[] = [];
	const serverPut: number[] = [];
	const localPlain: number[] = [];
	const localOverPlain: number[] = [];
	const localSame: number[] = [];
	const localOverSame: number[] = [];
	for (let rep = 0; rep < Math.min(reps, 3); rep++) {
		let requests: RecordedRequest[] | undefined;
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
			requests = result.requests;
			serverPut.push(svc.counts.putMs);
			await page.context().close();
		} finally {
			await svc.close();
		}
		const appMs = local[local.length - 1] ?? NaN;
		const plainMs = await plainPuts(ctx, seed, 0, plans[0] ?? []);
		localPlain.push(plainMs);
		localOverPlain.push(appMs / plainMs);
		const sameMs = await plainSame(ctx, seed, 0, requests ?? []);
		localSame.push(sameMs);
		localOverSame.push(appMs / sameMs);
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
			metric: `plain fetch: the app's own requests (its check's list reads and the PUTs), 6 at a time`,
			unit: 'ms',
			value: spread(same)
		},
		{
			part,
			metric: 'app ÷ plain fetch of its own requests (same rep): the client alone',
			unit: '×',
			value: spread(appOverSame)
		},
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
			metric: 'app ÷ plain fetch with 0 ms latency (same rep)',
			unit: '×',
			value: spread(localOverPlain)
		},
		{
			part,
			metric: 'plain fetch with 0 ms latency, the app’s own requests (its check’s reads too)',
			unit: 'ms',
			value: spread(localSame)
		},
		{
			part,
			metric: 'app ÷ plain fetch of its own requests with 0 ms latency (same rep)',
			unit: '×',
			value: spread(localOverSame)
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
	await replayAtPhoneLatency(ctx, { seed, edits, runsEdited, reps: Math.min(reps, 3) });
}
