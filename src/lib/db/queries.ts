/**
 * Every read a screen makes, by name: screens ask for what they show (`captureView`,
 * `ringRunsUntil`, `runEntries`, …) and never touch Dexie; its tables, indexes and keys stay in
 * this folder. Each is a plain async function, run by the screens' live queries
 * ($lib/ui/state/live.svelte), which read again whenever what it read changes.
 */
import {
	db,
	type CompetitionRow,
	type DogRunRow,
	type DownloadRow,
	type OutboxEntry,
	type OutboxStatus,
	type RunRow
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

/** Every competition this device has read (downloaded or only listed). */
export function knownCompetitions(): Promise<CompetitionRow[]> {
	return db.competitions.toArray();
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

/** Another tab opened a newer version of the database: this one must reload. */
export function onDatabaseOutdated(listener: () => void): () => void {
	return db.subscribeVersionChange(listener);
}
