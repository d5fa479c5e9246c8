import { chromium } from '@playwright/test';
import lighthouse, { type Result } from 'lighthouse';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadViaUi, inProgress, runsOf, serviceWorkerReady } from '../lib/app.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../lib/browser.ts';
import { spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';
import { freePort } from '../../scripts/free-port.ts';

const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;

/** Audits of a category that cost it points: scored below 0.9 and weighted. */
function weakAudits(lhr: Result, category: string): string[] {
	const refs = lhr.categories[category]?.auditRefs ?? [];
	const out: string[] = [];
	for (const ref of refs) {
		const audit = lhr.audits[ref.id];
		if (!audit || ref.weight === 0 || audit.score === null || audit.score >= 0.9) continue;
		out.push(`${ref.id}${audit.displayValue ? ` (${audit.displayValue})` : ''}`);
	}
	return out;
}

/**
 * Part 6: Lighthouse (mobile, simulated throttling) on the competition list and a run screen, in
 * Debian's chromium with the realistic event made available offline first, so the run screen has
 * its data (storage is not reset between runs).
 */
export async function benchLighthouse(ctx: BenchContext): Promise<void> {
	const reps = ctx.reps(3);
	const svc = await ctx.factory.start({
		seed: ctx.smoke ? 'small' : 'realistic',
		latencyMs: ctx.latencyMs,
		appDir: ctx.appDir
	});
	const profile = mkdtempSync(join(tmpdir(), 'ringside-bench-lh-'));
	const port = await freePort();
	// A persistent context is the browser's default context: the one Lighthouse's tabs open in.
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM_PATH,
		args: [...CHROMIUM_ARGS, `--remote-debugging-port=${port}`],
		serviceWorkers: 'allow'
	});
	try {
		const page = context.pages()[0] ?? (await context.newPage());
		await page.goto(svc.url);
		await serviceWorkerReady(page);
		const competition = inProgress(svc);
		await downloadViaUi(page, competition.name, 60_000);
		const run = runsOf(svc, competition.id).sort((a, b) => b.dogRuns - a.dogRuns)[0];
		if (!run) throw new Error('no run');
		const targets = [
			{ name: 'competition list /', url: svc.url },
			{
				name: `run screen /runs/${run.id} (${run.dogRuns} dog runs)`,
				url: `${svc.url}runs/${run.id}`
			}
		];
		// Smoke: the list only; the run screen alone takes over a minute (see bench/README.md).
		if (ctx.smoke) targets.pop();
		for (const target of targets) {
			const scores: Record<string, number[]> = {};
			const weak = new Map<string, number>();
			const failures: string[] = [];
			for (let rep = 0; rep < reps; rep++) {
				const result = await lighthouse(target.url, {
					port,
					output: 'json',
					logLevel: 'error',
					onlyCategories: [...CATEGORIES],
					disableStorageReset: true
				});
				const lhr = result?.lhr;
				if (!lhr || lhr.runtimeError) {
					// One failed run is reported and skipped; the figure is the median of the others.
					failures.push(lhr?.runtimeError?.code ?? 'no result');
					ctx.log(`lighthouse ${target.name} ${rep + 1}/${reps} failed: ${failures.at(-1)}`);
					continue;
				}
				for (const category of CATEGORIES) {
					const score = Math.round((lhr.categories[category]?.score ?? NaN) * 100);
					(scores[category] ??= []).push(score);
					if (score < 95) {
						for (const audit of weakAudits(lhr, category)) {
							const key = `${category}: ${audit.replace(/ \(.*\)$/, '')}`;
							weak.set(key, (weak.get(key) ?? 0) + 1);
						}
					}
				}
				ctx.log(
					`lighthouse ${target.name} ${rep + 1}/${reps}: ` +
						CATEGORIES.map((c) => `${c} ${scores[c]?.at(-1)}`).join(', ') +
						(weak.size > 0 ? `; weak: ${[...weak.keys()].join('; ')}` : '')
				);
			}
			for (const category of CATEGORIES) {
				const s = spread(scores[category] ?? []);
				const holding = [...weak.keys()]
					.filter((k) => k.startsWith(`${category}: `))
					.map((k) => k.slice(category.length + 2));
				ctx.rows.push({
					part: '6 lighthouse',
					metric: `${target.name}: ${category}`,
					unit: '',
					value: s,
					target: '≥ 95',
					met: judged(ctx, s.median >= 95),
					note:
						[
							holding.length > 0 ? `below 0.9: ${holding.join(', ')}` : '',
							failures.length > 0 ? `${failures.length} run(s) failed: ${failures.join(', ')}` : ''
						]
							.filter(Boolean)
							.join('; ') || undefined
				});
			}
		}
	} finally {
		await context.close();
		rmSync(profile, { recursive: true, force: true });
		await svc.close();
	}
}
