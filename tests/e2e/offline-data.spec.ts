import { expect, startService, test } from './fixtures';
import { startPrefixProxy } from './support/prefix-proxy';
import {
	inProgress,
	makeAvailableOffline,
	walk,
	type DogRunJson,
	type RunJson
} from './support/service-data';

const seconds = (value: number) => `${value.toFixed(2)} s`;

test('a competition made available offline is browsed with no network and no service', async ({
	page,
	context,
	service,
	handle
}) => {
	// What the service holds, read the way an independent client would (links only).
	const competition = await inProgress(service.url);
	const runs = await walk<RunJson>(competition._links.competitionRuns.href, 'competitionRuns');
	// The run with the most dog runs: more than one page of the service's list.
	let run = runs[0]!;
	let dogRuns: DogRunJson[] = [];
	for (const candidate of runs) {
		const list = await walk<DogRunJson>(candidate._links.dogRuns.href, 'dogRuns');
		if (list.length > dogRuns.length) [run, dogRuns] = [candidate, list];
	}
	expect(dogRuns.length).toBeGreaterThan(20);

	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, competition.name);

	// No network and no service at all.
	await context.setOffline(true);
	await handle.stop();
	await page.reload();
	await expect(page.getByTestId('connectivity')).toHaveText(/Offline/);
	await expect(page.getByTestId('offline-list')).toBeVisible();

	await page.getByRole('link', { name: competition.name }).click();
	await expect(page.getByRole('heading', { name: competition.name })).toBeVisible();
	// One day at a time (it opens on today): every run is on the screen of its day.
	let shown = 0;
	for (const day of await page.getByTestId('day').all()) {
		await day.click();
		await expect(day).toHaveAttribute('aria-pressed', 'true');
		shown += await page.getByTestId('run').count();
	}
	expect(shown).toBe(runs.length);

	await page.locator(`[data-testid="day"][data-date="${run.date}"]`).click();
	await page.getByTestId('run').filter({ hasText: run.name }).first().click();
	await expect(page.getByRole('heading', { name: run.name })).toBeVisible();
	await expect(page.getByTestId('standard-time')).toHaveText(seconds(run.standardTime));
	await expect(page.getByTestId('maximal-time')).toHaveText(seconds(run.maximalTime));
	await expect(page.getByTestId('track-length')).toHaveText(`${run.trackLength} m`);
	await expect(page.getByTestId('progress')).toHaveText(`${run.progress} %`);
	await expect(page.getByText(`${dogRuns.length} dog runs`)).toBeVisible();
	const first = page.getByTestId('dog-run').first();
	await expect(first).toContainText(dogRuns[0]!.dog.name);
	await expect(first).toContainText(
		`${dogRuns[0]!.competitor.firstname} ${dogRuns[0]!.competitor.lastname}`
	);
	const timed = dogRuns.find((d) => d.time !== null);
	if (timed) {
		await expect(page.locator(`[data-dog-run-id="${timed.id}"]`)).toContainText(
			timed.time!.toFixed(2)
		);
	}

	// The ring board works from the copy on the device.
	await page.goBack();
	await page.getByTestId('ring-board-link').first().click();
	await expect(page.getByText('Computed from the copy on this device.')).toBeVisible();
	await expect(page.getByTestId('ring-current')).toBeVisible();
});

test('"Available offline" only once the app itself is kept: a first visit that loses the signal then still opens the competition and its runs', async ({
	browser,
	handle,
	service
}) => {
	const competition = await inProgress(service.url);
	const context = await browser.newContext({
		baseURL: handle.url,
		viewport: { width: 360, height: 640 },
		isMobile: true,
		hasTouch: true
	});
	try {
		// A slow first visit: the worker's script comes only after the competition's data is stored.
		let release = () => {};
		const held = new Promise<void>((resolve) => (release = resolve));
		await context.route('**/service-worker.js', async (route) => {
			await held;
			await route.continue();
		});
		const page = await context.newPage();
		await page.goto('/');
		const card = page.getByTestId('competition').filter({ hasText: competition.name });
		await card.getByRole('button', { name: 'Make available offline' }).click();
		const badge = card.getByTestId('offline-badge');
		await expect(badge).toBeVisible({ timeout: 30_000 });
		await expect(card.getByTestId('download-progress')).toHaveCount(0);
		// The data is on the phone, the app not yet: no promise it opens offline.
		await expect(badge).toHaveAttribute('data-kept', 'false');
		await expect(badge).not.toContainText('Available offline');

		release();
		await expect(badge).toContainText('✓ Available offline', { timeout: 30_000 });
		await expect(badge).toHaveAttribute('data-kept', 'true');

		// Promised, so kept: with no signal, screens this visit never opened open.
		await context.setOffline(true);
		await page.getByRole('link', { name: competition.name }).click();
		await expect(page.getByRole('heading', { name: competition.name })).toBeVisible();
		await page.getByTestId('run').first().click();
		await expect(page.getByTestId('course')).toBeVisible();
		await expect(page.getByTestId('dog-run').first()).toBeVisible();
	} finally {
		await context.close();
	}
});

