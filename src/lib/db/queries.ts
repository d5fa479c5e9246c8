/**
 * Every read a screen makes, by name: screens ask for what they show (`captureView`,
 * `ringRunsUntil`, `runEntries`, …) and never touch Dexie; its tables, indexes and keys stay in
 * this folder. Each is a plain async function, run by the screens' live queries
 * ($lib/ui/live.svelte), which read again whenever what it read changes.
 */
import { hasRun } from '$lib/domain/overlay';
import {
	db,
	type CompetitionRow,
	type DogRunRow,
	type DownloadRow,
	type OutboxEntry,
	type OutboxStatus,
	type RunRow,
	type SyncLogRow
} from './db';
import { outboxKey, unsentFor, type EntriesByKey } from './keys';
import { dogRunsInOrder } from './snapshot-store';

export { dogRunsInOrder };
/** The key of a dog run's or run's outbox entry (and of its sync log rows). */
export { outboxKey as entryKey };

export { unsentFor, type EntriesByKey };

const byKey = (entries: readonly OutboxEntry[]): EntriesByKey =>
	new Map(entries.map((e) => [e.key, e]));

export function competition(id: number): Promise<CompetitionRow | undefined> {
	return db.competitions.get(id);
}

export function download(competitionId: number): Promise<DownloadRow | undefined> {
	return db.downloads.get(competitionId);
}

export function downloads(): Promise<DownloadRow[]> {
	return db.downloads.toArray();
}

/** The competitions made available offline (completed downloads), with their download rows. */
export async function storedCompetitions(): Promise<
	{ download: DownloadRow; competition: CompetitionRow }[]
> {
	const rows = (await db.downloads.toArray()).filter((r) => r.completedAt != null);
	const competitions = await db.competitions.bulkGet(rows.map((r) => r.competitionId));
	return rows.flatMap((download, i) => {
		const competition = competitions[i];
		return competition ? [{ download, competition }] : [];
	});
}

/** The competitions with a download on this device, complete or not (the event's). */
export async function downloadedCompetitions(): Promise<CompetitionRow[]> {
	const ids = (await db.downloads.toArray()).map((d) => d.competitionId);
	return db.competitions.where('id').anyOf(ids).toArray();
}

/** Every run of a competition: by day, ring, start time (ties by id, a stable order). */
export async function competitionRuns(competitionId: number): Promise<RunRow[]> {
	return (await db.runs.where('competitionId').equals(competitionId).toArray()).sort(
		(a, b) =>
			a.date.localeCompare(b.date) ||
			a.ringId - b.ringId ||
			a.startTime.localeCompare(b.startTime) ||
			a.id - b.id
	);
}

export function run(id: number): Promise<RunRow | undefined> {
	return db.runs.get(id);
}

/** Some stored runs by id (those not stored are left out). */
export async function runsById(ids: readonly number[]): Promise<RunRow[]> {
	return (await db.runs.bulkGet([...ids])).filter((r): r is RunRow => r !== undefined);
}

export function dogRun(id: number): Promise<DogRunRow | undefined> {
	return db.dogRuns.get(id);
}

/** A run's unsent edits (its dog runs' and its own), by outbox key. */
export async function runEntries(runId: number): Promise<EntriesByKey> {
	return byKey(await db.outbox.where('runId').equals(runId).toArray());
}

/** A run with its dog runs in start order and its unsent edits: what a run's outputs read. */
export async function runWithDogRuns(
	id: number
): Promise<{ run: RunRow; dogRuns: DogRunRow[]; entries: EntriesByKey } | undefined> {
	const run = await db.runs.get(id);
	if (!run) return undefined;
	const [dogRuns, entries] = await Promise.all([dogRunsInOrder(id), runEntries(id)]);
	return { run, dogRuns, entries };
}

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

export interface OutboxSummary {
	counts: Record<OutboxStatus, number>;
	/** When the oldest entry was made; null when there is none. */
	oldest: number | null;
	/** When the earliest pending entry is due; null when none is pending. */
	dueAt: number | null;
}

/** What the sync bar and the replay scheduler need of the outbox. */
export async function outboxSummary(): Promise<OutboxSummary> {
	const counts: Record<OutboxStatus, number> = { pending: 0, sending: 0, conflict: 0, failed: 0 };
	let oldest: number | null = null;
	let dueAt: number | null = null;
	for (const entry of await db.outbox.toArray()) {
		counts[entry.status] += 1;
		oldest = oldest === null ? entry.createdAt : Math.min(oldest, entry.createdAt);
		if (entry.status === 'pending') {
			dueAt = dueAt === null ? entry.nextAttemptAt : Math.min(dueAt, entry.nextAttemptAt);
		}
	}
	return { counts, oldest, dueAt };
}

/** When this device last had something accepted by the service; null when never (of late). */
export async function lastSentAt(): Promise<number | null> {
	const rows = await db.syncLog.orderBy('at').reverse().limit(50).toArray();
	return rows.find((r) => r.action === 'sent' || r.action === 'already-applied')?.at ?? null;
}

export function unsentCount(): Promise<number> {
	return db.outbox.count();
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

/** Another tab opened a newer version of the database: this one must reload. */
export function onDatabaseOutdated(listener: () => void): () => void {
	return db.subscribeVersionChange(listener);
}
