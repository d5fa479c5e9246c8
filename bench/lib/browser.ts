import { chromium, devices, type Browser, type BrowserContext, type Page } from '@playwright/test';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../tests/support/chromium.ts';

export { CHROMIUM_ARGS, CHROMIUM_PATH };

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
