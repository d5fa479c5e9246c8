import { mkdirSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { expect, ServiceHandle, test } from './fixtures';
import {
	getJson,
	makeAvailableOffline,
	unrecordedRun,
	type DogRunJson,
	type ReadHeaders
} from './support/service-data';
import { phone as onePhone } from './support/phone';

/**
 * The event network with devices (issue 11): the service takes requests only from joined devices
 * (`auth: 'required'`, as when it serves the event Wi-Fi). The secretary's phone joins by the
 * link the service prints; from its Devices screen it makes a ring steward's link, which a second
 * phone opens (as scanning the QR code does); that phone records results. Removed, its next
 * result waits with the service's words and goes out after it joins again. A viewer cannot write.
 * Each phone opens the app once (the join link) and then moves by taps.
 */

/** The phones of this suite: a larger one (390 × 844). */
const phone = (browser: Browser, baseURL: string): Promise<Page> =>
	onePhone(browser, baseURL, { viewport: { width: 390, height: 844 } });

/** Opens a join link (scanned QR code), names the phone and joins. */
async function join(page: Page, url: string, name: string): Promise<void> {
	await page.goto(url);
	await page.getByTestId('device-name').fill(name);
	await page.screenshot({ path: 'test-results/screens/devices-join.png' });
	await page.getByTestId('join').click();
	await expect(page.getByTestId('joined')).toContainText(name);
	// The token is spent: it is no longer in the address.
	expect(new URL(page.url()).hash).toBe('');
	await page.getByRole('link', { name: 'To the competitions' }).click();
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
}

/** On the Devices screen (reached from Settings): a join link for a role, read off the screen. */
async function makeLink(page: Page, role: 'Ring steward' | 'Viewer', ring?: RegExp) {
	await page.getByRole('link', { name: 'Settings' }).click();
	await page.getByTestId('devices-link').click();
	await page.getByRole('radio', { name: role }).check();
	if (ring) await page.getByRole('checkbox', { name: ring }).check();
	await page.getByTestId('make-link').click();
	await expect(page.getByTestId('qr')).toBeVisible();
	await page.screenshot({ path: 'test-results/screens/devices-link.png', fullPage: true });
	return (await page.getByTestId('join-url').textContent())!.trim();
}

async function recordTime(page: Page, keys: string): Promise<void> {
	const keypad = page.getByTestId('keypad');
	for (const ch of keys) await keypad.locator(`[data-key="${ch === ',' ? 'sep' : ch}"]`).click();
}

test('phones join by link; a removed phone’s result waits and goes out after it joins again; a viewer cannot write', async ({
	browser
}) => {
	test.setTimeout(180_000);
	mkdirSync('test-results/screens', { recursive: true });
	const handle = await new ServiceHandle({ auth: 'required' }).start();
	try {
		// The test reads the service as a device of its own.
		const own = handle.service.createJoinLink({ role: 'viewer' });
		const joined = await fetch(new URL('/api/v1/devices/join', handle.url), {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: own.token, name: 'test reader' })
		});
		expect(joined.status).toBe(201);
		const headers: ReadHeaders = {
			Authorization: `Bearer ${((await joined.json()) as { credential: string }).credential}`
		};
		const data = await unrecordedRun(handle.url, 4, headers);
		const [first, second, third] = data.dogRuns as [DogRunJson, DogRunJson, DogRunJson];
		const onService = async (d: DogRunJson) =>
			(await getJson<DogRunJson>(d._links.self.href, headers)).time;
		const ringName = new RegExp(
			`^${data.run.competitionRing.name} · ${data.competition.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`
		);

		// Without joining, the service answers nothing but where to join.
		expect((await fetch(new URL('/api/v1/competitions', handle.url))).status).toBe(401);

		// The secretary's phone joins with the link printed at the start.
		const secretaryLink = handle.service.createJoinLink({ role: 'secretary' });
		const desk = await phone(browser, handle.url);
		await join(desk, `${handle.url}join#t=${secretaryLink.token}`, 'Desk');
		await makeAvailableOffline(desk, data.competition.name);
		const stewardUrl = await makeLink(desk, 'Ring steward', ringName);

		// The ring steward's phone scans it, downloads, and records the first dog.
		const ring = await phone(browser, handle.url);
		await join(ring, stewardUrl, 'Ring phone');
		await makeAvailableOffline(ring, data.competition.name);
		await ring.locator(`a[href="/competitions/${data.competition.id}"]`).first().click();
		await ring.locator(`a[href="/runs/${data.run.id}"]`).first().click();
		await ring.locator(`[data-testid="dog-run"][data-dog-run-id="${first.id}"]`).click();
		await recordTime(ring, '41,27');
		await ring.getByTestId('save-next').click();
		await expect(ring.getByTestId('capture')).toHaveAttribute('data-dog-run-id', String(second.id));
		await expect.poll(() => onService(first), { timeout: 15_000 }).toBe(41.27);
		const row = handle.putLog().find((p) => p.resourceId === first.id && p.status === 200);
		expect(row).toMatchObject({ role: 'steward' });
		expect(row?.device).not.toBeNull();

		// The secretary removes it (two taps).
		await desk.getByRole('link', { name: 'Settings' }).click();
		await desk.getByTestId('devices-link').click();
		const ringRow = desk.getByTestId('device').filter({ hasText: 'Ring phone' });
		await ringRow.getByTestId('revoke').click();
		await ringRow.getByTestId('revoke').click();
		await expect(desk.getByTestId('device').filter({ hasText: 'Removed' })).toHaveCount(1);

		// Its next result waits, with the service's words, never lost.
		await recordTime(ring, '38,5');
		await ring.getByTestId('save').click();
		await expect(ring.getByTestId('sync-problem')).toContainText(
			'This phone was removed by the ring secretary',
			{
				timeout: 15_000
			}
		);
		expect(await onService(second)).toBeNull();

		// A new link from the secretary; the phone joins again and the waiting result goes out.
		const againUrl = await makeLink(desk, 'Ring steward', ringName);
		await join(ring, againUrl, 'Ring phone 2');
		await expect.poll(() => onService(second), { timeout: 20_000 }).toBe(38.5);

		// A viewer reads, but what it records is refused and kept on the phone.
		const viewerUrl = await makeLink(desk, 'Viewer');
		const viewer = await phone(browser, handle.url);
		await join(viewer, viewerUrl, 'Spectator');
		await makeAvailableOffline(viewer, data.competition.name);
		await viewer.locator(`a[href="/competitions/${data.competition.id}"]`).first().click();
		await viewer.locator(`a[href="/runs/${data.run.id}"]`).first().click();
		await viewer.locator(`[data-testid="dog-run"][data-dog-run-id="${third.id}"]`).click();
		await recordTime(viewer, '40');
		await viewer.getByTestId('save').click();
		await expect(viewer.getByTestId('sync-problem')).toContainText('This phone is a viewer', {
			timeout: 15_000
		});
		expect(await onService(third)).toBeNull();
	} finally {
		await handle.dispose();
	}
});
