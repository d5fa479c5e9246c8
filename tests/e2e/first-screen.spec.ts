import { mkdirSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { unrecordedRun } from './support/service-data';
import { textProblems } from './support/text-boxes';

/**
 * Each list screen's point on a small phone's first screen (issue 21): the app's chrome (the app
 * bar, the sync bar and the tab bar) takes at most a fifth of a 360×640 screen, no text is cut or
 * under another (support/text-boxes), and the run screen shows its first dog without scrolling.
 * A person opens the app once and goes from screen to screen by tapping, in English and light,
 * then in Czech and dark. Screenshots of each screen go to test-results/screens/ (look at them).
 */
const SCREENS = 'test-results/screens';
const VIEWPORT = { width: 360, height: 640 };
const MAX_CHROME = VIEWPORT.height / 5;

const VARIANTS = [
	{ name: 'en-light', colorScheme: 'light', locale: 'en-US' },
	{ name: 'cs-dark', colorScheme: 'dark', locale: 'cs-CZ' }
] as const;

async function phone(
	browser: Browser,
	baseURL: string,
	v: (typeof VARIANTS)[number]
): Promise<Page> {
	const context = await browser.newContext({
		baseURL,
		viewport: VIEWPORT,
		deviceScaleFactor: 2,
		isMobile: true,
		hasTouch: true,
		colorScheme: v.colorScheme,
		locale: v.locale,
		serviceWorkers: 'allow'
	});
	return context.newPage();
}

/**
 * The height the app's chrome takes at the top of the page (the app bar and the sync bar above
 * the screen's content) and at the bottom (the tab bar fixed over it), in CSS px.
 */
function chromeHeight(page: Page): Promise<{ top: number; bottom: number; total: number }> {
	return page.evaluate(() => {
		const main = document.querySelector('main#content')!;
		let top = 0;
		for (const el of document.querySelectorAll('header.bar, [data-testid="sync-bar"]')) {
			if (main.contains(el) || el.getClientRects().length === 0) continue;
			top = Math.max(top, el.getBoundingClientRect().bottom);
		}
		const tabs = document.querySelector('nav.tabs');
		const bottom = tabs ? innerHeight - tabs.getBoundingClientRect().top : 0;
		return { top, bottom, total: top + bottom };
	});
}

async function expectScreen(page: Page, where: string): Promise<void> {
	await page.evaluate(() => scrollTo(0, 0));
	const chrome = await chromeHeight(page);
	console.log(`${where}: chrome ${chrome.top} + ${chrome.bottom} = ${chrome.total} px`);
	await page.screenshot({ path: `${SCREENS}/first-screen-${where}.png` });
	expect
		.soft(chrome.total, `${where}: the chrome's height (top ${chrome.top})`)
		.toBeLessThanOrEqual(MAX_CHROME);
	// Every tab and bar target stays big enough for a gloved finger.
	for (const target of await page.locator('header.bar a, header.bar button, nav.tabs a').all()) {
		const b = (await target.boundingBox())!;
		expect.soft(b.height, `${where}: ${await target.textContent()}`).toBeGreaterThanOrEqual(44);
	}
	expect.soft(await textProblems(page, { fixed: 'nav.tabs' }), `${where}: text`).toEqual([]);
}

test('each list screen shows its point under a chrome of at most a fifth of a 360×640 screen', async ({
	browser,
	handle
}) => {
	test.setTimeout(120_000);
	mkdirSync(SCREENS, { recursive: true });
	const { competition } = await unrecordedRun(handle.url, 6);

	for (const v of VARIANTS) {
		const page = await phone(browser, handle.url, v);
		await page.goto('/');
		const card = page.getByTestId('competition').filter({ hasText: competition.name });
		await expect(card).toBeVisible();
		await expectScreen(page, `${v.name}-competitions`);

		await card.locator('a.open').click();
		await expect(page.getByTestId('run').first()).toBeVisible({ timeout: 20_000 });
		await expectScreen(page, `${v.name}-competition`);

		await page.getByTestId('run').first().click();
		const firstDog = page.getByTestId('dog-run').first();
		await expect(firstDog).toBeVisible({ timeout: 20_000 });
		await expectScreen(page, `${v.name}-run`);
		// The run's first dog, whole, on the first screen: between the chrome at the top and the
		// tab bar at the bottom.
		const chrome = await chromeHeight(page);
		const dog = (await firstDog.boundingBox())!;
		expect
			.soft(dog.y, `${v.name} run: the first dog under the bars`)
			.toBeGreaterThanOrEqual(chrome.top);
		expect
			.soft(dog.y + dog.height, `${v.name} run: the first dog above the tabs`)
			.toBeLessThanOrEqual(VIEWPORT.height - chrome.bottom);

		await page.locator('nav.tabs a[href="/sync"]').click();
		await expect(page).toHaveURL(/\/sync$/);
		await expectScreen(page, `${v.name}-sync`);

		await page.locator('nav.tabs a[href="/settings"]').click();
		await page.getByTestId('devices-link').click();
		await expect(page).toHaveURL(/\/devices$/);
		await expect(page.locator('main h1')).toBeVisible();
		await expectScreen(page, `${v.name}-devices`);
		await page.context().close();
	}
});
