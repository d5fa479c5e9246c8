import type { BenchApi, DownloadResult, PlainResult } from '../pages/protocol.ts';
import { heaviest, profileDir, startProfile, stopProfile } from '../lib/profile.ts';
import { spread } from '../lib/stats.ts';
import { judged, MB, PHONE_LATENCY_MS, type BenchContext } from './context.ts';
import { openBenchPage } from './baselines.ts';
import type { BenchService } from '../lib/service.ts';

async function once(
	ctx: BenchContext,
	svc: BenchService,
	concurrency: number
): Promise<DownloadResult & { gets: number }> {
	const page = await openBenchPage(ctx, svc);
	try {
		svc.resetCounts();
		const profiling = concurrency === 6 ? profileDir() : null;
		const session = profiling ? await page.context().newCDPSession(page) : null;
		if (session) await startProfile(session);
		const result = await page.evaluate(
			(c) => (globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.download(c),
			concurrency
		);
		if (session && profiling) {
			const profile = await stopProfile(session, profiling, `download-${Date.now()}`);
			for (const f of heaviest(profile, 20)) ctx.log(`  ${f.ms.toFixed(1)} ms  ${f.where}`);
		}
		return { ...result, gets: svc.counts.get };
	} finally {
		await page.context().close();
	}
}

/** The download's GETs by plain fetch from the bench page, addresses known: the browser alone. */
async function plainGets(ctx: BenchContext, svc: BenchService, paths: string[]): Promise<number> {
	const page = await openBenchPage(ctx, svc);
	try {
		const result: PlainResult = await page.evaluate(
			([p, c]) =>
				(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.plainGets(p, c),
			[paths, 6] as const
		);
		if (result.failed > 0) throw new Error(`plain fetch: ${result.failed} GETs not answered 2xx`);
		return result.ms;
	} finally {
		await page.context().close();
	}
}

/** The download's GETs from Node, 6 at a time, addresses known: the service alone. */
async function nodeGets(svc: BenchService, paths: string[]): Promise<number> {
	const queue = [...paths];
	const t0 = performance.now();
	await Promise.all(
		Array.from({ length: 6 }, async () => {
			for (let path = queue.shift(); path; path = queue.shift()) {
				const answer = await fetch(new URL(path, svc.url));
				await answer.arrayBuffer();
				if (!answer.ok) throw new Error(`GET ${path}: ${answer.status}`);
			}
		})
	);
	return performance.now() - t0;
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
	const plain: number[] = [];
	const overPlain: number[] = [];
	const serviceOnly: number[] = [];
	let dogRuns = 0;
	let gets = 0;
	try {
		for (let rep = 0; rep < reps; rep++) {
			// Alternate which goes first, so neither always meets a cold service or a warm browser.
			const order = rep % 2 === 0 ? [6, 1] : [1, 6];
			const ms: Record<number, number> = {};
			let paths: string[] = [];
			for (const c of order) {
				const r = await once(ctx, svc, c);
				ms[c] = r.ms;
				if (c === 6) {
					storeSix.push(r.ms - r.fetchMs);
					paths = r.paths;
				}
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
			// Its GETs again with their addresses known (no chain of links, nothing stored).
			const plainMs = await plainGets(ctx, svc, paths);
			const nodeMs = await nodeGets(svc, paths);
			ctx.log(
				`download ${rep + 1}/${reps}: the same ${paths.length} GETs by plain fetch from the ` +
					`page ${plainMs.toFixed(0)} ms, from Node ${nodeMs.toFixed(0)} ms`
			);
			plain.push(plainMs);
			overPlain.push((ms[6] ?? NaN) / plainMs);
			serviceOnly.push(nodeMs);
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
		{ part, metric: 'GET requests per download', unit: '', value: spread([gets]) },
		{
			part,
			metric: 'floor: GETs × latency ÷ 6',
			unit: 'ms',
			value: spread([(gets * ctx.latencyMs) / 6])
		},
		{
			part,
			metric: 'service alone: the same GETs from Node, addresses known, 6 at a time',
			unit: 'ms',
			value: spread(serviceOnly)
		},
		{
			part,
			metric: 'plain fetch: the same GETs from the bench page, addresses known, 6 at a time',
			unit: 'ms',
			value: spread(plain)
		},
		{
			part,
			metric: 'download (concurrency 6) ÷ plain fetch (same rep)',
			unit: '×',
			value: spread(overPlain)
		}
	);

	await phoneDownload(ctx, Math.min(reps, 3));
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

/** The download and its plain fetch at a phone's latency (PHONE_LATENCY_MS), same rep. */
async function phoneDownload(ctx: BenchContext, reps: number): Promise<void> {
	const svc = await ctx.factory.start({
		seed: ctx.smoke ? 'small' : 'realistic',
		latencyMs: PHONE_LATENCY_MS,
		appDir: ctx.benchPageDir
	});
	const app: number[] = [];
	const storing: number[] = [];
	const plain: number[] = [];
	const ratios: number[] = [];
	try {
		for (let rep = 0; rep < reps; rep++) {
			const r = await once(ctx, svc, 6);
			const plainMs = await plainGets(ctx, svc, r.paths);
			ctx.log(
				`download at ${PHONE_LATENCY_MS} ms ${rep + 1}/${reps}: ${r.ms.toFixed(0)} ms (storing ` +
					`${(r.ms - r.fetchMs).toFixed(0)} ms), plain fetch ${plainMs.toFixed(0)} ms`
			);
			app.push(r.ms);
			storing.push(r.ms - r.fetchMs);
			plain.push(plainMs);
			ratios.push(r.ms / plainMs);
		}
	} finally {
		await svc.close();
	}
	const part = '2 download';
	const at = `${PHONE_LATENCY_MS} ms latency (a phone's network)`;
	ctx.rows.push(
		{ part, metric: `download, concurrency 6, ${at}`, unit: 'ms', value: spread(app) },
		{ part, metric: `of which storing, ${at}`, unit: 'ms', value: spread(storing) },
		{ part, metric: `plain fetch of the same GETs, ${at}`, unit: 'ms', value: spread(plain) },
		{ part, metric: `download ÷ plain fetch, ${at} (same rep)`, unit: '×', value: spread(ratios) }
	);
}
