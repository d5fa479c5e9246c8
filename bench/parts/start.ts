import { chromium, type BrowserContext, type Page, type Response } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { downloadViaUi, inProgress, serviceWorkerReady } from '../lib/app.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH, PHONE, throttleCpu } from '../lib/browser.ts';
import { spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';

const LIST = '[data-testid=competition], [data-testid=offline-list]';
const KB = 1024;

interface StartProbe {
	/** performance.now() (from navigation start) when the competition list appeared. */
	shownAt: number | null;
}

/** Serialised into the page: no named inner functions (tsx would wrap them in a helper). */
function installStartProbe(selector: string): void {
	const probe: StartProbe = { shownAt: null };
	(globalThis as unknown as { startProbe: StartProbe }).startProbe = probe;
	const observer = new MutationObserver(() => {
		if (probe.shownAt === null && document.querySelector(selector)) {
			probe.shownAt = performance.now();
			observer.disconnect();
		}
	});
	observer.observe(document, { subtree: true, childList: true });
}

function persistent(dir: string, offline: boolean): Promise<BrowserContext> {
	return chromium.launchPersistentContext(dir, {
		...PHONE,
		executablePath: CHROMIUM_PATH,
		args: CHROMIUM_ARGS,
		offline
	});
}

async function firstPage(context: BrowserContext): Promise<Page> {
	return context.pages()[0] ?? (await context.newPage());
}

/** Gzipped size of every file the service worker precaches (its injected manifest). */
function precacheGzip(appDir: string): { files: number; bytes: number; raw: number } {
	const worker = readFileSync(join(appDir, 'service-worker.js'), 'utf8');
	const urls = [...worker.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1] ?? '');
	let bytes = 0;
	let raw = 0;
	for (const url of new Set(urls)) {
		// The SPA shell is precached under '/' (kit.spa.fallbackMapping): index.html.
		const path = (url.split('?')[0] ?? url).replace(/(^|\/)$/, '$1index.html');
		const file = join(appDir, path);
		if (!existsSync(file)) throw new Error(`precached ${url} is not in the build`);
		const content = readFileSync(file);
		raw += content.length;
		bytes += gzipSync(content).length;
	}
	return { files: new Set(urls).size, bytes, raw };
}

/**
 * Part 4: offline cold start (a new browser on the same profile, network off, CPU 4×) to the
 * competition list, from the service worker's cache; and the JavaScript the first screen loads.
 */
export async function benchStart(ctx: BenchContext): Promise<void> {
	const reps = ctx.reps(5);
	const svc = await ctx.factory.start({
		seed: ctx.smoke ? 'small' : 'realistic',
		latencyMs: ctx.latencyMs,
		appDir: ctx.appDir
	});
	const profile = mkdtempSync(join(tmpdir(), 'ringside-bench-profile-'));
	const part = '4 start';
	try {
		// Online once: the first screen's scripts, the service worker, an event made available offline.
		const online = await persistent(profile, false);
		let scriptGzip = 0;
		let scriptRaw = 0;
		let scripts = 0;
		try {
			const page = await firstPage(online);
			const pending: Promise<void>[] = [];
			const onResponse = (response: Response): void => {
				if (response.request().resourceType() !== 'script') return;
				pending.push(
					response.body().then((body) => {
						scripts++;
						scriptRaw += body.length;
						scriptGzip += gzipSync(body).length;
					})
				);
			};
			page.on('response', onResponse);
			await page.goto(svc.url);
			await page.locator(LIST).first().waitFor({ state: 'visible' });
			await page.waitForLoadState('networkidle');
			// The first screen's scripts only: not those loaded later by the download below.
			page.off('response', onResponse);
			await Promise.all(pending);
			await serviceWorkerReady(page);
			await downloadViaUi(page, inProgress(svc).name, 60_000);
		} finally {
			await online.close();
		}

		const times: number[] = [];
		for (let rep = 0; rep < reps; rep++) {
			const offline = await persistent(profile, true);
			try {
				const page = await firstPage(offline);
				await throttleCpu(page, 4);
				await page.addInitScript(installStartProbe, LIST);
				// A reload would restart performance.now(): count documents to be sure there is one.
				let documents = 0;
				page.on('domcontentloaded', () => documents++);
				await page.goto(svc.url);
				const shownAt = await page.waitForFunction(
					() => (globalThis as unknown as { startProbe?: StartProbe }).startProbe?.shownAt ?? null
				);
				const ms = (await shownAt.jsonValue()) ?? NaN;
				times.push(ms);
				ctx.log(
					`offline cold start ${rep + 1}/${reps}: ${ms.toFixed(0)} ms (${documents} document(s))`
				);
			} finally {
				await offline.close();
			}
		}
		const precache = precacheGzip(ctx.appDir);
		const startSpread = spread(times);
		ctx.rows.push(
			{
				part,
				metric: 'offline cold start to the competition list, CPU 4×',
				unit: 'ms',
				value: startSpread,
				target: '< 1000',
				met: judged(ctx, startSpread.median < 1000)
			},
			{
				part,
				metric: `first screen JS (${scripts} scripts, gzip)`,
				unit: 'KB',
				value: spread([scriptGzip / KB]),
				target: '< 100',
				met: judged(ctx, scriptGzip / KB < 100),
				note: `${(scriptRaw / KB).toFixed(0)} KB uncompressed`
			},
			{
				part,
				metric: `whole precache (${precache.files} files, gzip)`,
				unit: 'KB',
				value: spread([precache.bytes / KB]),
				note: `${(precache.raw / KB).toFixed(0)} KB uncompressed`
			}
		);
	} finally {
		rmSync(profile, { recursive: true, force: true });
		await svc.close();
	}
}
