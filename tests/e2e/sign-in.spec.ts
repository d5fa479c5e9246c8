import { expect, test } from './fixtures';
import { errorAnswer, startFaultProxy } from './support/fault-proxy';
import {
	getJson,
	makeAvailableOffline,
	unrecordedRun,
	type DogRunJson
} from './support/service-data';

/**
 * A real results service that takes writes only from signed-in devices (here: a gateway in front
 * of the embedded service that answers 401 to a PUT without the event's token). The steward's
 * result is parked with "sign in", never lost, and goes out once they sign in in Settings.
 */
const TOKEN = 'ringside-event-token';

test('a result refused for want of credentials waits, and goes out after signing in', async ({
	page,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	const dog = dogRuns[0]!;
	const authorizations: (string | undefined)[] = [];
	const gateway = await startFaultProxy(handle.url, (req) => {
		if (req.method !== 'PUT' || !req.url?.startsWith('/api/')) return null;
		authorizations.push(req.headers.authorization);
		return req.headers.authorization === `Bearer ${TOKEN}`
			? null
			: errorAnswer(401, 'Unauthorized', 'Full authentication is required', req.url);
	});
	const context = await page.context().browser()!.newContext({ baseURL: gateway.url });
	try {
		const phone = await context.newPage();
		await phone.goto('/');
		await phone.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
		await makeAvailableOffline(phone, competition.name);
		await phone.goto(`/dog-runs/${dog.id}`);
		await expect(phone.getByTestId('capture')).toBeVisible();

		for (const key of ['4', '1', 'sep', '5', '2']) {
			await phone.getByTestId('keypad').locator(`[data-key="${key}"]`).click();
		}
		await phone.getByTestId('save').click();
		await expect(phone.getByTestId('flash')).toContainText('Saved on device');
		// Refused, parked, said in words that lead somewhere.
		await expect(phone.getByTestId('failed-count')).toBeVisible({ timeout: 15_000 });
		await phone.getByTestId('sync-bar').click();
		await expect(phone.getByTestId('sync-entry')).toContainText('sign in');
		expect(authorizations.length).toBeGreaterThan(0);
		expect(authorizations.every((a) => a === undefined)).toBe(true);

		// Settings, from the tab bar: sign in with the event's token.
		await phone.locator('nav.tabs').getByRole('link', { name: 'Settings' }).click();
		await phone.getByLabel('Sign in with').selectOption('bearer');
		await phone.getByLabel('Token').fill(TOKEN);
		await phone.getByRole('button', { name: 'Sign in' }).click();
		await expect(phone.getByTestId('sign-in-message')).toContainText('1 result');

		await expect
			.poll(async () => (await getJson<DogRunJson>(dog._links.self.href)).time, {
				timeout: 15_000
			})
			.toBe(41.52);
		expect(authorizations.at(-1)).toBe(`Bearer ${TOKEN}`);
		await phone.locator('nav.tabs').getByRole('link', { name: 'Sync' }).click();
		await expect(phone.getByTestId('sync-empty')).toBeVisible({ timeout: 10_000 });
	} finally {
		await context.close();
		await gateway.close();
	}
});
