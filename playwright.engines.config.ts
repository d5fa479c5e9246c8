import { defineConfig } from '@playwright/test';
import type { Engine } from './tests/engines/driver';

/**
 * At the venue (issue 30) the phones open the ring laptop by its network address over HTTPS:
 * the flows a phone at the ring depends on (download, offline capture, reload with the service
 * down, delivery when it is back) run again that way in each engine, and Chromium says whether
 * the app is installable there.
 */
const VENUE_FLOWS = / [abcd]\. /;

/**
 * The core flows in three engines (issue 19): one description of each flow (tests/engines/
 * flows.ts), run by each engine's own driver. Playwright's runner gives the same output,
 * time-outs and rules as the Chromium suite; each project launches its engine in the `driver`
 * fixture (tests/engines/fixtures.ts), since Playwright drives only its own WebKit and Firefox.
 */
export default defineConfig<{ engine: Engine; venue: boolean }>({
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
		{ name: 'chromium', use: { engine: 'chromium' }, testMatch: 'flows.spec.ts' },
		{ name: 'webkit', use: { engine: 'webkit' }, testMatch: 'flows.spec.ts' },
		{ name: 'firefox', use: { engine: 'firefox' }, testMatch: 'flows.spec.ts' },
		{
			name: 'chromium-venue',
			use: { engine: 'chromium', venue: true },
			testMatch: /(flows|venue)\.spec\.ts/,
			grep: [VENUE_FLOWS, / g\. /]
		},
		{
			name: 'webkit-venue',
			use: { engine: 'webkit', venue: true },
			testMatch: 'flows.spec.ts',
			grep: VENUE_FLOWS
		},
		{
			name: 'firefox-venue',
			use: { engine: 'firefox', venue: true },
			testMatch: 'flows.spec.ts',
			grep: VENUE_FLOWS
		}
	]
});
