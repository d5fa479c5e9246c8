import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { createService } from '../../server/app';
import { expect, test } from './fixtures';
import { startStricterUpstream, REFUSAL } from './support/stricter-upstream';
import { getJson, putJson, walk, type DogRunJson, type RunJson } from './support/service-data';

/**
 * Mirror mode's screens (issue 23): the event laptop's service copies competition 1 from the
 * federation's upstream service and publishes every change to it. Between them a proxy plays the
 * laptop's internet: cut (no answer at all), or an upstream stricter than ours (a canned 400 with
 * markup in its words). The office writes to the upstream directly. The secretary's phone opens
 * the app once, then taps: Settings → Devices (the upstream line) → the Upstream screen, where a
 * conflict is decided with Keep theirs and a refused change is sent again.
 */

const SCREENS = 'test-results/screens';

/** The screen as the phone shows it (`what` scrolled into view), light and dark. */
async function shoot(page: Page, name: string, what: Locator): Promise<void> {
	await what.scrollIntoViewIfNeeded();
	await page.screenshot({ path: `${SCREENS}/mirror-${name}-light.png` });
	await page.emulateMedia({ colorScheme: 'dark' });
	await page.screenshot({ path: `${SCREENS}/mirror-${name}-dark.png` });
	await page.emulateMedia({ colorScheme: 'light' });
}

