/**
 * The reads of a ring's screens (the ring board, the ring's queue): apart from $lib/db/queries so
 * that the first screen does not load them.
 */
import { db, type DogRunRow, type OutboxEntry, type RunRow } from './db';
import type { EntriesByKey } from './keys';

const byKey = (entries: readonly OutboxEntry[]): EntriesByKey =>
	new Map(entries.map((e) => [e.key, e]));

/** The order of a ring's runs: by day, then start time (ties by id, so the order is stable). */
export function ringOrder(a: RunRow, b: RunRow): number {
	return a.date.localeCompare(b.date) || a.startTime.localeCompare(b.startTime) || a.id - b.id;
}

/** One run of a ring with its dog runs in start order. */
export interface RingRun {
	run: RunRow;
	dogRuns: readonly DogRunRow[];
}

export interface RingRuns {
	/** The ring's runs in order, each with its stored dog runs, as far as `enough` needed. */
	runs: RingRun[];
	/** The competition's unsent edits, by outbox key. */
	entries: EntriesByKey;
	/** Runs read that have no dog runs on the device (to be read from the service while online). */
	missing: RunRow[];
	/** How many runs the ring has on the device. */
	ringRuns: number;
}

/**
 * A ring's runs in order, each with its dog runs, read one run at a time until `enough` says the
 * screen has what it shows (the ring board: the dog at the start and the next five; the ring's
 * queue: its first dogs waiting). The runs before are read too: the first run with a dog waiting
 * is the current one.
 */
export async function ringRunsUntil(
	competitionId: number,
	ringId: number,
	enough: (loaded: readonly RingRun[], entries: EntriesByKey) => boolean
): Promise<RingRuns> {
	const ordered = (
		await db.runs.where('[competitionId+ringId]').equals([competitionId, ringId]).toArray()
	).sort(ringOrder);
	const entries = byKey(await db.outbox.where('competitionId').equals(competitionId).toArray());
	const runs: RingRun[] = [];
	for (const run of ordered) {
		const dogRuns = await db.dogRuns
			.where('[runId+order]')
			.between([run.id, 0], [run.id, Infinity])
			.toArray();
		runs.push({ run, dogRuns });
		if (enough(runs, entries)) break;
	}
	const missing = runs.filter((r) => r.dogRuns.length === 0).map((r) => r.run);
	return { runs, entries, missing, ringRuns: ordered.length };
}
