import { mkdirSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { expect, ServiceHandle, test } from './fixtures';
import { makeAvailableOffline, unrecordedRun } from './support/service-data';
import { phone as onePhone } from './support/phone';

/**
 * Join links on the secretary's Devices screen (issue 20): the links made so far are listed (who
 * they are for, how many phones may still join, until when) and one tap-tap withdraws a link, so
 * that a photographed QR code stops working at once; a phone that opens it is told so. A steward's
 * rings are named with their competition where several competitions have a ring of that name.
 */

/** The phones of this suite: a larger one (390 × 844). */
const phone = (browser: Browser, baseURL: string): Promise<Page> =>
	onePhone(browser, baseURL, { viewport: { width: 390, height: 844 } });

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the secretary lists join links and withdraws one; a phone opening it is refused', async ({
	browser
}) => {
	test.setTimeout(120_000);
	mkdirSync('test-results/screens', { recursive: true });
	const handle = await new ServiceHandle({ auth: 'required' }).start();
	try {
		const own = handle.service.createJoinLink({ role: 'viewer' });
		const joined = await fetch(new URL('/api/v1/devices/join', handle.url), {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: own.token, name: 'test reader' })
		});
		const headers = {
			Authorization: `Bearer ${((await joined.json()) as { credential: string }).credential}`
		};
		const data = await unrecordedRun(handle.url, 1, headers);
		const ring = data.run.competitionRing.name;

		const secretaryLink = handle.service.createJoinLink({ role: 'secretary' });
		const desk = await phone(browser, handle.url);
		await desk.goto(`${handle.url}join#t=${secretaryLink.token}`);
		await desk.getByTestId('device-name').fill('Desk');
		await desk.getByTestId('join').click();
		await expect(desk.getByTestId('joined')).toContainText('Desk');
		await desk.getByRole('link', { name: 'To the competitions' }).click();
		await makeAvailableOffline(desk, data.competition.name);

		// A steward's link for one ring, joined by a phone; then a viewer's link.
		await desk.getByRole('link', { name: 'Settings' }).click();
		await desk.getByTestId('devices-link').click();
		await desk.getByRole('radio', { name: 'Ring steward' }).check();
		await desk
			.getByRole('checkbox', {
				name: new RegExp(`^${escape(ring)} · ${escape(data.competition.name)}$`)
			})
			.check();
		await desk.getByTestId('make-link').click();
		const stewardUrl = (await desk.getByTestId('join-url').textContent())!.trim();
		const steward = await phone(browser, handle.url);
		await steward.goto(stewardUrl);
		await steward.getByTestId('device-name').fill('Ring phone');
		await steward.getByTestId('join').click();
		await expect(steward.getByTestId('joined')).toContainText('Ring phone');

		await desk.getByRole('radio', { name: 'Viewer' }).check();
		await desk.getByTestId('make-link').click();
		// The new link, not the steward's still on screen a moment ago (read too early under load, the
		// steward's link was taken for it).
		await expect(desk.getByTestId('join-link')).toContainText('Viewer');
		const viewerUrl = (await desk.getByTestId('join-url').textContent())!.trim();
		// The screen reads the list again after each change: both links are on it.
		const entries = desk.getByTestId('join-link-entry');
		const viewerEntry = entries.filter({ hasText: 'Viewer' }).filter({ hasText: 'Valid for 10' });
		await expect(viewerEntry).toHaveCount(1);
		await expect(entries.filter({ hasText: 'Ring steward' }).first()).toContainText('Valid for 9');
		// The steward's ring, named with its competition (every competition has a ring so named).
		await expect(desk.getByTestId('device').filter({ hasText: 'Ring phone' })).toContainText(
			`${ring} (${data.competition.name})`
		);
		await desk.screenshot({ path: 'test-results/screens/devices-join-links.png', fullPage: true });

		// Withdrawn with two taps; the list says so.
		await viewerEntry.getByTestId('withdraw').click();
		await viewerEntry.getByTestId('withdraw').click();
		await expect(desk.getByText('The join link was withdrawn')).toBeVisible();
		await expect(entries.filter({ hasText: 'Withdrawn' })).toHaveCount(1);

		// A phone opening it is told it was withdrawn, in words.
		const late = await phone(browser, handle.url);
		await late.goto(viewerUrl);
		await late.getByTestId('device-name').fill('Late phone');
		await late.getByTestId('join').click();
		await expect(late.getByTestId('join-error')).toContainText('withdrawn by the ring secretary');
	} finally {
		await handle.dispose();
	}
});
