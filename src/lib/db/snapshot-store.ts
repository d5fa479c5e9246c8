import type { Competition, CompetitionRun, DogRun, EmbeddedCompetitionRun } from '$lib/api/schemas';
import type { Table } from 'dexie';
import { db, type DogRunRow, type DogRunSnapshot, type ResourceKind, type RunRow } from './db';

/** Rows per write of `putInChunks`. */
export const PUT_CHUNK = 250;

/**
 * Writes `rows` a chunk at a time, inside the caller's transaction (so still all or nothing):
 * turning thousands of rows into stored records is then several short tasks, not one long one
 * that freezes the screen (a run of 1,000 dogs read again on a visit, an event downloaded).
 */
export async function putInChunks<T>(table: Table<T>, rows: readonly T[]): Promise<void> {
	for (let from = 0; from < rows.length; from += PUT_CHUNK) {
		await table.bulkPut(rows.slice(from, from + PUT_CHUNK));
	}
}

/** Drops the competition run a dog run embeds: it is stored once, in `runs`. */
export function dogRunSnapshot(dogRun: DogRun): DogRunSnapshot {
	const { competitionRun: _embedded, ...rest } = dogRun;
	return rest;
}

export function runRow(run: CompetitionRun, competitionId: number, now: number): RunRow {
	return {
		id: run.id,
		competitionId,
		href: run._links.self.href,
		date: run.date,
		startTime: run.startTime,
		ringId: run.competitionRing.id,
		judgeId: run.judge.id,
		data: run,
		fetchedAt: now
	};
}

export function dogRunRow(
	dogRun: DogRun,
	runId: number,
	competitionId: number,
	order: number,
	now: number
): DogRunRow {
	return {
		id: dogRun.id,
		runId,
		competitionId,
		order,
		href: dogRun._links.self.href,
		data: dogRunSnapshot(dogRun),
		fetchedAt: now
	};
}

/**
 * Replaces the stored snapshot of one dog run with what the server just sent, keeping its place in
 * the start order. Returns false when the dog run is not stored (not downloaded): nothing to update.
 * Only snapshots change here: unsent edits live in the outbox and stay laid over them.
 */
export async function putDogRunSnapshot(dogRun: DogRun, now = Date.now()): Promise<boolean> {
	return (await putDogRunSnapshots([dogRun], now)) > 0;
}

export interface DogRunSnapshotOptions {
	/**
	 * Dog runs whose row is left as it is when it already holds exactly what the server sent (same
	 * href, same data): rewriting it would change only `fetchedAt`. Each one left so is reported to
	 * `unchanged`, whose caller owes it a `touchDogRunSnapshots` unless it rewrites the row anyway.
	 */
	keepIfSame?: ReadonlySet<number>;
	unchanged?: (dogRunId: number) => void;
}

/**
 * Replaces the stored snapshots of dog runs, in order (a later answer for the same dog run wins), in
 * one transaction. The run each one embeds carries the run's fresh progress; the stored run is
 * rewritten only when that changes it, so a batch of a run's dog runs writes it at most once.
 * Returns how many dog runs were stored: those not downloaded are skipped.
 */
export async function putDogRunSnapshots(
	dogRuns: readonly DogRun[],
	now = Date.now(),
	options: DogRunSnapshotOptions = {}
): Promise<number> {
	if (dogRuns.length === 0) return 0;
	const { keepIfSame, unchanged } = options;
	return db.transaction('rw', db.dogRuns, db.runs, async () => {
		const existing = await dogRunRows(dogRuns.map((d) => d.id));
		const rows = new Map<number, DogRunRow>();
		const same = new Set<number>();
		const progress = new Map<number, EmbeddedCompetitionRun>();
		for (const dogRun of dogRuns) {
			const row = existing.get(dogRun.id);
			if (!row) continue;
			const href = dogRun._links.self.href;
			const data = dogRunSnapshot(dogRun);
			progress.set(row.runId, { ...progress.get(row.runId), ...dogRun.competitionRun });
			// Same keys in the same order when nothing changed (both come from the service's JSON).
			if (
				keepIfSame?.has(row.id) &&
				href === row.href &&
				JSON.stringify(data) === JSON.stringify(row.data)
			) {
				rows.delete(row.id);
				same.add(row.id);
				continue;
			}
			same.delete(row.id);
			rows.set(row.id, { ...row, href, data, fetchedAt: now });
		}
		if (rows.size + same.size === 0) return 0;
		if (rows.size > 0) await db.dogRuns.bulkPut([...rows.values()]);

		const runs: RunRow[] = [];
		for (const run of await db.runs.bulkGet([...progress.keys()])) {
			if (!run) continue;
			const data = { ...run.data, ...progress.get(run.id), _links: run.data._links };
			// Same keys in the same order when nothing changed: the strings match.
			if (JSON.stringify(data) !== JSON.stringify(run.data))
				runs.push({ ...run, data, fetchedAt: now });
		}
		if (runs.length > 0) await db.runs.bulkPut(runs);
		if (unchanged) for (const id of same) unchanged(id);
		return rows.size + same.size;
	});
}

