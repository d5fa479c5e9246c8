import { chromium, devices, type BrowserContext, type Page } from '@playwright/test';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../server/tls/test-certs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../support/chromium';
import { networkAddress, spkiHash } from '../support/venue';
import { expect, ServiceHandle, test } from './fixtures';

/**
 * Route 2 of issue 30, followed as a phone does: the laptop starts with `--tls local` for the
 * first time (its own new CA), a phone that trusts nothing opens the printed address, is led to
 * the trust page instead of a certificate error, downloads the CA, "installs" it (a browser that
 * trusts that CA's key: what Android's installer gives Chrome), checks again and goes on to the
 * app over HTTPS, where the worker takes over. Screenshots at a phone's size in
 * test-results/screens/trust-*.png.
 */

const SCREENS = 'test-results/screens';
const phone = { ...devices['Pixel 7'], serviceWorkers: 'allow' as const };

let laptop: ServiceHandle;
let plain: string;
let secure: string;

test.beforeAll(async () => {
	mkdirSync(SCREENS, { recursive: true });
	const host = networkAddress();
	laptop = await new ServiceHandle({ host, tls: 'local', auth: 'open' }).start();
	plain = `http://${host}:${laptop.service.port}`;
	secure = `https://${host}:${laptop.service.port}`;
});

test.afterAll(async () => {
	await laptop?.dispose();
});

/** A phone's browser, trusting the CA of `caPem` when given (the CA installed on the phone). */
async function openPhone(caPem?: string): Promise<{ context: BrowserContext; page: Page }> {
	const args = caPem
		? [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spkiHash(caPem)}`]
		: CHROMIUM_ARGS;
	const context = await chromium.launchPersistentContext(
		mkdtempSync(join(tmpdir(), 'ringside-phone-')),
		{ ...phone, executablePath: CHROMIUM_PATH, args }
	);
	const page = context.pages()[0] ?? (await context.newPage());
	return { context, page };
}

/** Reloads until the app's service worker controls the page, as a phone's next visit would. */
async function untilControlled(page: Page): Promise<void> {
	await expect
		.poll(
			async () => {
				const controlled = await page.evaluate(() => !!navigator.serviceWorker.controller);
				if (!controlled) await page.reload();
				return controlled;
			},
			{ timeout: 30_000, message: 'the service worker controls the app' }
		)
		.toBe(true);
}

test('a phone that trusts nothing is led to the trust page, installs the CA and goes on to the app over HTTPS', async () => {
	const ca = laptop.service.tls?.ca;
	expect(laptop.service.tls?.local?.madeCa, 'a first start makes the CA').toBe(true);

	// The printed address, opened over plain HTTP as a phone's browser does: no certificate error,
	// the trust page, with the steps for this phone (Android) open.
	const first = await openPhone();
	let caPem: string;
	try {
		const page = first.page;
		await page.goto(`${plain}/`);
		expect(new URL(page.url()).pathname).toBe('/trust');
		await expect(page.getByRole('status')).toContainText(
			'Not yet: this phone does not trust the event'
		);
		await expect(page.locator('#android')).toHaveAttribute('open', '');
		await expect(page.getByText(ca?.fingerprint ?? 'no fingerprint')).toBeVisible();
		await page.screenshot({ path: `${SCREENS}/trust-1-not-yet.png`, fullPage: true });

		// Download the certificate as the page offers it: the event's CA, as the laptop printed it.
		const [download] = await Promise.all([
			page.waitForEvent('download'),
			page.locator('#android').getByRole('link', { name: 'Download the certificate' }).click()
		]);
		expect(download.suggestedFilename()).toBe('ringside-event-ca.crt');
		const der = readFileSync((await download.path()) ?? '');
		const cert = new X509Certificate(der);
		expect(cert.fingerprint256).toBe(ca?.fingerprint);
		expect(cert.ca).toBe(true);
		caPem = cert.toString();
	} finally {
		await first.context.close();
	}

	// The same phone after installing it.
	const trusted = await openPhone(caPem);
	try {
		const page = trusted.page;
		await page.goto(`${plain}/trust`);
		await expect(page.getByRole('status')).toContainText('This phone trusts the event');
		await page.screenshot({ path: `${SCREENS}/trust-2-trusted.png`, fullPage: true });
		await page.getByRole('link', { name: 'Open Ringside' }).click();
		await page.waitForURL(`${secure}/`);
		await expect(page.getByRole('heading', { name: 'Competitions' })).toBeVisible();
		expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
		await untilControlled(page);
		await page.screenshot({ path: `${SCREENS}/trust-3-app.png` });

		// Any page opened over plain HTTP (a bookmark, a typed address) goes on to HTTPS at once.
		await page.goto(`${plain}/settings`);
		await page.waitForURL(`${secure}/settings`);
		await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
	} finally {
		await trusted.context.close();
	}
});

/**
 * Route 1: the club's own name with its own certificate (a public CA's, stood in for by one this
 * test makes; the browser trusts its key as a phone trusts a public CA). The Wi-Fi's DNS override
 * (dnsmasq `address=/ring.club.test/<laptop>`) is Chromium's host resolver rule here. Nothing to
 * install: the printed name opens the app over HTTPS, and plain HTTP goes there at once.
 */
test("the club's own name opens the app over HTTPS with nothing installed", async () => {
	const host = networkAddress();
	const dir = mkdtempSync(join(tmpdir(), 'ringside-club-'));
	const { cert: certFile, key: keyFile } = makeCert(dir, ['ring.club.test'], 90, 'fullchain');
	const club = await new ServiceHandle({
		host,
		tlsCert: certFile,
		tlsKey: keyFile,
		allowHosts: ['ring.club.test'],
		auth: 'open'
	}).start();
	const port = club.service.port;
	expect(club.service.tls?.covered).toEqual(['ring.club.test']);
	const context = await chromium.launchPersistentContext(
		mkdtempSync(join(tmpdir(), 'ringside-phone-')),
		{
			...phone,
			executablePath: CHROMIUM_PATH,
			args: [
				...CHROMIUM_ARGS,
				`--host-resolver-rules=MAP ring.club.test ${host}`,
				`--ignore-certificate-errors-spki-list=${spkiHash(readFileSync(certFile, 'utf8'))}`
			]
		}
	);
	try {
		const page = context.pages()[0] ?? (await context.newPage());
		await page.goto(`http://ring.club.test:${port}/settings`);
		await page.waitForURL(`https://ring.club.test:${port}/settings`);
		await page.getByRole('link', { name: 'Competitions' }).first().click();
		await expect(page.getByRole('heading', { name: 'Competitions' })).toBeVisible();
		expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
		await untilControlled(page);
		await page.screenshot({ path: `${SCREENS}/trust-4-club-name.png` });
	} finally {
		await context.close();
		await club.dispose();
	}
});

