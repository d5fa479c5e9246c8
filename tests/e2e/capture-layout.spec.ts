import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { unrecordedRun } from './support/service-data';
import { textProblems } from './support/text-boxes';

/**
 * The capture screen on a small phone held in one hand: every control a result needs is on the
 * screen without scrolling, also while the "Saved" message and a rule's warning show, the message
 * covers nothing, no text is cut by its box or under another (support/text-boxes), and every
 * target is at least 48 px. Screenshots of each state go to
 * test-results/screens/ for a person to look at.
 */
const SCREENS = 'test-results/screens';

interface Variant {
	name: string;
	viewport: { width: number; height: number };
	colorScheme: 'light' | 'dark';
	locale: string;
}

const VARIANTS: Variant[] = [
	{
		name: '360x640-light-en',
		viewport: { width: 360, height: 640 },
		colorScheme: 'light',
		locale: 'en-US'
	},
	{
		name: '360x640-dark-en',
		viewport: { width: 360, height: 640 },
		colorScheme: 'dark',
		locale: 'en-US'
	},
	{
		name: '360x640-light-cs',
		viewport: { width: 360, height: 640 },
		colorScheme: 'light',
		locale: 'cs-CZ'
	},
	{
		name: '390x844-dark-cs',
		viewport: { width: 390, height: 844 },
		colorScheme: 'dark',
		locale: 'cs-CZ'
	},
	{
		name: '390x844-light-en',
		viewport: { width: 390, height: 844 },
		colorScheme: 'light',
		locale: 'en-US'
	}
];

async function box(locator: Locator) {
	const b = await locator.boundingBox();
	if (!b) throw new Error(`not rendered: ${locator}`);
	return b;
}

/** Every control for a result lies inside the viewport, and is at least 48 × 48 px. */
async function expectAllInView(page: Page, where: string): Promise<void> {
	const viewport = page.viewportSize()!;
	const controls = [
		page.getByTestId('time-input'),
		page.getByTestId('keypad').locator('button'),
		page.locator('.counter button'),
		page.locator('.toggle'),
		page.getByTestId('save'),
		page.getByTestId('save-next')
	];
	for (const group of controls) {
		for (const control of await group.all()) {
			const b = await box(control);
			const what = `${where}: ${await control.evaluate((e) => e.outerHTML.slice(0, 80))}`;
			expect(b.y, what).toBeGreaterThanOrEqual(0);
			expect(b.y + b.height, what).toBeLessThanOrEqual(viewport.height + 0.5);
			if ((await control.getAttribute('data-testid')) === 'time-input') continue;
			expect(b.height, what).toBeGreaterThanOrEqual(48);
			expect(b.width, what).toBeGreaterThanOrEqual(48);
		}
	}
	// Nothing to scroll to: the page is no taller than the screen.
	const scroll = await page.evaluate(() => document.documentElement.scrollHeight);
	expect(scroll, `${where}: page height`).toBeLessThanOrEqual(viewport.height + 1);
	// Every word readable: none cut by its box, under the bar or another field, or over another.
	expect(await textProblems(page), `${where}: text`).toEqual([]);
}

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a) {
	return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function phone(browser: Browser, baseURL: string, v: Variant): Promise<Page> {
	const context = await browser.newContext({
		baseURL,
		viewport: v.viewport,
		deviceScaleFactor: 2,
		isMobile: true,
		hasTouch: true,
		colorScheme: v.colorScheme,
		locale: v.locale,
		serviceWorkers: 'allow'
	});
	return context.newPage();
}

test('the capture screen fits a small phone in every state, and the message covers nothing', async ({
	browser,
	handle
}) => {
	test.setTimeout(180_000);
	mkdirSync(SCREENS, { recursive: true });
	const { competition, dogRuns } = await unrecordedRun(handle.url, 12);

	for (const [i, v] of VARIANTS.entries()) {
		const page = await phone(browser, handle.url, v);
		await page.goto('/');
		// "Make available offline" in either language: the card's first button.
		const card = page.getByTestId('competition').filter({ hasText: competition.name });
		await card.getByTestId('download-control').getByRole('button').first().click();
		await expect(card.getByTestId('offline-badge')).toHaveAttribute('data-kept', 'true', {
			timeout: 30_000
		});
		// Two dogs per variant, so that every variant starts on a dog without a result.
		const dog = dogRuns[i * 2]!;
		await page.goto(`/dog-runs/${dog.id}`);
		await expect(page.getByTestId('capture')).toBeVisible();

		await page.screenshot({ path: `${SCREENS}/capture-${v.name}-1-empty.png` });
		await expectAllInView(page, `${v.name} empty`);

		// A 3rd refusal: the warning shows; then Save, and the message shows too.
		const keypad = page.getByTestId('keypad');
		for (const key of ['4', '1', 'sep', '2', '7'])
			await keypad.locator(`[data-key="${key}"]`).click();
		const more = page.locator('.counter').nth(1).locator('button').last();
		for (let r = 0; r < 3; r++) await more.click();
		await expect(page.getByTestId('hint')).toBeVisible();
		await page.screenshot({ path: `${SCREENS}/capture-${v.name}-2-warning.png` });
		await expectAllInView(page, `${v.name} warning`);

		await page.getByTestId('save').click();
		await expect(page.getByTestId('flash')).toBeVisible();
		await expect(page.getByTestId('hint')).toBeVisible();
		await page.screenshot({ path: `${SCREENS}/capture-${v.name}-3-saved.png` });
		await expectAllInView(page, `${v.name} saved with a warning`);
		const flash = await box(page.getByTestId('flash'));
		for (const covered of [
			page.getByTestId('hint'),
			page.getByTestId('time-input'),
			page.locator('.counter'),
			page.locator('.toggle'),
			page.getByTestId('keypad')
		]) {
			for (const c of await covered.all()) expect(overlaps(flash, await box(c))).toBe(false);
		}

		// Save & next: the next dog, empty, with the message about the previous one.
		await page.getByTestId('save-next').click();
		await expect(page.getByTestId('capture')).toHaveAttribute(
			'data-dog-run-id',
			String(dogRuns[i * 2 + 1]!.id)
		);
		// The message about the previous dog and the dogs coming next, both shown.
		await expect(page.getByTestId('flash')).toBeVisible();
		await expect(page.getByTestId('next-up')).toBeVisible();
		await page.screenshot({ path: `${SCREENS}/capture-${v.name}-4-next.png` });
		await expectAllInView(page, `${v.name} next dog`);
		await page.context().close();
	}
});