/**
 * The stored rows of these dog runs, by id. Ids close together (a page of a run's list, the answers
 * to its PUTs) are read in one request over their range rather than one request per id.
 */
async function dogRunRows(ids: readonly number[]): Promise<Map<number, DogRunRow>> {
	const wanted = [...new Set(ids)];
	const rows = new Map<number, DogRunRow>();
	if (wanted.length === 0) return rows;
	const low = Math.min(...wanted);
	const high = Math.max(...wanted);
	const dense = Number.isSafeInteger(low) && high - low < 2 * wanted.length;
	const found = dense
		? await db.dogRuns.where('id').between(low, high, true, true).toArray()
		: await db.dogRuns.bulkGet(wanted);
	const keep = new Set(wanted);
	for (const row of found) if (row && keep.has(row.id)) rows.set(row.id, row);
	return rows;
}

/**
 * Marks stored dog runs as known current at the given times (dog-run id → time), for rows left
 * unrewritten because the server sent what they held. `fetchedAt` never goes back, and moves only
 * when it is more than `olderThanMs` behind.
 */
export async function touchDogRunSnapshots(
	times: ReadonlyMap<number, number>,
	olderThanMs = 0
): Promise<void> {
	if (times.size === 0) return;
	await db.transaction('rw', db.dogRuns, async () => {
		const ids = [...times.keys()];
		const rows: DogRunRow[] = [];
		for (const row of await db.dogRuns.bulkGet(ids)) {
			const at = row && times.get(row.id);
			if (row && at !== undefined && row.fetchedAt < at - olderThanMs) {
				rows.push({ ...row, fetchedAt: at });
			}
		}
		if (rows.length > 0) await db.dogRuns.bulkPut(rows);
	});
}

/** Replaces the stored snapshot of one competition run (course parameters, progress). */
export async function putRunSnapshot(run: CompetitionRun, now = Date.now()): Promise<boolean> {
	return db.transaction('rw', db.runs, async () => {
		const existing = await db.runs.get(run.id);
		if (!existing) return false;
		await db.runs.put(runRow(run, existing.competitionId, now));
		return true;
	});
}

/** Stores a competition's own resource (name, dates, rings, judges). */
export async function putCompetition(competition: Competition, now = Date.now()): Promise<void> {
	await db.competitions.put({
		id: competition.id,
		href: competition._links.self.href,
		data: competition,
		fetchedAt: now
	});
}

/** Start positions per read of dogRunsInOrder. */
const READ_WINDOW = 200;

/**
 * A run's dog runs in start order, for a screen that shows them live. Read in an explicit
 * read-only transaction (one consistent read), which Dexie's live-query cache leaves alone: it
 * would deep-copy every row on every change. And read in windows of READ_WINDOW start positions,
 * one request each, so that turning 1,000 stored rows into objects is spread over several short
 * tasks instead of one long one. Rows sharing a position (a stale row next to a fresh one) stay
 * together, in the index's order, as a single read would give them.
 */
export function dogRunsInOrder(runId: number): Promise<DogRunRow[]> {
	return db.transaction('r', db.dogRuns, async () => {
		const last = await db.dogRuns
			.where('[runId+order]')
			.between([runId, 0], [runId, Infinity])
			.last();
		const rows: DogRunRow[] = [];
		if (!last) return rows;
		for (let from = 0; from <= last.order; from += READ_WINDOW) {
			const window = await db.dogRuns
				.where('[runId+order]')
				.between([runId, from], [runId, from + READ_WINDOW])
				.toArray();
			for (const row of window) rows.push(row);
		}
		return rows;
	});
}

/** Lays field values the server holds over a stored snapshot (no-op when it is not stored). */
export async function patchSnapshot(
	kind: ResourceKind,
	resourceId: number,
	values: Readonly<Record<string, unknown>>,
	now: number
): Promise<void> {
	if (Object.keys(values).length === 0) return;
	if (kind === 'dogRun') {
		const row = await db.dogRuns.get(resourceId);
		if (row) {
			const data: DogRunSnapshot = { ...row.data, ...values };
			await db.dogRuns.put({ ...row, data, fetchedAt: now });
		}
	} else {
		const row = await db.runs.get(resourceId);
		if (row) {
			const data: CompetitionRun = { ...row.data, ...values };
			await db.runs.put({ ...row, data, fetchedAt: now });
		}
	}
}
