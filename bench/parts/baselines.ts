/**
 * Part 1's baselines: the same PUTs (or the app's own requests) made without the app, by plain
 * fetch from the bench page and from Node, each on a fresh copy of the seed.
 */
import type { Page } from '@playwright/test';
import type { BenchApi, PlainResult, PlannedPut, RecordedRequest } from '../pages/protocol.ts';
import type { BenchService } from '../lib/service.ts';
import type { BenchContext } from './context.ts';

/** Connections per origin in Chromium over HTTP/1.1. */
export const CONNECTIONS = 6;

export async function openBenchPage(ctx: BenchContext, svc: BenchService): Promise<Page> {
	const context = await ctx.browser.newContext();
	const page = await context.newPage();
	page.on('pageerror', (e) => ctx.log(`bench page error: ${e.message}`));
	await page.goto(svc.url);
	await page.waitForSelector('body[data-ready=true]', { state: 'attached' });
	return page;
}

/** Plain fetch of `puts` from the bench page, on a fresh copy of the seed: the browser's own cost. */
export function plainPuts(
	ctx: BenchContext,
	seed: 'small' | 'realistic',
	latencyMs: number,
	puts: PlannedPut[]
): Promise<number> {
	const requests = puts.map((put): RecordedRequest => ({
		method: 'PUT',
		path: put.path,
		body: JSON.stringify(put.body)
	}));
	return plainSame(ctx, seed, latencyMs, requests);
}

/**
 * The app's replay's own requests (its check's list reads and its PUTs, in its order) by plain
 * fetch from the bench page, on a fresh copy of the seed: the same exchange with nothing of the app,
 * so the ratio to it is the app's own cost, apart from the reads its conflict check needs.
 */
export async function plainSame(
	ctx: BenchContext,
	seed: 'small' | 'realistic',
	latencyMs: number,
	requests: RecordedRequest[]
): Promise<number> {
	const svc = await ctx.factory.start({ seed, latencyMs, appDir: ctx.benchPageDir });
	try {
		const page = await openBenchPage(ctx, svc);
		const result: PlainResult = await page.evaluate(
			([r, c]) =>
				(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench.plainRequests(r, c),
			[requests, CONNECTIONS] as const
		);
		await page.context().close();
		if (result.failed > 0) throw new Error(`plain fetch: ${result.failed} requests not 2xx`);
		return result.ms;
	} finally {
		await svc.close();
	}
}

/** The PUTs from Node, `CONNECTIONS` at a time, on a fresh copy of the seed: the service alone. */
export async function nodePuts(
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
