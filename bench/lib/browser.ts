import { chromium, devices, type Browser, type BrowserContext, type Page } from '@playwright/test';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's chromium with the flags that keep it quiet on a closed network (stack-notes.md). */
export const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync'
];

export function launch(extraArgs: string[] = []): Promise<Browser> {
	return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

const { defaultBrowserType: _browser, ...pixel7 } = devices['Pixel 7'];

/** A phone-sized context, as the end-to-end tests use. */
export const PHONE = { ...pixel7, serviceWorkers: 'allow' as const };

export function phoneContext(browser: Browser): Promise<BrowserContext> {
	return browser.newContext(PHONE);
}

/** CPU slowdown through CDP (1 = none); applies to the page's renderer. */
export async function throttleCpu(page: Page, rate: number): Promise<void> {
	const session = await page.context().newCDPSession(page);
	await session.send('Emulation.setCPUThrottlingRate', { rate });
	await session.detach();
}
