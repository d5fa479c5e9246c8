import type { BrowserContext, Page } from '@playwright/test';
import { expect, test, type ServiceHandle } from './fixtures';
import { errorAnswer, startFaultProxy } from './support/fault-proxy';
import {
	getJson,
	makeAvailableOffline,
	putJson,
	record,
	unrecordedRun,
	type DogRunJson
} from './support/service-data';

async function ready(page: Page, name: string): Promise<void> {
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, name);
}

/** No network for the phone, and no service either. */
async function goDark(context: BrowserContext, handle: ServiceHandle): Promise<void> {
	await context.setOffline(true);
	await handle.stop();
}

async function dogRun(d: DogRunJson): Promise<DogRunJson> {
	return getJson<DogRunJson>(d._links.self.href);
}

function acceptedPuts(handle: ServiceHandle, id: number) {
	return handle
		.putLog()
		.filter((p) => p.resourceKind === 'dogRun' && p.resourceId === id && p.status === 200);
}

test('results recorded offline reach the service exactly once when the signal returns', async ({
	page,
	context,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	await ready(page, competition.name);
	const five = dogRuns.slice(0, 5);
	await goDark(context, handle);

	await record(page, five[0]!.id, { time: '38,63' });
	await record(page, five[1]!.id, { time: '41.07', faults: 1 });
	await record(page, five[2]!.id, { time: '36,5', refusals: 1 });
	await record(page, five[3]!.id, { time: '44,01', faults: 2, refusals: 1 });
	await record(page, five[4]!.id, { time: '39,99' });
	// one of them edited twice more
	await record(page, five[1]!.id, { faults: 2 });
	await record(page, five[1]!.id, { time: '40,88' });

	await page.reload();
	await expect(page.getByTestId('pending-count')).toHaveText('5 not sent');
	// the form shows the last saved values, in the device's number format (en-US here)
	await expect(page.getByTestId('time-input')).toHaveValue('40.88');

	await handle.start();
	await context.setOffline(false);
	await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 20_000 });

	const expected = [
		{ time: 38.63, faults: 0, refusals: 0 },
		{ time: 40.88, faults: 2, refusals: 0 },
		{ time: 36.5, faults: 0, refusals: 1 },
		{ time: 44.01, faults: 2, refusals: 1 },
		{ time: 39.99, faults: 0, refusals: 0 }
	];
	for (const [i, d] of five.entries()) {
		const now = await dogRun(d);
		expect({ time: now.time, faults: now.faults, refusals: now.refusals }).toEqual(expected[i]);
		// exactly one accepted PUT per dog run, carrying its final values
		const puts = acceptedPuts(handle, d.id);
		expect(puts).toHaveLength(1);
		expect(JSON.parse(puts[0]!.requestBody ?? '{}')).toMatchObject({ time: expected[i]!.time });
	}
	const others = dogRuns.slice(5);
	for (const d of others) expect(acceptedPuts(handle, d.id)).toHaveLength(0);
});

test('a dog run changed by someone else meanwhile is a conflict; other fields merge', async ({
	page,
	context,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	const [contested, merged] = dogRuns;
	await ready(page, competition.name);
	await goDark(context, handle);

	await record(page, contested!.id, { time: '38,63' });
	await record(page, merged!.id, { time: '42,10' });

	// Meanwhile, another writer (the ring secretary's laptop) talks to the service.
	await handle.start();
	expect(await putJson(contested!._links.self.href, { time: 39.01 })).toBe(200);
	expect(await putJson(merged!._links.self.href, { faults: 2 })).toBe(200);

	await context.setOffline(false);
	await expect(page.getByTestId('conflict-count')).toHaveText('1 conflict', { timeout: 20_000 });
	await expect.poll(async () => (await dogRun(merged!)).time).toBe(42.1);
	expect((await dogRun(merged!)).faults).toBe(2);
	// the other writer's value stays until the steward decides
	expect((await dogRun(contested!)).time).toBe(39.01);

	await page.goto('/sync');
	const entry = page.getByTestId('sync-entry').filter({ hasText: contested!.dog.name });
	const row = entry.getByTestId('conflict-field');
	await expect(row).toHaveAttribute('data-field', 'time');
	await expect(row).toContainText('38.63');
	await expect(row).toContainText('39.01');
	await entry.getByRole('button', { name: 'Keep mine' }).click();
	await expect(page.getByTestId('sync-empty')).toBeVisible({ timeout: 20_000 });
	expect((await dogRun(contested!)).time).toBe(38.63);
	await expect(page.getByText('resolved').first()).toBeVisible();
});

test('an edit the service answers 503 to arrives later, once', async ({ browser, handle }) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	let refused = 0;
	const proxy = await startFaultProxy(handle.url, (req) => {
		if (req.method === 'PUT' && refused < 2) {
			refused += 1;
			return errorAnswer(503, 'Service Unavailable', 'Busy', req.url ?? '', { 'Retry-After': '1' });
		}
		return null;
	});
	const context = await browser.newContext({ baseURL: proxy.url });
	try {
		const page = await context.newPage();
		await ready(page, competition.name);
		await record(page, dogRuns[0]!.id, { time: '37,25', faults: 1 });
		await expect(page.getByTestId('pending-count')).toHaveText('1 not sent');
		await page.getByTestId('sync-bar').click();
		// The steward taps "Sync now" until it goes through.
		await expect(async () => {
			await page.getByRole('button', { name: 'Sync now' }).click();
			await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 2_000 });
		}).toPass({ timeout: 20_000 });
		expect(refused).toBe(2);
		expect(acceptedPuts(handle, dogRuns[0]!.id)).toHaveLength(1);
		expect(await dogRun(dogRuns[0]!)).toMatchObject({ time: 37.25, faults: 1 });
	} finally {
		await context.close();
		await proxy.close();
	}
});

