import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, ServiceHandle, test } from './fixtures';
import { makeAvailableOffline, unrecordedRun } from './support/service-data';
import { tapTime } from './support/keypad';

/**
 * A new version of the app arrives while the phone is still sending results to a slow service:
 * "Reload" switches to it without waiting for the old worker's replay to end, and every result
 * still reaches the service (the new worker resumes the replay).
 */

const DOGS = 10;
/** Each request to the service takes this long: the replay of DOGS results takes many times it. */
const SLOW_MS = 1_500;

test('Reload takes the new version at once during a slow replay, and loses nothing', async ({
	browser
}) => {
	test.setTimeout(120_000);
	const handle = new ServiceHandle({ etag: true });
	const { v1, v2 } = handle.appVersions('update test');
	await handle.start({ appDir: v1 });
	const context = await browser.newContext({ baseURL: handle.url });
	try {
		const { competition, run, dogRuns } = await unrecordedRun(handle.url, DOGS + 1);
		const page = await context.newPage();
		await page.goto('/');
		await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
		await makeAvailableOffline(page, competition.name);

		// At the ring with no signal: the steward opens the run and records ten dogs in a row.
		await context.setOffline(true);
		await page.locator(`a[href="/competitions/${competition.id}"]`).first().click();
		await page.locator(`a[href="/runs/${run.id}"]`).first().click();
		await page.locator(`[data-testid="dog-run"][data-dog-run-id="${dogRuns[0]!.id}"]`).click();
		for (let i = 0; i < DOGS; i++) {
			await expect(page.getByTestId('capture')).toBeVisible();
			await tapTime(page, `4${i},2`);
			await page.getByTestId('save-next').click();
			await expect(page).toHaveURL(new RegExp(`/dog-runs/${dogRuns[i + 1]!.id}$`));
		}

		// Meanwhile the ring laptop got the new version, and the service is slow.
		await handle.stop();
		await handle.start({ appDir: v2 });
		handle.service.setFaults({ delayMs: [SLOW_MS, SLOW_MS] });
		const applied = () =>
			handle.putLog().filter((r) => r.status === 200 && r.resourceKind === 'dogRun').length;

		// The signal comes back: the old worker starts sending; the new version is found.
		await context.setOffline(false);
		await page.evaluate(async () => {
			const registration = await navigator.serviceWorker.getRegistration();
			await registration?.update();
		});
		const banner = page.getByTestId('update-banner');
		await expect(banner).toBeVisible({ timeout: 20_000 });
		await expect.poll(applied, { timeout: 20_000 }).toBeGreaterThan(0);
		const reloaded = page.waitForEvent('load', { timeout: 30_000 });
		await banner.getByRole('button', { name: 'Reload' }).click();
		await reloaded;
		// The old worker did not finish its replay first.
		const atReload = applied();
		expect(atReload).toBeLessThan(DOGS);
		// The new version is in charge: nothing waits any more, and the banner is gone.
		await expect(page.getByTestId('update-banner')).toHaveCount(0);
		expect(
			await page.evaluate(async () => {
				const registration = await navigator.serviceWorker.getRegistration();
				return registration?.waiting === null && registration.active !== null;
			})
		).toBe(true);

		// The service's requests bypass the worker (the Static Routing API, in Chromium): none of
		// them can wake a retiring worker and hold the next switch.
		const routed = await page.evaluate(async () => {
			performance.clearResourceTimings();
			await (await fetch('/api/v1/competitions')).text();
			const entry = performance
				.getEntriesByType('resource')
				.findLast((e) => e.name.endsWith('/api/v1/competitions')) as
				(PerformanceResourceTiming & { workerMatchedSourceType?: string }) | undefined;
			return entry?.workerMatchedSourceType;
		});
		expect(routed).toBe('network');

		// The new worker sends the rest: every time the steward saved is on the service.
		await expect.poll(applied, { timeout: 60_000 }).toBe(DOGS);
		const stored = await Promise.all(
			dogRuns.slice(0, DOGS).map(async (d) => {
				const answer = await fetch(d._links.self.href);
				return ((await answer.json()) as { time: number | null }).time;
			})
		);
		expect(stored).toEqual(Array.from({ length: DOGS }, (_, i) => 40 + i + 0.2));
		console.log(`update during a slow replay: ${atReload} of ${DOGS} results sent at the reload`);
	} finally {
		await context.close();
		await handle.dispose();
	}
});

test('the app rebuilt beside the running service: pages keep working, a new phone gets the app, and the update arrives', async ({
	browser
}) => {
	test.setTimeout(90_000);
	const handle = new ServiceHandle();
	const { v1, v2 } = handle.appVersions('rebuild test');
	// The folder the service serves and follows, as `build/` beside `npm start`.
	const served = join(handle.dir, 'served');
	mkdirSync(served);
	cpSync(v1, served, { recursive: true });
	await handle.start({ appDir: served });
	const context = await browser.newContext({ baseURL: handle.url });
	const fresh = await browser.newContext({ baseURL: handle.url });
	try {
		const { competition } = await unrecordedRun(handle.url);
		const page = await context.newPage();
		await page.goto('/');
		await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
		await expect(page.getByTestId('competition').first()).toBeVisible();

		// `vite build` empties the folder first, then writes the new build.
		for (const name of readdirSync(served)) rmSync(join(served, name), { recursive: true });
		await page.waitForTimeout(1_500);
		// The steward goes on: a screen not opened before opens.
		await page.locator(`a[href="/competitions/${competition.id}"]`).first().click();
		await expect(page.getByRole('heading', { name: competition.name })).toBeVisible();
		// A phone that opens the address now gets the app, not a blank page.
		const newcomer = await fresh.newPage();
		await newcomer.goto('/');
		await expect(newcomer.getByTestId('competition').first()).toBeVisible();

		// The build is written: the open page finds the new version and takes it.
		cpSync(v2, served, { recursive: true });
		await expect
			.poll(
				() =>
					page.evaluate(async () => {
						const registration = await navigator.serviceWorker.getRegistration();
						await registration?.update().catch(() => undefined);
						return document.querySelector('[data-testid="update-banner"]') !== null;
					}),
				{ timeout: 20_000, intervals: [1_000] }
			)
			.toBe(true);
		const reloaded = page.waitForEvent('load', { timeout: 30_000 });
		await page.getByTestId('update-banner').getByRole('button', { name: 'Reload' }).click();
		await reloaded;
		await expect(page.getByTestId('update-banner')).toHaveCount(0);
		await page.getByRole('link', { name: 'Competitions' }).click();
		await expect(page.getByTestId('competition').first()).toBeVisible();
		const worker = await page.evaluate(async () => {
			const registration = await navigator.serviceWorker.getRegistration();
			const url = registration?.active?.scriptURL;
			return url ? (await fetch(url)).text() : '';
		});
		expect(worker).toContain('rebuild test: version 2');
	} finally {
		await context.close();
		await fresh.close();
		await handle.dispose();
	}
});
