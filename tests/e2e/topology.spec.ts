import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { findNginx } from '../../scripts/nginx-bin';
import { findPgBin } from '../../scripts/pg-bin';
import { startTopology, type Topology } from '../../scripts/topology';
import { tapTime } from './support/keypad';
import { makeAvailableOffline, walk, type RunJson } from './support/service-data';

/**
 * The core flow as a federation runs it: two instances of the service in separate processes on
 * one PostgreSQL database, behind nginx round-robin (scripts/topology.ts, the configuration of
 * docs/deployment.md). Two phones use the proxy's address: one records results on the capture
 * screen, the other's run screen and ring board show them without a reload (the push link, its
 * stream on whichever instance nginx chose, the changes made on either).
 *
 * Needs PostgreSQL's and nginx's binaries; with RINGSIDE_TEST_PG=1 (CI) it fails without them.
 */

interface CompetitionJson {
	id: number;
	name: string;
	state: string;
	_links: Record<string, { href: string }>;
}

const available = findPgBin() !== null && findNginx() !== null;
const required = process.env.RINGSIDE_TEST_PG === '1';

async function open(page: Page, competitionName: string): Promise<void> {
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, competitionName);
}

test.skip(!available && !required, 'PostgreSQL or nginx is not installed');

test('two instances behind nginx: what one phone records shows on the other', async ({
	browser
}) => {
	test.setTimeout(150_000);
	const t: Topology = await startTopology({
		args: ['--seed', 'small', '--app', 'build', '--quiet', '--read-budget', 'off']
	});
	try {
		const competitions = await walk<CompetitionJson>(
			new URL('/api/v1/competitions', t.url).href,
			'competitions'
		);
		const competition = competitions.find((c) => c.state === 'IN_PROGRESS')!;
		expect(competition._links.changes?.href.startsWith(t.url)).toBe(true);
		const runs = await walk<RunJson>(competition._links.competitionRuns!.href, 'competitionRuns');
		const ringId = runs[0]!.competitionRing.id;

		const devices = await Promise.all([0, 1, 2].map(() => browser.newContext({ baseURL: t.url })));
		const [phoneA, runScreen, board] = (await Promise.all(devices.map((d) => d.newPage()))) as [
			Page,
			Page,
			Page
		];
		for (const page of [phoneA, runScreen, board]) await open(page, competition.name);

		await board.goto(`/rings/${competition.id}/${ringId}`);
		const current = board.getByTestId('ring-current');
		await expect(current).toBeVisible();
		const first = Number((await current.getByRole('link').getAttribute('href'))!.split('/').at(-1));
		let runId: number | undefined;
		for (const run of runs.filter((r) => r.competitionRing.id === ringId)) {
			const dogRuns = await walk<{ id: number }>(run._links.dogRuns.href, 'dogRuns');
			if (dogRuns.some((d) => d.id === first)) runId = run.id;
		}
		await runScreen.goto(`/runs/${runId}`);
		await expect(runScreen.getByTestId('dog-run').first()).toBeVisible();

		await phoneA.goto(`/dog-runs/${first}`);
		await expect(phoneA.getByTestId('capture')).toBeVisible();
		// Several results: their PUTs and the streams land on both instances (round-robin).
		for (let k = 0; k < 4; k++) {
			const id = Number(phoneA.url().split('/').at(-1));
			await tapTime(phoneA, `4${k},${k}2`);
			await phoneA.getByTestId('save-next').click();
			await expect(phoneA.getByTestId('flash')).toContainText('Saved on device');
			const row = runScreen.locator(`[data-testid=dog-run][data-dog-run-id="${id}"]`);
			await expect(row.getByTestId('time')).toHaveText(`4${k}.${k}2 s`, { timeout: 5_000 });
			await expect(current.getByRole('link')).not.toHaveAttribute('href', `/dog-runs/${id}`, {
				timeout: 5_000
			});
		}
		// Both instances served the phones.
		const served = await Promise.all(
			t.instances.map(async (i) => (await fetch(`${i.url}api/v1/competitions`)).status)
		);
		expect(served).toEqual([200, 200]);
		for (const device of devices) await device.close();
		expect(t.proxy.errors()).not.toMatch(/\[(error|crit|alert|emerg)\]/);
	} finally {
		await t.stop();
	}
});
