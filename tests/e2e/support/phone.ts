import type { Browser, Page } from '@playwright/test';

/** The smallest phone the app is laid out for, held upright. */
export const PHONE = { width: 360, height: 640 };

/**
 * A phone at the venue opening the app for the first time: a browser context of its own (nothing
 * stored, its own service worker), touch and a phone's size, in the language asked for.
 */
export async function phone(
	browser: Browser,
	baseURL: string,
	options: { locale?: string; viewport?: { width: number; height: number } } = {}
): Promise<Page> {
	const context = await browser.newContext({
		baseURL,
		serviceWorkers: 'allow',
		viewport: options.viewport ?? PHONE,
		isMobile: true,
		hasTouch: true,
		...(options.locale ? { locale: options.locale } : {})
	});
	return context.newPage();
}
