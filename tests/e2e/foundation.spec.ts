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
