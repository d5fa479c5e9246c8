import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { expect, ServiceHandle, test } from './fixtures';
import { pdfPages, squeeze } from './support/pdf';
import { inProgress, walk, type DogRunJson, type RunJson } from './support/service-data';

/**
 * A shared address opened on a phone that has never seen the app (a fresh browser context,
 * nothing stored), online: the app finds what it names by following the service's links, loads
 * it with a progress line, shows it, and keeps it for use offline. Offline and not on the phone,
 * it says so and leads to the list. The three sheets print from cold addresses.
 */
const SCREENS = 'test-results/screens';

interface Seeded {
	competition: Awaited<ReturnType<typeof inProgress>>;
	ring: { id: number; name: string };
	run: RunJson;
	dogRuns: DogRunJson[];
}

/** The competition in progress, its first ring, a run of that ring and its dogs (links only). */
async function seeded(serviceUrl: string): Promise<Seeded> {
	const competition = await inProgress(serviceUrl);
	const ring = competition.rings[0]!;
	const runs = await walk<RunJson>(competition._links.competitionRuns.href, 'competitionRuns');
	const run = runs.find((r) => r.competitionRing.id === ring.id)!;
	const dogRuns = await walk<DogRunJson>(run._links.dogRuns.href, 'dogRuns');
	return { competition, ring, run, dogRuns };
}

async function fresh(browser: Browser, baseURL: string): Promise<BrowserContext> {
	return browser.newContext({ baseURL, viewport: { width: 360, height: 640 }, locale: 'en-US' });
}

/** Opens the address and waits for what the screen is for; the milliseconds it took. */
async function openCold(page: Page, address: string, shown: () => Promise<void>): Promise<number> {
	const started = Date.now();
	await page.goto(address);
	await shown();
	return Date.now() - started;
}

test('every screen’s address opens cold on an online phone, and stays there offline', async ({
	browser,
	handle
}) => {
	test.setTimeout(240_000);
	const { competition, ring, run, dogRuns } = await seeded(handle.url);
	const dog = dogRuns[2]!;
	const heading = (page: Page, text: string) =>
		expect(page.getByRole('heading', { level: 1 })).toContainText(text, { timeout: 30_000 });

	const addresses: { address: string; shown: (page: Page) => Promise<void> }[] = [
		{
			address: `/board/${competition.id}/${ring.id}`,
			shown: async (page) => {
				await expect(page.getByTestId('board-run')).toHaveText(/\S/, { timeout: 30_000 });
				await expect(page.getByTestId('board')).toContainText(ring.name);
			}
		},
		{
			address: `/runs/${run.id}/results`,
			shown: async (page) => {
				await heading(page, `Results: ${run.name}`);
				await expect(page.getByTestId('result-line')).toHaveCount(dogRuns.length);
			}
		},
		{
			address: `/runs/${run.id}/start-list`,
			shown: async (page) => {
				await heading(page, `Start list: ${run.name}`);
				await expect(page.getByTestId('start-row')).toHaveCount(dogRuns.length);
			}
		},
		{
			address: `/runs/${run.id}/scribe-sheets`,
			shown: async (page) => {
				await heading(page, `Scribe sheets: ${run.name}`);
				await expect(page.getByTestId('scribe-row')).toHaveCount(dogRuns.length);
			}
		},
		{
			address: `/dog-runs/${dog.id}`,
			shown: async (page) => {
				await expect(page.getByTestId('capture')).toHaveAttribute(
					'data-dog-run-id',
					String(dog.id),
					{ timeout: 30_000 }
				);
				await heading(page, dog.dog.name);
			}
		},
		{
			address: `/runs/${run.id}`,
			shown: async (page) => {
				await heading(page, run.name);
				await expect(page.getByTestId('dog-run').first()).toBeVisible();
			}
		},
		{
			address: `/competitions/${competition.id}`,
			shown: async (page) => {
				await heading(page, competition.name);
				await expect(page.getByTestId('offline-badge')).toHaveAttribute('data-kept', 'true', {
					timeout: 30_000
				});
			}
		},
		{
			address: `/rings/${competition.id}/${ring.id}`,
			shown: async (page) => {
				await heading(page, ring.name);
				await expect(page.getByTestId('ring-current')).toBeVisible({ timeout: 30_000 });
			}
		}
	];

	const figures: string[] = [];
	for (const { address, shown } of addresses) {
		const context = await fresh(browser, handle.url);
		try {
			const page = await context.newPage();
			const ms = await openCold(page, address, () => shown(page));
			await expect(page.getByText('not on this device')).toHaveCount(0);
			// Kept: with the network gone, the same address shows the same thing from the device.
			await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
			await context.setOffline(true);
			await page.reload();
			await shown(page);
			figures.push(`${address}: ${ms} ms`);
		} finally {
			await context.close();
		}
	}
	console.log(
		`cold addresses (small seed, fresh context to the screen's content):\n  ${figures.join('\n  ')}`
	);
});

