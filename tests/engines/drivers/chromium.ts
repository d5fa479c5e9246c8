import {
	chromium,
	devices,
	type BrowserContext,
	type ElementHandle,
	type Page
} from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/chromium';
import { spkiHash, VENUE_CA_FILE } from '../../support/venue';
import { BaseDriver, type LaunchOptions } from '../driver';

const { defaultBrowserType: _browser, ...pixel7 } = devices['Pixel 7'];

/** Debian's chromium through Playwright, a Pixel 7 context as in the end-to-end tests. */
export class ChromiumDriver extends BaseDriver<ElementHandle> {
	readonly engine = 'chromium' as const;

	private constructor(
		private readonly context: BrowserContext,
		private readonly page: Page,
		readonly version: string
	) {
		super();
	}

	/**
	 * At the venue the browser trusts the test CA by its key, and the profile is a real one (not
	 * incognito), as a phone's is: Chromium tells installability only there.
	 */
	static async launch(options: LaunchOptions = {}): Promise<ChromiumDriver> {
		const contextOptions = { ...pixel7, locale: 'en-US', serviceWorkers: 'allow' as const };
		if (options.venue) {
			const spki = spkiHash(readFileSync(VENUE_CA_FILE, 'utf8'));
			const context = await chromium.launchPersistentContext(
				mkdtempSync(join(tmpdir(), 'ringside-chromium-')),
				{
					...contextOptions,
					executablePath: CHROMIUM_PATH,
					args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spki}`]
				}
			);
			const page = context.pages()[0] ?? (await context.newPage());
			return new ChromiumDriver(context, page, `Chromium ${context.browser()?.version() ?? ''}`);
		}
		const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
		const context = await browser.newContext(contextOptions);
		const page = await context.newPage();
		return new ChromiumDriver(context, page, `Chromium ${browser.version()}`);
	}

	/** Why Chromium would not install the app here (CDP), empty when it would. */
	async installabilityErrors(): Promise<string[]> {
		const cdp = await this.context.newCDPSession(this.page);
		try {
			const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
				installabilityErrors: { errorId: string }[];
			};
			return installabilityErrors.map((e) => e.errorId);
		} finally {
			await cdp.detach();
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
		const browser = this.context.browser();
		await this.context.close();
		await browser?.close();
	}
}
