import type { Page } from '@playwright/test';
import { expect, test, type ServiceHandle } from './fixtures';
import {
	getJson,
	makeAvailableOffline,
	putJson,
	unrecordedRun,
	type DogRunJson
} from './support/service-data';
import { tapTime } from './support/keypad';

/**
 * Corrections on the capture screen, the way a steward makes them: the app opened once, then the
 * app's own keypad and in-app navigation only.
 */

async function openFirstDog(page: Page, handle: ServiceHandle) {
	const data = await unrecordedRun(handle.url);
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, data.competition.name);
	await page.goto(`/dog-runs/${data.dogRuns[0]!.id}`);
	await expect(page.getByTestId('capture')).toBeVisible();
	return data;
}

const serviceTime = async (d: DogRunJson) => (await getJson<DogRunJson>(d._links.self.href)).time;

test('Undo after the result was sent puts the previous value back on the service, and names the dog', async ({
	page,
	handle
}) => {
	const { dogRuns } = await openFirstDog(page, handle);
	const [first, second] = dogRuns as [DogRunJson, DogRunJson];
	const who = `No. 1 ${first.dog.name}`;

	// A mistyped time goes out at once (online).
	await tapTime(page, '93,10');
	await page.getByTestId('save-next').click();
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${second.id}$`));
	await expect(page.getByTestId('flash')).toHaveText(new RegExp(`Saved on device: ${who}`));
	await expect.poll(() => serviceTime(first), { timeout: 15_000 }).toBe(93.1);
	await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 15_000 });

	// Undo on the next dog's screen: back to the dog it was for, and its previous value sent.
	await page.getByTestId('undo').click();
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${first.id}$`));
	await expect(page.getByTestId('flash')).toContainText(`Undone: ${who}`);
	await expect(page.getByTestId('time-input')).toHaveValue('');
	await expect.poll(() => serviceTime(first), { timeout: 15_000 }).toBeNull();
	const accepted = handle
		.putLog()
		.filter((p) => p.resourceKind === 'dogRun' && p.resourceId === first.id && p.status === 200)
		.map((p) => JSON.parse(p.requestBody ?? '{}') as { time?: number | null });
	expect(accepted.map((p) => p.time)).toEqual([93.1, null]);
	// The other dog was never touched.
	expect(await serviceTime(second)).toBeNull();
});

test('Undo after someone else changed the dog meanwhile is a conflict, not an overwrite', async ({
	page,
	handle
}) => {
	const { dogRuns } = await openFirstDog(page, handle);
	const first = dogRuns[0]!;

	await tapTime(page, '41,5');
	await page.getByTestId('save').click();
	await expect.poll(() => serviceTime(first), { timeout: 15_000 }).toBe(41.5);
	await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 15_000 });

	// The scribe's phone corrects the time before this steward taps Undo.
	expect(await putJson(first._links.self.href, { time: 45.02 })).toBe(200);
	await page.getByTestId('undo').click();
	await expect(page.getByTestId('conflict-count')).toHaveText('1 conflict', { timeout: 15_000 });
	expect(await serviceTime(first)).toBe(45.02);
	// The capture screen says so in its message slot, which leads to the Sync screen.
	await expect(page.getByTestId('sync-problem')).toContainText('Someone else changed this dog run');

	// The Sync screen shows what each side holds; the steward decides.
	await page.getByTestId('sync-bar').click();
	const conflict = page.locator('[data-testid="sync-entry"][data-status="conflict"]');
	await expect(conflict).toHaveCount(1);
	await expect(conflict).toContainText(first.dog.name);
	await expect(conflict.getByTestId('conflict-field')).toContainText('45.02');
});

test('tap counts with the app keypad: a clean run, a run with one fault, an absent dog', async ({
	page,
	handle
}) => {
	const { dogRuns } = await openFirstDog(page, handle);
	const [a, b, c] = dogRuns as [DogRunJson, DogRunJson, DogRunJson];

	// Clean run: the time (5 taps) and Save & next.
	let taps = await tapTime(page, '38,63');
	await page.getByTestId('save-next').click();
	taps += 1;
	expect(taps).toBe(6);
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${b.id}$`));

	// One fault: the time, one tap on Faults +, Save & next.
	taps = await tapTime(page, '41,07');
	await page.getByRole('button', { name: 'One more Faults' }).click();
	await page.getByTestId('save-next').click();
	taps += 2;
	expect(taps).toBe(7);
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${c.id}$`));

	// Absent: Absent, Save & next.
	await page.getByTestId('absent').check();
	await page.getByTestId('save-next').click();
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${dogRuns[3]!.id}$`));

	await expect(page.getByTestId('all-sent')).toBeVisible({ timeout: 15_000 });
	const now = await Promise.all([a, b, c].map((d) => getJson<DogRunJson>(d._links.self.href)));
	expect(now.map((d) => [d.time, d.faults, d.refusals, d.absence])).toEqual([
		[38.63, 0, 0, false],
		[41.07, 1, 0, false],
		[null, 0, 0, true]
	]);
});

test('a keyboard: digits, F and R (Shift: one less), Enter saves and moves on, Esc, U', async ({
	page,
	handle
}) => {
	const { dogRuns } = await openFirstDog(page, handle);
	const [a, b] = dogRuns as [DogRunJson, DogRunJson];

	await page.keyboard.type('39.5');
	await page.keyboard.press('f');
	await page.keyboard.press('f');
	await page.keyboard.press('Shift+F');
	await page.keyboard.press('r');
	await expect(page.getByTestId('faults-value')).toHaveText('1');
	await expect(page.getByTestId('refusals-value')).toHaveText('1');
	await page.keyboard.press('Enter');
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${b.id}$`));
	await expect.poll(() => serviceTime(a), { timeout: 15_000 }).toBe(39.5);
	// Esc clears a mistyped time; N marks absent; U undoes the last save.
	await page.keyboard.type('77');
	await page.keyboard.press('Escape');
	await expect(page.getByTestId('time-input')).toHaveValue('');
	await page.keyboard.press('u');
	await expect(page).toHaveURL(new RegExp(`/dog-runs/${a.id}$`));
	await expect(page.getByTestId('time-input')).toHaveValue('');
	await expect.poll(() => serviceTime(a), { timeout: 15_000 }).toBeNull();
});
