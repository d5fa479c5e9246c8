import { expect } from '@playwright/test';
import { ChromiumDriver } from './drivers/chromium';
import { test } from './fixtures';

// Only in the venue's Chromium project (playwright.engines.config.ts): what Chromium alone tells.

test('g. at the venue the app on the network address is secure, kept by its worker and installable', async ({
	driver,
	handle,
	flow
}) => {
	const url = new URL(handle.url);
	expect(url.protocol).toBe('https:');
	expect(url.hostname).not.toBe('127.0.0.1');
	await driver.open(handle.url);
	expect(await driver.evaluate<boolean>('window.isSecureContext')).toBe(true);
	await driver.waitFor(
		'the service worker to control the page',
		async () => {
			const controlled = await driver.evaluate<boolean>('!!navigator.serviceWorker.controller');
			if (!controlled) await driver.reload();
			return controlled;
		},
		30_000
	);
	if (!(driver instanceof ChromiumDriver))
		throw new Error('installability is told by Chromium only');
	const errors = await driver
		.waitFor(
			'Chromium to find the app installable',
			async () => {
				const e = await driver.installabilityErrors();
				return e.length === 0 ? e : false;
			},
			20_000
		)
		.catch(async () => driver.installabilityErrors());
	expect(errors, 'Page.getInstallabilityErrors').toEqual([]);
	await flow.shot('venue-secure-app');
});
