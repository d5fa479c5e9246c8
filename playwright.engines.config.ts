import { defineConfig } from '@playwright/test';
import type { Engine } from './tests/engines/driver';

/**
 * The core flows in three engines (issue 19): one description of each flow (tests/engines/
 * flows.ts), run by each engine's own driver. Playwright's runner gives the same output,
 * time-outs and rules as the Chromium suite; each project launches its engine in the `driver`
 * fixture (tests/engines/fixtures.ts), since Playwright drives only its own WebKit and Firefox.
 */
export default defineConfig<{ engine: Engine }>({
	testDir: 'tests/engines',
	globalSetup: './tests/e2e/global-setup.ts',
	outputDir: 'test-results/engines',
	fullyParallel: false,
	workers: 1,
	forbidOnly: true,
	retries: 0,
	timeout: 90_000,
	reporter: process.env.CI
		? [['list']]
		: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report/engines' }]],
	projects: [
		{ name: 'chromium', use: { engine: 'chromium' } },
		{ name: 'webkit', use: { engine: 'webkit' } },
		{ name: 'firefox', use: { engine: 'firefox' } }
	]
});