test('the secretary sees what waits for the upstream, keeps theirs in a conflict and sends a refused change again', async ({
	browser
}) => {
	test.setTimeout(120_000);
	mkdirSync(SCREENS, { recursive: true });
	const dir = mkdtempSync(join(tmpdir(), 'ringside-mirror-e2e-'));
	const appDir = join(dir, 'app');
	cpSync('build', appDir, { recursive: true });
	const { upstream, proxy, net } = await startStricterUpstream(dir);
	const laptop = await createService({
		dbFile: join(dir, 'laptop.sqlite'),
		quiet: true,
		mirror: proxy.url,
		mirrorCompetitions: [1],
		mirrorPullMs: 200,
		appDir
	});
	const context = await browser.newContext({
		baseURL: laptop.url,
		serviceWorkers: 'allow',
		viewport: { width: 360, height: 740 },
		isMobile: true,
		hasTouch: true,
		colorScheme: 'light'
	});
	try {
		const competition = await getJson<{ _links: { competitionRuns: { href: string } } }>(
			`${laptop.url}api/v1/competitions/1`
		);
		// A run of today: the competition screen opens on today's runs.
		const today = new Date().toLocaleDateString('sv');
		const runs = await walk<RunJson>(competition._links.competitionRuns.href, 'competitionRuns');
		const run = runs.find((r) => r.date === today) ?? runs[0];
		const [first, second] = (await walk<DogRunJson>(run!._links.dogRuns.href, 'dogRuns')).filter(
			(d) => !d.absence && !d.disqualified
		);
		const onLaptop = (d: DogRunJson) => `${laptop.url}api/v1/dogRuns/${d.id}`;
		const onUpstream = (d: DogRunJson) => `${upstream.url}api/v1/dogRuns/${d.id}`;

		// The secretary's phone: the app once, then taps.
		const page = await context.newPage();
		await page.goto('/');
		await page.getByRole('link', { name: 'Settings' }).click();
		await page.getByTestId('devices-link').click();
		const line = page.getByTestId('upstream-line');
		await expect(line).toContainText('All published');
		await expect(page.getByTestId('upstream-needs')).toHaveCount(0);

		// The internet goes; a phone records a time (a PUT to the laptop, as the capture screen's);
		// the office corrects the same dog's time on the federation's service meanwhile.
		net.cut = true;
		expect(await putJson(onLaptop(first!), { time: 50.5 })).toBe(200);
		expect(await putJson(onUpstream(first!), { time: 49.99 })).toBe(200);
		// Read again every few seconds while the screen is open: no tap.
		await expect(line).toContainText(/1 waiting · internet lost/, { timeout: 15_000 });
		await expect(line).toContainText('Published up to');
		await shoot(page, 'devices-lost', line);

		net.cut = false;
		await expect(page.getByTestId('upstream-needs')).toHaveText('1 needs you', {
			timeout: 15_000
		});
		await shoot(page, 'devices-needs-you', line);

		// The line opens the Upstream screen: the conflict first, with both values.
		await line.click();
		await expect(page).toHaveURL(/\/upstream$/);
		await expect(page.getByTestId('upstream-connection')).toHaveAttribute('data-connected', 'true');
		const conflict = page.getByTestId('upstream-conflict');
		await expect(conflict).toHaveCount(1);
		await expect(conflict).toContainText(first!.dog.name);
		const field = conflict.getByTestId('upstream-field');
		await expect(field).toHaveAttribute('data-field', 'time');
		await expect(field.getByTestId('ours')).toContainText('50.50');
		await expect(field.getByTestId('theirs')).toContainText('49.99');
		await shoot(page, 'upstream-conflict', conflict.getByTestId('keep-theirs'));

		// Nothing overwritten while undecided; Keep theirs takes the upstream's value here.
		expect((await getJson<DogRunJson>(onLaptop(first!))).time).toBe(50.5);
		await conflict.getByTestId('keep-theirs').click();
		await expect(page.getByTestId('upstream-message')).toContainText('theirs kept');
		await expect(conflict).toHaveCount(0);
		expect((await getJson<DogRunJson>(onLaptop(first!))).time).toBe(49.99);
		expect((await getJson<DogRunJson>(onUpstream(first!))).time).toBe(49.99);
		// The laptop's run screen shows the upstream's time (reached by taps), then back.
		await page.locator('nav.tabs a[href="/"]').click();
		await page.locator('a[href="/competitions/1"]').first().click();
		await page.locator(`a[href="/runs/${run!.id}"]`).first().click();
		const row = page.locator(`[data-testid="dog-run"][data-dog-run-id="${first!.id}"]`);
		await expect(row.getByTestId('result')).toContainText('49.99');
		await page.locator('nav.tabs a[href="/settings"]').click();
		await page.getByTestId('devices-link').click();
		await page.getByTestId('upstream-line').click();
		await expect(page.getByTestId('upstream-nothing-waits')).toBeVisible();

		// A change the upstream refuses: its words shown as text, and Send again once it would take it.
		net.refuse = second!.id;
		const faults = second!.faults + 5;
		expect(await putJson(onLaptop(second!), { faults })).toBe(200);
		const refused = page.getByTestId('upstream-refused');
		await expect(refused).toHaveCount(1, { timeout: 15_000 });
		await expect(refused).toContainText(second!.dog.name);
		await expect(refused.getByTestId('upstream-refusal')).toHaveText(REFUSAL);
		await expect(refused.getByTestId('upstream-refusal').locator('*')).toHaveCount(0);
		expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
		await shoot(page, 'upstream-refused', refused.getByTestId('send-again'));

		net.refuse = null;
		await refused.getByTestId('send-again').click();
		await expect(page.getByTestId('upstream-message')).toContainText('sent again');
		await expect(refused).toHaveCount(0, { timeout: 15_000 });
		await expect
			.poll(async () => (await getJson<DogRunJson>(onUpstream(second!))).faults, {
				timeout: 15_000
			})
			.toBe(faults);
		await expect(page.getByTestId('upstream-nothing-waits')).toBeVisible({ timeout: 15_000 });

		// Back on Devices, by taps: all published.
		await page.locator('a.back').click();
		await expect(page.getByTestId('upstream-line')).toContainText('All published · last');
		await expect(page.getByTestId('upstream-needs')).toHaveCount(0);
	} finally {
		await context.close();
		await laptop.close();
		await proxy.close();
		await upstream.close();
		rmSync(dir, { recursive: true, force: true });
	}
});
