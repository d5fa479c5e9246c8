import { expect, test } from './fixtures';
import { makeAvailableOffline, unrecordedRun } from './support/service-data';

test('a full device storage is said at once and the edit is not reported as saved', async ({
	page,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	// The browser's quota, simulated: every IndexedDB write fails while the flag is set.
	await page.addInitScript(() => {
		const flags = window as unknown as { __quotaFull?: boolean };
		for (const method of ['put', 'add'] as const) {
			const original = IDBObjectStore.prototype[method];
			IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: [unknown]) {
				if (flags.__quotaFull && this.name === 'outbox') {
					throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
				}
				return original.apply(this, args);
			} as IDBObjectStore['put'];
		}
	});
	await page.goto('/');
	await makeAvailableOffline(page, competition.name);
	await page.goto(`/dog-runs/${dogRuns[0]!.id}`);
	await page.evaluate(() => ((window as unknown as { __quotaFull: boolean }).__quotaFull = true));

	await page.getByTestId('time-input').fill('38,63');
	await page.getByTestId('save').click();
	await expect(page.getByTestId('save-error')).toHaveText(
		'Not saved: the device storage is full. Free some space (remove an old competition) and save again.'
	);
	await expect(page.getByTestId('flash')).toHaveCount(0);
	// Nothing queued: the bar counts nothing as waiting.
	await expect(page.getByTestId('all-sent')).toHaveCount(1);
	await expect(page.getByTestId('pending-count')).toHaveCount(0);

	// Space freed: the same entry, still in the form, saves.
	await page.evaluate(() => ((window as unknown as { __quotaFull: boolean }).__quotaFull = false));
	await page.getByTestId('save').click();
	await expect(page.getByTestId('flash')).toContainText('Saved on device');
	// The form shows what was stored, in the device's number format (en-US here).
	await expect(page.getByTestId('time-input')).toHaveValue('38.63');
});
