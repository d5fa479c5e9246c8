import type { BenchApi, DownloadResult } from '../pages/protocol.ts';
import { spread } from '../lib/stats.ts';
import { judged, MB, type BenchContext } from './context.ts';
import { openBenchPage } from './replay.ts';
import type { BenchService } from '../lib/service.ts';

async function once(
	ctx: BenchContext,
	svc: BenchService,
	concurrency: number
): Promise<DownloadResult & { gets: number }> {
	const page = await openBenchPage(ctx, svc);
	try {
		svc.resetCounts();
		const result = await page.evaluate(
			(c) => (globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.download(c),
			concurrency
		);
		return { ...result, gets: svc.counts.get };
	} finally {
		await page.context().close();
	}
}

/**
 * Part 2: the IN_PROGRESS competition made available offline by the app's downloadCompetition
 * into real IndexedDB, 6 requests at a time against one at a time (a naive client); then the
 * stress seed's event, with the IndexedDB space it takes.
 */
export async function benchDownload(ctx: BenchContext): Promise<void> {
	const reps = ctx.reps(5);
	const part = '2 download';
	const svc = await ctx.factory.start({
		seed: ctx.smoke ? 'small' : 'realistic',
		latencyMs: ctx.latencyMs,
		appDir: ctx.benchPageDir
	});
	const six: number[] = [];
	const storeSix: number[] = [];
	const one: number[] = [];
	const ratios: number[] = [];
	let dogRuns = 0;
	let gets = 0;
	try {
		for (let rep = 0; rep < reps; rep++) {
			// Alternate which goes first, so neither always meets a cold service or a warm browser.
			const order = rep % 2 === 0 ? [6, 1] : [1, 6];
			const ms: Record<number, number> = {};
			for (const c of order) {
				const r = await once(ctx, svc, c);
				ms[c] = r.ms;
				if (c === 6) storeSix.push(r.ms - r.fetchMs);
				dogRuns = r.dogRuns;
				gets = r.gets;
				ctx.log(
					`download ${rep + 1}/${reps} concurrency ${c}: ${r.ms.toFixed(0)} ms (storing ` +
						`${(r.ms - r.fetchMs).toFixed(0)} ms), ${r.runs} runs, ` +
						`${r.dogRuns} dog runs, ${r.gets} GET`
				);
			}
			six.push(ms[6] ?? NaN);
			one.push(ms[1] ?? NaN);
			ratios.push((ms[1] ?? NaN) / (ms[6] ?? NaN));
		}
	} finally {
		await svc.close();
	}
	const sixSpread = spread(six);
	const ratioSpread = spread(ratios);
	ctx.rows.push(
		{
			part,
			metric: `${ctx.smoke ? 'small' : 'realistic'} event (${dogRuns} dog runs), concurrency 6`,
			unit: 'ms',
			value: sixSpread,
			target: '< 3000',
			met: judged(ctx, sixSpread.median < 3000)
		},
		{
			part,
			metric: 'of which storing (after the last list came in), concurrency 6',
			unit: 'ms',
			value: spread(storeSix)
		},
		{ part, metric: 'same event, concurrency 1 (naive client)', unit: 'ms', value: spread(one) },
		{
			part,
			metric: 'speed-up: concurrency 1 ÷ concurrency 6',
			unit: '×',
			value: ratioSpread,
			target: '≥ 3',
			met: judged(ctx, ratioSpread.median >= 3)
		},
		{ part, metric: 'GET requests per download', unit: '', value: spread([gets]) }
	);

	if (ctx.smoke) return;
	const stress = await ctx.factory.start({
		seed: 'stress',
		latencyMs: ctx.latencyMs,
		appDir: ctx.benchPageDir
	});
	const times: number[] = [];
	const stores: number[] = [];
	const sizes: number[] = [];
	let stressDogRuns = 0;
	try {
		for (let rep = 0; rep < reps; rep++) {
			const r = await once(ctx, stress, 6);
			times.push(r.ms);
			stores.push(r.ms - r.fetchMs);
			sizes.push(r.usageBytes / MB);
			stressDogRuns = r.dogRuns;
			ctx.log(
				`download stress ${rep + 1}/${reps}: ${r.ms.toFixed(0)} ms, ${r.dogRuns} dog runs, ` +
					`${(r.usageBytes / MB).toFixed(1)} MB, ${r.gets} GET`
			);
		}
	} finally {
		await stress.close();
	}
	ctx.rows.push(
		{
			part,
			metric: `stress event (${stressDogRuns} dog runs), concurrency 6`,
			unit: 'ms',
			value: spread(times)
		},
		{ part, metric: 'of which storing', unit: 'ms', value: spread(stores) },
		{ part, metric: 'stress event: IndexedDB usage delta', unit: 'MB', value: spread(sizes) }
	);
}
