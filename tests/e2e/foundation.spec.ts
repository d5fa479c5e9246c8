import { expect, test } from './fixtures';

test('the home screen lists the competitions the service holds', async ({
	page,
	request,
	service
}) => {
	const answer = await request.get(new URL(`/api/v1/competitions?size=100`, service.url).href);
	const body = (await answer.json()) as {
		_embedded: { competitions: { name: string; state: string }[] };
	};
	const expected = body._embedded.competitions;
	expect(expected.length).toBeGreaterThan(0);

	await page.goto('/');
	const cards = page.getByTestId('competition');
	await expect(cards).toHaveCount(expected.length);
	for (const competition of expected) {
		await expect(page.getByText(competition.name, { exact: true })).toBeVisible();
	}
	await expect(page.getByTestId('connectivity')).toHaveText('Connected');
});

test('the service worker installs and the app starts again with no network', async ({
	page,
	context
}) => {
	await page.goto('/');
	await expect(page.getByTestId('competition').first()).toBeVisible();
	await page.waitForFunction(async () => {
		const registration = await navigator.serviceWorker.ready;
		return registration.active?.state === 'activated';
	});

	await context.setOffline(true);
	await page.reload();
	await expect(page.getByRole('heading', { name: 'Competitions' })).toBeVisible();
	await expect(page.getByTestId('connectivity')).toHaveText(/Offline/);
	// Offline with nothing downloaded yet, the list says why it is empty instead of hanging.
	await expect(page.getByTestId('offline-list')).toBeVisible();
	await expect(page.getByText('No competition is available offline yet.')).toBeVisible();
});

test('the web manifest makes the app installable', async ({ page, request, service }) => {
	await page.goto('/');
	const href = await page.locator('link[rel="manifest"]').getAttribute('href');
	expect(href).toBe('/manifest.webmanifest');
	const manifest = (await (await request.get(new URL(href!, service.url).href)).json()) as {
		name: string;
		short_name: string;
		display: string;
		start_url: string;
		theme_color: string;
		icons: { sizes: string; purpose: string; src: string }[];
	};
	expect(manifest.display).toBe('standalone');
	expect(manifest.start_url).toBe('/');
	expect(manifest.short_name).toBe('Ringside');
	expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose}`)).toEqual(
		expect.arrayContaining(['192x192 any', '512x512 any', '512x512 maskable'])
	);
	for (const icon of manifest.icons) {
		const image = await request.get(new URL(icon.src, service.url).href);
		expect(image.headers()['content-type']).toBe('image/png');
	}
});

test('on an iPhone the app explains Add to Home Screen once, and Sync says when results go out', async ({
	browser,
	baseURL
}) => {
	const context = await browser.newContext({
		baseURL,
		userAgent:
			'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
		hasTouch: true,
		isMobile: true,
		viewport: { width: 390, height: 844 }
	});
	// Safari has no Background Sync.
	await context.addInitScript(() => {
		delete (window as { SyncManager?: unknown }).SyncManager;
	});
	try {
		const page = await context.newPage();
		await page.goto('/');
		const hint = page.getByTestId('install-hint');
		await expect(hint).toContainText('Add to Home Screen');
		await expect(hint).toContainText('7 days');
		await hint.getByRole('button', { name: 'Got it' }).click();
		await expect(hint).toHaveCount(0);
		await page.getByRole('link', { name: 'Sync' }).click();
		await expect(page.getByTestId('sync-while-open')).toContainText(
			'results not yet sent go out when Ringside is next open'
		);
		await page.reload();
		await page.getByRole('link', { name: 'Competitions' }).click();
		await expect(page.getByTestId('competition').first()).toBeVisible();
		await expect(page.getByTestId('install-hint')).toHaveCount(0);
	} finally {
		await context.close();
	}
});

test('Chrome on Android: no install hint of ours, and no "only while open" note', async ({
	page
}) => {
	await page.goto('/');
	await expect(page.getByTestId('competition').first()).toBeVisible();
	await expect(page.getByTestId('install-hint')).toHaveCount(0);
	await page.getByRole('link', { name: 'Sync' }).click();
	await expect(page.getByRole('heading', { name: 'Sync' })).toBeVisible();
	await expect(page.getByTestId('sync-while-open')).toHaveCount(0);
});
