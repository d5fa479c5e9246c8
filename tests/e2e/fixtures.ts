import { test as base, expect } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, type ServiceOptions } from '../../server/app';

export type RunningService = Awaited<ReturnType<typeof createService>>;

/** Starts the real embedded service (and the built app) on a temporary SQLite file. */
export async function startService(options: Partial<ServiceOptions> = {}): Promise<{
	service: RunningService;
	dispose: () => Promise<void>;
}> {
	const dir = mkdtempSync(join(tmpdir(), 'ringside-e2e-'));
	const service = await createService({
		dbFile: join(dir, 'results.sqlite'),
		seed: 'small',
		appDir: 'build',
		port: 0,
		quiet: true,
		...options
	});
	return {
		service,
		dispose: async () => {
			await service.close();
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

export const test = base.extend<{ service: RunningService }>({
	service: async ({}, use) => {
		const { service, dispose } = await startService();
		await use(service);
		await dispose();
	},
	baseURL: async ({ service }, use) => {
		await use(service.url);
	}
});

export { expect };
