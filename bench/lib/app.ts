import type { Page } from '@playwright/test';
import type { BenchService } from './service.ts';

/** Rows of the service's SQLite, read directly (ids are the same the API gives). */
export function query<T>(svc: BenchService, sql: string, ...params: (string | number)[]): T[] {
	const db = svc.service.db;
	if (!db) throw new Error('the service has no database (proxy mode)');
	return db.prepare(sql).all(...params) as T[];
}

export interface CompetitionInfo {
	id: number;
	name: string;
}

export function inProgress(svc: BenchService): CompetitionInfo {
	const [row] = query<CompetitionInfo>(
		svc,
		"SELECT id, name FROM competition WHERE state = 'IN_PROGRESS' ORDER BY date_from, id LIMIT 1"
	);
	if (!row) throw new Error('no IN_PROGRESS competition');
	return row;
}

export interface RunInfo {
	id: number;
	ringId: number;
	dogRuns: number;
	recorded: number;
}

/** The competition's runs with their number of dog runs and of recorded ones. */
export function runsOf(svc: BenchService, competitionId: number): RunInfo[] {
	return query<RunInfo>(
		svc,
		`SELECT r.id AS id, r.ring_id AS ringId, COUNT(d.id) AS dogRuns,
		        SUM(d.time_cs IS NOT NULL OR d.disqualified OR d.absence) AS recorded
		 FROM competition_run r JOIN dog_run d ON d.competition_run_id = r.id
		 WHERE r.competition_id = ? GROUP BY r.id ORDER BY r.date, r.start_time, r.ring_id, r.id`,
		competitionId
	);
}

/** Dog-run ids of a run in start order (the order the capture screen's Next follows). */
export function dogRunIds(svc: BenchService, runId: number): number[] {
	return query<{ id: number }>(
		svc,
		'SELECT id FROM dog_run WHERE competition_run_id = ? ORDER BY start_no, id',
		runId
	).map((r) => r.id);
}

/** Home screen, then the competition card's "Make available offline", as a steward does. */
export async function downloadViaUi(page: Page, name: string, timeoutMs: number): Promise<number> {
	const card = page.getByTestId('competition').filter({ hasText: name });
	const t0 = Date.now();
	await card.getByRole('button', { name: 'Make available offline' }).click();
	await card.getByTestId('offline-badge').waitFor({ state: 'visible', timeout: timeoutMs });
	return Date.now() - t0;
}

/** Resolves once a service worker controls the origin (the precache is complete then). */
export async function serviceWorkerReady(page: Page): Promise<void> {
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
}
