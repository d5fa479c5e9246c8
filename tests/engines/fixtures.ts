import { test as base } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { ServiceHandle } from '../e2e/fixtures';
import { networkAddress, VENUE_TLS_DIR } from '../support/venue';
import type { Driver, Engine } from './driver';
import { launchDriver } from './drivers';
import type { FlowContext } from './flows';

/**
 * Each test gets its project's engine (a fresh browser and profile) and the real embedded service
 * on a temporary SQLite file; `flow` bundles them for the shared flow descriptions. A failed test
 * keeps a screenshot of the moment it failed. The `venue` projects open the app as a phone at
 * the event does: by this machine's network address over HTTPS (`--tls local` with the run's test
 * CA, which the browser trusts), writes open as on loopback so that the flows stay the same.
 */
export const test = base.extend<
	{ driver: Driver; handle: ServiceHandle; flow: FlowContext },
	{ engine: Engine; venue: boolean }
>({
	engine: ['chromium', { option: true, scope: 'worker' }],
	venue: [false, { option: true, scope: 'worker' }],
	handle: async ({ venue }, use) => {
		const handle = await new ServiceHandle(
			venue ? { host: networkAddress(), tls: 'local', tlsDir: VENUE_TLS_DIR, auth: 'open' } : {}
		).start();
		await use(handle);
		await handle.dispose();
	},
	driver: async ({ engine, venue }, use, testInfo) => {
		const driver = await launchDriver(engine, { venue });
		try {
			await use(driver);
			if (testInfo.status !== testInfo.expectedStatus) {
				const file = testInfo.outputPath('failed.png');
				await driver.screenshot(file).catch(() => {});
				await testInfo.attach('failed', { path: file, contentType: 'image/png' }).catch(() => {});
			}
		} finally {
			await driver.close();
		}
	},
	flow: async ({ driver, handle }, use, testInfo) => {
		const shots = testInfo.outputPath('screens');
		mkdirSync(shots, { recursive: true });
		await use({
			d: driver,
			handle,
			log: (line) => console.log(`[${driver.engine}] ${testInfo.title}: ${line}`),
			shot: async (name) => {
				const file = `${shots}/${name}.png`;
				await driver.screenshot(file);
				await testInfo.attach(name, { path: file, contentType: 'image/png' });
			}
		});
	}
});