test('an edit the service refuses is kept with its message, corrected and sent', async ({
	browser,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	let refusedOnce = false;
	const proxy = await startFaultProxy(handle.url, (req) => {
		if (req.method === 'PUT' && !refusedOnce) {
			refusedOnce = true;
			return errorAnswer(
				400,
				'Bad Request',
				'time: the timer shows hundredths only',
				req.url ?? ''
			);
		}
		return null;
	});
	const context = await browser.newContext({ baseURL: proxy.url });
	try {
		const page = await context.newPage();
		await ready(page, competition.name);
		const target = dogRuns[0]!;
		await record(page, target.id, { time: '52,40' });
		await expect(page.getByTestId('failed-count')).toHaveText('1 refused', { timeout: 15_000 });

		await page.goto('/sync');
		const entry = page.getByTestId('sync-entry').filter({ hasText: target.dog.name });
		await expect(entry).toHaveAttribute('data-status', 'failed');
		await expect(entry.getByTestId('entry-error')).toContainText(
			'time: the timer shows hundredths only'
		);
		expect((await dogRun(target)).time).toBeNull();

		await entry.getByRole('link', { name: 'Correct' }).click();
		await expect(page.getByText('The service refused the last sent values')).toBeVisible();
		await record(page, target.id, { time: '52,41' });
		await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 20_000 });
		expect((await dogRun(target)).time).toBe(52.41);
	} finally {
		await context.close();
		await proxy.close();
	}
});

test('the Background Sync event alone delivers, with no page open', async ({
	page,
	context,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	await ready(page, competition.name);
	const origin = new URL(handle.url).origin;
	await goDark(context, handle);
	await record(page, dogRuns[0]!.id, { time: '45,55' });
	await record(page, dogRuns[1]!.id, { time: '46,66', refusals: 2 });

	// Nothing of the app runs in a page any more: only the worker can deliver.
	const cdpPage = await context.newPage();
	await page.close();
	const cdp = await context.newCDPSession(cdpPage);
	const registrations = new Promise<string>((resolve) => {
		cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => {
			const found = event.registrations.find((r) => r.scopeURL.startsWith(origin) && !r.isDeleted);
			if (found) resolve(found.registrationId);
		});
	});
	await cdp.send('ServiceWorker.enable');
	const registrationId = await registrations;

	await handle.start();
	await context.setOffline(false);
	await cdp.send('ServiceWorker.dispatchSyncEvent', {
		origin,
		registrationId,
		tag: 'ringside-replay',
		lastChance: false
	});
	await expect.poll(async () => (await dogRun(dogRuns[1]!)).refusals, { timeout: 15_000 }).toBe(2);
	expect((await dogRun(dogRuns[0]!)).time).toBe(45.55);
	expect(acceptedPuts(handle, dogRuns[0]!.id)).toHaveLength(1);
});

test('the page alone delivers when there is no service worker', async ({ browser, handle }) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	const context = await browser.newContext({ baseURL: handle.url, serviceWorkers: 'block' });
	try {
		const page = await context.newPage();
		await page.goto('/');
		await makeAvailableOffline(page, competition.name, { appKept: false });
		// No worker, so no claim the app opens offline: the data alone is said to be stored, and why.
		const badge = page.getByTestId('offline-badge');
		await expect(badge).toContainText('this browser does not keep the app itself');
		await expect(badge).toHaveAttribute('data-kept', 'false');
		await expect(badge).not.toContainText('Available offline');
		await record(page, dogRuns[0]!.id, { time: '33,33' });
		await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 15_000 });
		expect((await dogRun(dogRuns[0]!)).time).toBe(33.33);
		expect(
			await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)
		).toBe(0);
	} finally {
		await context.close();
	}
});

test('a clean run is the time and one tap, and the next dog is ready for its time', async ({
	page,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	await ready(page, competition.name);
	await page.goto(`/dog-runs/${dogRuns[0]!.id}`);
	await expect(page.getByTestId('time-input')).toBeFocused();
	await page.keyboard.type('38,63');
	await page.getByTestId('save-next').click(); // the one tap
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${dogRuns[1]!.id}$`));
	await expect(page.getByTestId('flash')).toContainText('Saved on device');
	await expect(page.getByTestId('time-input')).toBeFocused();
	await expect(page.getByTestId('time-input')).toHaveValue('');
	await expect.poll(async () => (await dogRun(dogRuns[0]!)).time, { timeout: 15_000 }).toBe(38.63);
});