test('a cold address says what it is doing while it loads, and what the service does not have', async ({
	browser
}) => {
	test.setTimeout(120_000);
	// A slow service, so that the progress line is there to be seen.
	const slow = await new ServiceHandle({ latencyMs: 150 }).start();
	try {
		const { competition, run } = await seeded(slow.url);
		const context = await fresh(browser, slow.url);
		const page = await context.newPage();
		await page.goto(`/runs/${run.id}/results`);
		await expect(page.getByTestId('cold-progress')).toContainText(
			`Loading ${competition.name} onto this device`
		);
		await expect(page.getByRole('heading', { level: 1 })).toContainText(run.name, {
			timeout: 30_000
		});
		await expect(page.getByTestId('cold-progress')).toHaveCount(0);

		// Not on the service: said once every competition was looked through.
		await page.goto('/dog-runs/999999');
		await expect(page.getByTestId('cold-progress')).toBeVisible();
		await expect(page.getByTestId('cold-not-found')).toHaveText(
			'The results service has no dog run at this address.',
			{ timeout: 30_000 }
		);
		await page.getByRole('link', { name: 'Back to competitions' }).click();
		await expect(page.getByTestId('competition').first()).toBeVisible();
		await context.close();
	} finally {
		await slow.dispose();
	}
});

test('offline and not on the phone: said, with the way to the list', async ({
	browser,
	handle
}) => {
	const { run } = await seeded(handle.url);
	const context = await fresh(browser, handle.url);
	const page = await context.newPage();
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await context.setOffline(true);
	await page.goto(`/runs/${run.id}/start-list`);
	await expect(page.getByRole('alert')).toHaveText(
		'This phone is offline, and this run is not on it yet. Open its competition from the list once online.'
	);
	await page.getByRole('link', { name: 'Back to competitions' }).click();
	await expect(page.getByTestId('offline-list')).toBeVisible();
	await context.close();
});

test('the three sheets print to A4 from cold addresses', async ({ browser, handle }) => {
	test.setTimeout(120_000);
	const { competition, run } = await seeded(handle.url);
	mkdirSync(SCREENS, { recursive: true });
	for (const [path, sheet] of [
		['results', 'Results'],
		['start-list', 'Start list'],
		['scribe-sheets', 'Scribe sheets']
	] as const) {
		const context = await fresh(browser, handle.url);
		try {
			const page = await context.newPage();
			await page.goto(`/runs/${run.id}/${path}`);
			await expect(page.getByRole('heading', { level: 1 })).toContainText(run.name, {
				timeout: 30_000
			});
			const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
			writeFileSync(`${SCREENS}/cold-${path}.pdf`, pdf);
			const pages = pdfPages(pdf);
			expect(pages.length, path).toBeGreaterThan(0);
			for (const [n, text] of pages.entries()) {
				expect(squeeze(text), `${path} page ${n + 1}`).toContain(squeeze(`${sheet}: ${run.name}`));
				expect(squeeze(text), `${path} page ${n + 1}`).toContain(squeeze(competition.name));
				expect(text, `${path} page ${n + 1}`).not.toContain('not on this device');
			}
		} finally {
			await context.close();
		}
	}
});