/**
 * Route 2 and join links: a join link is on HTTPS, where a phone that does not trust the event yet
 * meets a certificate error. Beside each join code the secretary's Devices screen shows the trust
 * page's code (plain HTTP), to scan first.
 */
test("the secretary's join code comes with the trust page's code to scan first", async () => {
	const host = networkAddress();
	const desk = await new ServiceHandle({ host, tls: 'local', auth: 'required' }).start();
	const port = desk.service.port;
	const caFile = desk.service.tls?.local?.files.ca;
	expect(caFile).toBeTruthy();
	const phoneOfDesk = await openPhone(readFileSync(caFile!, 'utf8'));
	try {
		const page = phoneOfDesk.page;
		const link = desk.service.createJoinLink({ role: 'secretary', uses: 1 });
		await page.goto(`https://${host}:${port}/join#t=${link.token}`);
		await page.getByTestId('device-name').fill('Desk');
		await page.getByTestId('join').click();
		await expect(page.getByTestId('joined')).toContainText('Desk');
		await page.getByRole('link', { name: 'To the competitions' }).click();
		await page.getByRole('link', { name: 'Settings' }).click();
		await page.getByTestId('devices-link').click();
		await page.getByRole('radio', { name: 'Viewer' }).check();
		await page.getByTestId('make-link').click();
		await expect(page.getByTestId('join-url')).toContainText(`https://${host}:${port}/join#t=`);
		const trust = page.getByTestId('join-trust');
		await expect(trust).toContainText('A phone new to this event trusts it first');
		await expect(page.getByTestId('join-trust-url')).toHaveText(`http://${host}:${port}/trust`);
		await expect(trust.getByRole('img')).toBeVisible();
		await page.getByTestId('join-link').screenshot({ path: `${SCREENS}/trust-5-join-codes.png` });
	} finally {
		await phoneOfDesk.context.close();
		await desk.dispose();
	}
});
