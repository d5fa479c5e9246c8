/** The Sync screen's reads: what waits, and the ring log. Apart from $lib/db/queries (first screen). */
import { db, type DogRunRow, type OutboxEntry, type RunRow, type SyncLogRow } from './db';

/** An unsent entry with what it is about, as far as it is stored. */
export interface OutboxItem {
	entry: OutboxEntry;
	dogRun: DogRunRow | undefined;
	run: RunRow | undefined;
}

/** Every unsent entry, with its dog run and run (the Sync screen words them). */
export async function outboxItems(): Promise<OutboxItem[]> {
	const entries = await db.outbox.toArray();
	return Promise.all(
		entries.map(async (entry) => ({
			entry,
			dogRun: entry.kind === 'dogRun' ? await db.dogRuns.get(entry.resourceId) : undefined,
			run: await db.runs.get(entry.kind === 'dogRun' ? entry.runId : entry.resourceId)
		}))
	);
}

/** The newest sync log rows, and the dog runs and runs they are about. */
export async function syncLog(limit: number): Promise<{
	rows: SyncLogRow[];
	dogRuns: DogRunRow[];
	runs: RunRow[];
}> {
	const rows = await db.syncLog.orderBy('at').reverse().limit(limit).toArray();
	const ids = (kind: SyncLogRow['kind']) => [
		...new Set(rows.filter((r) => r.kind === kind).map((r) => r.resourceId))
	];
	const [dogRuns, runs] = await Promise.all([
		db.dogRuns.bulkGet(ids('dogRun')),
		db.runs.bulkGet(ids('run'))
	]);
	return {
		rows,
		dogRuns: dogRuns.filter((d): d is DogRunRow => d !== undefined),
		runs: runs.filter((r): r is RunRow => r !== undefined)
	};
}
