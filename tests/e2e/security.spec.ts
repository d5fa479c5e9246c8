import { expect, test } from './fixtures';
import { inProgress, makeAvailableOffline, record, unrecordedRun } from './support/service-data';

const SCRIPT = `<img src=x onerror="window.__pwned=(window.__pwned||0)+1"><script>window.__pwned=1</script>`;

test('markup and script in the service’s strings are shown as text and never run', async ({
	page,
	service
}) => {
	const competition = await inProgress(service.url);
	const db = service.db!;
	// Hostile strings, as a compromised or careless service could send them.
	db.prepare('UPDATE competition SET details = ?, fees = ? WHERE id = ?').run(
		`# Welcome\n\n${SCRIPT}\n\n[click](javascript:window.__pwned=1)`,
		`<iframe src="javascript:window.__pwned=1"></iframe> 20 EUR`,
		competition.id
	);
	db.prepare('UPDATE dog SET name = ? WHERE id IN (SELECT id FROM dog LIMIT 50)').run(
		`Rex ${SCRIPT}`
	);
	db.prepare('UPDATE competition_run SET name = ? WHERE competition_id = ?').run(
		`Jumping <b onmouseover="window.__pwned=1">A3</b>`,
		competition.id
	);

	const violations: string[] = [];
	page.on('console', (m) => {
		if (m.text().includes('Content Security Policy')) violations.push(m.text());
	});
	await page.goto('/');
	await makeAvailableOffline(page, competition.name);
	await page.getByRole('link', { name: competition.name }).click();
	await expect(page.getByText('[click](javascript:window.__pwned=1)')).toBeVisible();
	await expect(
		page.getByText('<iframe src="javascript:window.__pwned=1"></iframe> 20 EUR')
	).toBeVisible();
	await page.getByTestId('run').first().click();
	await expect(page.getByRole('heading', { level: 1 })).toHaveText(
		'Jumping <b onmouseover="window.__pwned=1">A3</b>'
	);
	await expect(page.getByTestId('dog-run').first()).toBeVisible();
	await page.mouse.move(100, 300);

	expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
	expect(await page.locator('img[src="x"], iframe, b[onmouseover]').count()).toBe(0);
	expect(violations).toEqual([]);
});

test('the app declares a Content-Security-Policy that forbids inline script', async ({ page }) => {
	await page.goto('/');
	const policy = await page
		.locator('meta[http-equiv="content-security-policy"]')
		.getAttribute('content');
	expect(policy).toMatch(/script-src 'self' 'sha256-[^']+'(;|$)/);
	expect(policy).toContain("object-src 'none'");
	expect(policy).toMatch(/connect-src 'self'/);
	const blocked = await page.evaluate(() => {
		const s = document.createElement('script');
		s.textContent = 'window.__inline = true';
		document.body.append(s);
		return (window as { __inline?: boolean }).__inline === true;
	});
	expect(blocked).toBe(false);
});

test('changing the service address with unsent results asks first and keeps them', async ({
	page,
	context,
	handle
}) => {
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	await page.goto('/');
	await makeAvailableOffline(page, competition.name);
	// First visit: the worker takes charge of this page at once, without a reload.
	await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
	await context.setOffline(true);
	await record(page, dogRuns[0]!.id, { time: '41,41' });

	await page.goto('/settings');
	const questions: string[] = [];
	page.once('dialog', (dialog) => {
		questions.push(dialog.message());
		void dialog.dismiss();
	});
	await page.getByTestId('service-address').fill('http://127.0.0.1:9');
	await page.getByRole('button', { name: 'Save' }).click();
	await expect.poll(() => questions.length).toBe(1);
	expect(questions[0]).toContain('There is 1 result on this device not yet sent');
	await expect(page.getByTestId('address-message')).toHaveCount(0);
	await page.reload();
	await expect(page.getByTestId('service-address')).toHaveValue('');
	await expect(page.getByTestId('pending-count')).toHaveText('1 not sent');
});
