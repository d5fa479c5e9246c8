import { test as base } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { ServiceHandle } from '../e2e/fixtures';
import type { Driver, Engine } from './driver';
import { launchDriver } from './drivers';
import type { FlowContext } from './flows';

/**
 * Each test gets its project's engine (a fresh browser and profile) and the real embedded service
 * on a temporary SQLite file; `flow` bundles them for the shared flow descriptions. A failed test
 * keeps a screenshot of the moment it failed.
 */
export const test = base.extend<
	{ driver: Driver; handle: ServiceHandle; flow: FlowContext },
	{ engine: Engine }
>({
	engine: ['chromium', { option: true, scope: 'worker' }],
	handle: async ({}, use) => {
		const handle = await new ServiceHandle().start();
		await use(handle);
		await handle.dispose();
	},
	driver: async ({ engine }, use, testInfo) => {
		const driver = await launchDriver(engine);
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
