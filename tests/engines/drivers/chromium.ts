import { chromium, devices, type Browser, type ElementHandle, type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/chromium';
import { BaseDriver } from '../driver';

const { defaultBrowserType: _browser, ...pixel7 } = devices['Pixel 7'];

/** Debian's chromium through Playwright, a Pixel 7 context as in the end-to-end tests. */
export class ChromiumDriver extends BaseDriver<ElementHandle> {
	readonly engine = 'chromium' as const;

	private constructor(
		private readonly browser: Browser,
		private readonly page: Page,
		readonly version: string
	) {
		super();
	}

	static async launch(): Promise<ChromiumDriver> {
		const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
		const context = await browser.newContext({
			...pixel7,
			locale: 'en-US',
			serviceWorkers: 'allow'
		});
		const page = await context.newPage();
		return new ChromiumDriver(browser, page, `Chromium ${browser.version()}`);
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

	protected async element(expression: string): Promise<ElementHandle | null> {
		const handle = await this.page.evaluateHandle(expression);
		const element = handle.asElement();
		if (!element) await handle.dispose();
		return element;
	}

	protected async click(element: ElementHandle): Promise<void> {
		try {
			await element.click({ timeout: 5_000 });
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