test('the app follows links when the service lives under a path prefix', async ({
	page,
	service
}) => {
	const proxy = await startPrefixProxy(service.url, '/results');
	try {
		await page.goto(`${proxy.url}/settings`);
		await page.getByTestId('service-address').fill(`${proxy.url}/results`);
		await page.getByRole('button', { name: 'Save' }).click();
		await expect(page.getByTestId('address-message')).toHaveText('Saved.');
		await page.getByRole('button', { name: 'Test connection' }).click();
		await expect(page.getByTestId('address-message')).toContainText(
			`${proxy.url}/results/api/v1/competitions`
		);

		const competition = await inProgress(service.url);
		await page.goto(`${proxy.url}/`);
		await makeAvailableOffline(page, competition.name);
		await page.getByRole('link', { name: competition.name }).click();
		await page.getByTestId('run').first().click();
		await expect(page.getByTestId('dog-run').first()).toBeVisible();
	} finally {
		await proxy.close();
	}
});

test('the app works with a service on another origin that allows it by CORS', async ({
	page,
	service
}) => {
	const seen: string[] = [];
	const other = await startService({
		appDir: undefined,
		corsOrigins: [new URL(service.url).origin],
		quiet: false,
		log: (line) => seen.push(line)
	});
	try {
		await page.goto('/settings');
		await page.getByTestId('service-address').fill(other.service.url);
		await page.getByRole('button', { name: 'Save' }).click();
		await expect(page.getByTestId('address-message')).toHaveText('Saved.');

		const competition = await inProgress(other.service.url);
		await page.goto('/');
		await makeAvailableOffline(page, competition.name);
		const gets = seen.filter((line) => line.includes('"GET"') && line.includes('/dogRuns'));
		expect(gets.length).toBeGreaterThan(0);
	} finally {
		await other.dispose();
	}
});

test('Czech from Settings: words, dates and decimal commas follow the language', async ({
	page,
	service
}) => {
	const competition = await inProgress(service.url);
	await page.goto('/settings');
	await page.getByLabel('Language').selectOption('cs');
	await expect(page.getByRole('heading', { name: 'Nastavení' })).toBeVisible();
	await page.getByRole('link', { name: 'Závody' }).click();
	await expect(page.getByRole('heading', { name: 'Závody' })).toBeVisible();
	const card = page.getByTestId('competition').filter({ hasText: competition.name });
	await card.getByRole('button', { name: 'Uložit pro offline' }).click();
	// Once the app itself is kept too (its worker in charge of the page).
	await expect(card.getByTestId('offline-badge')).toContainText('Dostupné offline', {
		timeout: 30_000
	});
	await card.getByRole('link').first().click();
	await page.getByTestId('run').first().click();
	await expect(page.getByTestId('standard-time')).toHaveText(/^\d+,\d{2} s$/);
	// the choice is kept on the device
	await page.reload();
	await expect(page.getByRole('heading', { name: 'Parkur' })).toBeVisible();
	// the longer Czech words still fit a phone's width on the result screen
	await page.getByTestId('dog-run').first().click();
	await expect(page.getByRole('button', { name: 'Uložit a další' })).toBeVisible();
	const overflow = await page.evaluate(
		() => document.documentElement.scrollWidth - document.documentElement.clientWidth
	);
	expect(overflow).toBeLessThanOrEqual(0);
});

test('an open run screen reads its dog runs once per visit, not over and over', async ({
	page,
	service
}) => {
	const competition = await inProgress(service.url);
	await page.goto('/');
	await makeAvailableOffline(page, competition.name);
	const reads: string[] = [];
	page.on('request', (request) => {
		if (/\/competitionRuns\/\d+\/dogRuns/.test(request.url())) reads.push(request.url());
	});
	await page.getByRole('link', { name: competition.name }).click();
	await page.getByTestId('run').first().click();
	await expect(page.getByTestId('dog-run').first()).toBeVisible();
	await page.waitForTimeout(3_000);
	// One walk of the list on the visit, and one more when the service's push stream opens (what
	// changed between the two): its first page and, for a long run, the next ones.
	const pages = new Set(reads);
	expect(reads.length).toBeLessThanOrEqual(2 * pages.size);
	expect(pages.size).toBeLessThanOrEqual(3);
	// Then nothing while the stream serves: no loop, no polling.
	const settled = reads.length;
	await page.waitForTimeout(4_000);
	expect(reads.length).toBe(settled);
});
