import { expect, test } from './fixtures';
import { readStore } from './support/device-store';
import { makeAvailableOffline, unrecordedRun } from './support/service-data';
import { tapTime } from './support/keypad';

/**
 * A struggling service (every request answered 503) and one phone open at the ring, where the
 * steward goes on recording and everything that triggers a replay happens (saves, the app coming
 * back into view, the signal dropping for a moment): each unsent result is tried once per backoff
 * delay, never before its next attempt is due and not much after it either. One sent as the
 * signal dropped got no answer: it goes again as soon as the service answers, by design.
 */

interface LogRow {
	at: number;
	key: string;
	action: string;
	/** The answer's status; null: no answer (the signal dropped while it was sent). */
	status: number | null;
	nextAttemptAt?: number;
}

/** How late an attempt may be after it is due: the wake-up, the lock, the request. */
const LATE_MS = 2_500;
const WATCH_MS = 36_000;

test('against an always-503 service, each edit is tried once per backoff delay', async ({
	page,
	context,
	handle
}) => {
	test.setTimeout(90_000);
	const { competition, dogRuns } = await unrecordedRun(handle.url);
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, competition.name);
	await page.goto(`/dog-runs/${dogRuns[0]!.id}`);
	await expect(page.getByTestId('capture')).toBeVisible();
	handle.service.setFaults({ error503Rate: 1 });

	const started = Date.now();
	let dog = 0;
	for (let step = 0; Date.now() - started < WATCH_MS; step++) {
		const kind = step % 3;
		if (kind === 0 && dog < 6) {
			// The steward records the dog on screen and moves on: a save triggers a replay.
			await tapTime(page, `3${dog},5`);
			await page.getByTestId('save-next').click();
			await expect(page).toHaveURL(new RegExp(`/dog-runs/${dogRuns[dog + 1]!.id}$`));
			dog++;
		} else if (kind === 1) {
			// The phone comes back from the pocket.
			await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
		} else {
			// The signal drops for a moment.
			await context.setOffline(true);
			await page.waitForTimeout(200);
			await context.setOffline(false);
		}
		await page.waitForTimeout(3_000);
	}
	const end = Date.now();

	const retries = (await readStore<LogRow>(page, 'syncLog')).filter((r) => r.action === 'retry');
	const byKey = new Map<string, LogRow[]>();
	for (const row of retries) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
	expect(byKey.size).toBe(dog);
	const report: string[] = [];
	for (const [key, rows] of byKey) {
		rows.sort((a, b) => a.at - b.at);
		report.push(
			`${key}: ${rows.map((r) => `${((r.at - started) / 1000).toFixed(1)}s${r.status === null ? ' (no answer)' : ''}→${(((r.nextAttemptAt ?? 0) - started) / 1000).toFixed(1)}s`).join(' ')}`
		);
		for (const [i, row] of rows.entries()) {
			expect(row.nextAttemptAt, `${key}: a retry says when it is due`).toBeGreaterThan(row.at);
			const next = rows[i + 1];
			const due = row.nextAttemptAt!;
			// Never before it is due. An attempt that got no answer (sent as the signal dropped) is
			// due again as soon as the service answers (reachability.ts, waitsOnlyForService).
			if (next && row.status !== null)
				expect(next.at, `${key} tried early\n${report.join('\n')}`).toBeGreaterThanOrEqual(due);
			// Not left waiting long after it is due while the app is open.
			if (due + LATE_MS < end) {
				expect(next, `${key} not tried when due\n${report.join('\n')}`).toBeDefined();
				expect(next!.at, `${key} tried late\n${report.join('\n')}`).toBeLessThanOrEqual(
					due + LATE_MS
				);
			}
		}
	}
	// The first dog's edit went through the early backoff steps (2 s, 4 s, 8 s, 16 s ceilings).
	expect(byKey.get(`dogRun:${dogRuns[0]!.id}`)!.length).toBeGreaterThanOrEqual(4);
	console.log(report.join('\n'));
});
