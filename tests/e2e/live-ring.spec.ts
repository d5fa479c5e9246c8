import type { Page } from '@playwright/test';
import { expect, ServiceHandle, test } from './fixtures';
import { makeAvailableOffline, walk, type RunJson } from './support/service-data';
import { tapTime } from './support/keypad';

/**
 * Devices at one ring, all online: the timekeeper (A) records dogs one after another; the ring
 * secretary's phone shows the run screen, a steward's the ring board, and a TV the big screen. What
 * A records appears on the others without a reload: through the service's push link, and with the
 * push link switched off, by polling. The figures are printed; the bench measures them properly.
 */

interface CompetitionJson {
	id: number;
	name: string;
	state: string;
	_links: Record<string, { href: string }>;
}

async function open(page: Page, competitionName: string): Promise<void> {
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, competitionName);
}

for (const push of [true, false]) {
	test(`what one phone records shows on another within the target, ${push ? 'pushed' : 'polled'}`, async ({
		browser
	}) => {
		test.setTimeout(120_000);
		const handle = new ServiceHandle({ etag: true, push });
		await handle.start();
		try {
			const competitions = await walk<CompetitionJson>(
				new URL('/api/v1/competitions', handle.url).href,
				'competitions'
			);
			const competition = competitions.find((c) => c.state === 'IN_PROGRESS')!;
			expect(Object.hasOwn(competition._links, 'changes')).toBe(push);
			const runs = await walk<RunJson>(competition._links.competitionRuns!.href, 'competitionRuns');
			const ringId = runs[0]!.competitionRing.id;

			// Four devices: each its own browser context (a background tab is hidden and would
			// rightly not be kept current): A records, B shows the run, C the ring board, D the big
			// screen at the ring.
			const devices = await Promise.all(
				[0, 1, 2, 3].map(() => browser.newContext({ baseURL: handle.url }))
			);
			const pages = await Promise.all(devices.map((d) => d.newPage()));
			const [phoneA, runScreen, board, bigScreen] = pages as [Page, Page, Page, Page];
			for (const page of pages) await open(page, competition.name);

			// The ring board, and the run of the dog at the start.
			await board.goto(`/rings/${competition.id}/${ringId}`);
			const current = board.getByTestId('ring-current');
			await expect(current).toBeVisible();
			const first = Number(
				(await current.getByRole('link').getAttribute('href'))!.split('/').at(-1)
			);
			let runId: number | undefined;
			let runName = '';
			// Start numbers: the place in the run's start order.
			const startNo = new Map<number, number>();
			for (const run of runs.filter((r) => r.competitionRing.id === ringId)) {
				const dogRuns = await walk<{ id: number }>(run._links.dogRuns.href, 'dogRuns');
				if (!dogRuns.some((d) => d.id === first)) continue;
				runId = run.id;
				runName = run.name;
				dogRuns.forEach((d, i) => startNo.set(d.id, i + 1));
			}
			await bigScreen.goto(`/board/${competition.id}/${ringId}`);
			const atTheStart = bigScreen.getByTestId('board-start-no');
			await expect(atTheStart).toHaveText(String(startNo.get(first)));
			await expect(bigScreen.getByTestId('board-run')).toHaveText(runName);
			await runScreen.goto(`/runs/${runId}`);
			await expect(runScreen.getByTestId('dog-run').first()).toBeVisible();

			// A: the capture screen of that dog, then Save & next as at the ring.
			await phoneA.goto(`/dog-runs/${first}`);
			await expect(phoneA.getByTestId('capture')).toBeVisible();
			const target = push ? 2_500 : 8_000;
			const figures: number[] = [];
			for (let k = 0; k < 5; k++) {
				const id = Number(phoneA.url().split('/').at(-1));
				const time = `3${k},${k}1`;
				await tapTime(phoneA, time);
				await phoneA.getByTestId('save-next').click();
				const saved = Date.now();
				await expect(phoneA.getByTestId('flash')).toContainText('Saved on device');
				const row = runScreen.locator(`[data-testid=dog-run][data-dog-run-id="${id}"]`);
				await expect(row.getByTestId('time')).toHaveText(`3${k}.${k}1 s`, { timeout: target });
				figures.push(Date.now() - saved);
				// The board moved on: that dog is no longer at the start.
				await expect(current.getByRole('link')).not.toHaveAttribute('href', `/dog-runs/${id}`, {
					timeout: target
				});
				// So did the big screen (start numbers begin again in the next run: compare both).
				const shown = async () =>
					`${await bigScreen.getByTestId('board-run').textContent()} ${await atTheStart.textContent()}`;
				await expect.poll(shown, { timeout: target }).not.toBe(`${runName} ${startNo.get(id)}`);
			}
			console.log(
				`live ring (${push ? 'push' : 'polling'}): A's save → B's run screen, ms: ${figures.join(', ')}`
			);
			for (const device of devices) await device.close();
		} finally {
			await handle.dispose();
		}
	});
}
