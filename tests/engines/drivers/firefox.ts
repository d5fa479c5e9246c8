import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { writeFileSync } from 'node:fs';
import { firefoxProfileTrustingCa } from '../../support/venue';
import { BaseDriver, type LaunchOptions } from '../driver';

/** Debian's Firefox ESR: Playwright drives only its own patched Firefox, so WebDriver BiDi. */
export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** A phone's viewport (Pixel 7's CSS size), as the Chromium context has. */
const VIEWPORT = { width: 412, height: 915 };

/** Firefox ESR through WebDriver BiDi with puppeteer-core (no geckodriver needed), headless. */
export class FirefoxDriver extends BaseDriver<ElementHandle<Element>> {
	readonly engine = 'firefox' as const;

	private constructor(
		private readonly browser: Browser,
		private readonly page: Page,
		readonly version: string
	) {
		super();
	}

	/** At the venue the profile's own NSS database trusts the test CA, as an imported CA is. */
	static async launch(options: LaunchOptions = {}): Promise<FirefoxDriver> {
		const browser = await puppeteer.launch({
			browser: 'firefox',
			executablePath: FIREFOX_PATH,
			headless: true,
			...(options.venue ? { userDataDir: firefoxProfileTrustingCa() } : {}),
			extraPrefsFirefox: { 'intl.accept_languages': 'en-US', 'intl.locale.requested': 'en-US' }
		});
		try {
			const [first] = await browser.pages();
			const page = first ?? (await browser.newPage());
			// The first tab does not take defaultViewport over BiDi: set it on the tab.
			await page.setViewport(VIEWPORT);
			const version = (await browser.version()).replace('firefox/', 'Firefox ');
			return new FirefoxDriver(browser, page, version);
		} catch (e) {
			await browser.close();
			throw e;
		}
	}

	async open(url: string): Promise<void> {
		await this.page.goto(url);
	}

	async reload(): Promise<void> {
		await this.page.reload();
	}

	evaluate<T>(expression: string): Promise<T> {
		return this.page.evaluate(expression) as Promise<T>;
	}

	protected async element(expression: string): Promise<ElementHandle<Element> | null> {
		const handle = await this.page.evaluateHandle(expression);
		const element = handle.asElement() as ElementHandle<Element> | null;
		if (!element) await handle.dispose();
		return element;
	}

	protected async click(element: ElementHandle<Element>): Promise<void> {
		try {
			await element.click();
		} finally {
			await element.dispose();
		}
	}

	async screenshot(file: string): Promise<void> {
		writeFileSync(file, await this.page.screenshot());
	}

	async close(): Promise<void> {
		await this.browser.close();
	}
}
