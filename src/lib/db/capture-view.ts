/**
 * The capture screen's read ($lib/db/queries has the other screens'): apart, so that the first
 * screen does not load what only the capture screen needs.
 */
import { hasRun } from '$lib/domain/overlay';
import { db, type DogRunRow, type OutboxEntry, type RunRow } from './db';
import { outboxKey } from './keys';

const byKey = (entries: readonly OutboxEntry[]) => new Map(entries.map((e) => [e.key, e]));

/** What the capture screen shows of one dog run. */
export interface CaptureView {
	row: DogRunRow;
	run: RunRow | undefined;
	/** The dog run's unsent edit, and its run's (the course). */
	entry: OutboxEntry | undefined;
	runEntry: OutboxEntry | undefined;
	/** The run's dog runs in start order (ids). */
	siblings: number[];
	/** The next dogs in start order that have not run yet: whom to call to the start. */
	nextUp: DogRunRow[];
}

/**
 * The capture screen's read: the dog run, its run, their unsent edits, the run's order, and the
 * next `nextUp` dogs still to run. Keys only for the run's order, and only as many rows after this
 * dog as it takes to find the next few without a result: it runs again on every outbox change.
 */
export async function captureView(id: number, nextUp: number): Promise<CaptureView | null> {
	const row = await db.dogRuns.get(id);
	if (!row) return null;
	const inRun = (from: number) =>
		db.dogRuns.where('[runId+order]').between([row.runId, from], [row.runId, Infinity]);
	const [run, entries, siblings] = await Promise.all([
		db.runs.get(row.runId),
		db.outbox.where('runId').equals(row.runId).toArray(),
		inRun(0).primaryKeys()
	]);
	const keyed = byKey(entries);
	const next = await inRun(row.order + 1)
		.filter((r) => !hasRun(r.data, keyed.get(outboxKey('dogRun', r.id))))
		.limit(nextUp)
		.toArray();
	return {
		row,
		run,
		entry: keyed.get(outboxKey('dogRun', id)),
		runEntry: keyed.get(outboxKey('run', row.runId)),
		siblings,
		nextUp: next
	};
}
