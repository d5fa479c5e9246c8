/**
 * Part 1 at a phone's latency (PHONE_LATENCY_MS): the app's replay, the same PUTs by plain fetch
 * and the app's own requests by plain fetch, each on a fresh copy of the seed, ratios within a rep.
 */
import type { BenchApi, PlannedPut, RecordedRequest } from '../pages/protocol.ts';
import { spread } from '../lib/stats.ts';
import { CONNECTIONS, openBenchPage, plainPuts, plainSame } from './baselines.ts';
import { PHONE_LATENCY_MS, type BenchContext } from './context.ts';

type Seed = 'small' | 'realistic';

export async function replayAtPhoneLatency(
	ctx: BenchContext,
	{ seed, edits, runsEdited, reps }: { seed: Seed; edits: number; runsEdited: number; reps: number }
): Promise<void> {
	const app: number[] = [];
	const overPlain: number[] = [];
	const overSame: number[] = [];
	for (let rep = 0; rep < reps; rep++) {
		const measured = await appReplay(ctx, seed, PHONE_LATENCY_MS, edits, runsEdited);
		const plainMs = await plainPuts(ctx, seed, PHONE_LATENCY_MS, measured.puts);
		const sameMs = await plainSame(ctx, seed, PHONE_LATENCY_MS, measured.requests);
		ctx.log(
			`replay at ${PHONE_LATENCY_MS} ms ${rep + 1}/${reps}: app ${measured.ms.toFixed(0)} ms, ` +
				`plain fetch ${plainMs.toFixed(0)} ms, its own requests ${sameMs.toFixed(0)} ms`
		);
		app.push(measured.ms);
		overPlain.push(measured.ms / plainMs);
		overSame.push(measured.ms / sameMs);
	}
	const part = '1 replay';
	const at = `${PHONE_LATENCY_MS} ms latency (a phone's network)`;
	ctx.rows.push(
		{ part, metric: `app replay, ${at}`, unit: 'ms', value: spread(app) },
		{ part, metric: `app ÷ plain fetch, ${at} (same rep)`, unit: '×', value: spread(overPlain) },
		{
			part,
			metric: `app ÷ plain fetch of its own requests, ${at} (same rep)`,
			unit: '×',
			value: spread(overSame)
		}
	);
}

/**
 * Download, save `edits` through the outbox, then the app's replay alone, timed; over HTTPS (the
 * event's own CA, which the context's browser must trust) with `tls`.
 */
export async function appReplay(
	ctx: BenchContext,
	seed: Seed,
	latencyMs: number,
	edits: number,
	runsEdited: number,
	tls = false
): Promise<{ ms: number; puts: PlannedPut[]; requests: RecordedRequest[] }> {
	const svc = await ctx.factory.start({ seed, latencyMs, appDir: ctx.benchPageDir, tls });
	try {
		if (svc.url.startsWith('https:') !== tls) throw new Error(`${svc.url}: TLS is not ${tls}`);
		const page = await openBenchPage(ctx, svc);
		const { puts } = await page.evaluate(
			([n, r]) =>
				(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.prepareEdits(n, r),
			[edits, runsEdited] as const
		);
		const result = await page.evaluate(
			(c) => (globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.replayApp(c),
			CONNECTIONS
		);
		await page.context().close();
		if (result.left !== 0 || result.sent !== edits) {
			throw new Error(`app replay at ${latencyMs} ms did not drain: ${result.left} left`);
		}
		return { ms: result.ms, puts, requests: result.requests };
	} finally {
		await svc.close();
	}
}
