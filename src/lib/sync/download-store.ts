/**
 * How a download's reads become the device's copy. Each run is replaced whole, in one transaction,
 * as soon as its dog-run list is read (`keepRun`; the competition's own row first, `keepCompetitionFirst`), so the storing goes on while the other lists
 * are still read; the screens read a run and its dog runs together and see it either as it was or
 * as downloaded, never half of each (as when a live update rewrites one run's list). The end is
 * one small transaction (`finishCompetition`): the competition, the runs it no longer has, the
 * download marked complete. A download that fails or is cancelled puts back what it replaced
 * (`putBack`), except rows written by someone else since (a replay's answer, a live update). An
 * app closed halfway cannot put back: each run is then as it was or as downloaded (newer), never
 * half of each, and the copy keeps the time of the last complete download until another one
 * completes. Unsent edits (the outbox) are never touched.
 */
import type { Competition, CompetitionRun } from '$lib/api/schemas';
import { db, type CompetitionRow, type DogRunRow, type RunRow } from '$lib/db/db';
import { putCompetition, putInChunks, runRow } from '$lib/db/snapshot-store';
import type { DownloadProgress } from './download';

/** What one attempt replaced: the rows as they were before it, to put back if it fails. */
export class Replaced {
	readonly competitions = new Map<number, CompetitionRow | undefined>();
	readonly runs = new Map<number, RunRow | undefined>();
	readonly dogRuns = new Map<number, DogRunRow | undefined>();

	constructor(readonly fetchedAt: number) {}
}

/**
 * Stores the competition itself before any of its runs, so a screen that shows a run stored by
 * this download finds its competition (name, rings, judges) too. What was there is noted.
 */
export async function keepCompetitionFirst(
	competition: Competition,
	replaced: Replaced
): Promise<void> {
	await db.transaction('rw', db.competitions, async () => {
		if (!replaced.competitions.has(competition.id)) {
			replaced.competitions.set(competition.id, await db.competitions.get(competition.id));
		}
		await putCompetition(competition, replaced.fetchedAt);
	});
}

/**
 * Replaces one run and its dog runs (in start order) in one transaction: the dog runs its list no
 * longer has go. What was there before is noted in `replaced`.
 */
export async function keepRun(
	run: CompetitionRun,
	competitionId: number,
	rows: readonly DogRunRow[],
	replaced: Replaced
): Promise<void> {
	const row = runRow(run, competitionId, replaced.fetchedAt);
	await db.transaction('rw', db.runs, db.dogRuns, async () => {
		const [previousRun, listed, others] = await Promise.all([
			db.runs.get(run.id),
			storedRows(rows.map((r) => r.id)),
			db.dogRuns.where('runId').equals(run.id).toArray()
		]);
		if (!replaced.runs.has(run.id)) replaced.runs.set(run.id, previousRun);
		for (const r of rows) {
			if (!replaced.dogRuns.has(r.id)) replaced.dogRuns.set(r.id, listed.get(r.id));
		}
		const ids = new Set(rows.map((r) => r.id));
		// Only this competition's: a copy of another one is not this download's to change.
		const gone = others.filter((o) => o.competitionId === competitionId && !ids.has(o.id));
		for (const other of gone) {
			if (!replaced.dogRuns.has(other.id)) replaced.dogRuns.set(other.id, other);
		}
		await db.dogRuns.bulkDelete(gone.map((other) => other.id));
		await db.runs.put(row);
		await putInChunks(db.dogRuns, rows);
	});
}

/**
 * The stored rows of these dog runs, by id: a run's ids lie close together, so they are read in one
 * request over their range rather than one request per id (each costs the page a round trip).
 */
async function storedRows(ids: readonly number[]): Promise<Map<number, DogRunRow>> {
	const rows = new Map<number, DogRunRow>();
	if (ids.length === 0) return rows;
	const low = Math.min(...ids);
	const high = Math.max(...ids);
	const found =
		high - low < 2 * ids.length
			? await db.dogRuns.where('id').between(low, high, true, true).toArray()
			: await db.dogRuns.bulkGet([...ids]);
	const wanted = new Set(ids);
	for (const row of found) if (row && wanted.has(row.id)) rows.set(row.id, row);
	return rows;
}

/**
 * The end of a download whose runs are all kept: the competition's row, the runs (and dog runs)
 * it no longer has removed, and the download recorded as complete, in one small transaction.
 */
export async function finishCompetition(
	competition: Competition,
	runs: readonly CompetitionRun[],
	dogRuns: readonly { id: number }[],
	progress: DownloadProgress,
	fetchedAt: number,
	now: () => number
): Promise<void> {
	await db.transaction('rw', [db.competitions, db.runs, db.dogRuns, db.downloads], async () => {
		const [previous, storedRuns, stored] = await Promise.all([
			db.downloads.get(competition.id),
			db.runs.where('competitionId').equals(competition.id).primaryKeys(),
			db.dogRuns.where('competitionId').equals(competition.id).primaryKeys()
		]);
		await db.runs.bulkDelete(othersThan(storedRuns, runs));
		await db.dogRuns.bulkDelete(othersThan(stored, dogRuns));
		await putCompetition(competition, fetchedAt);
		await db.downloads.put({
			competitionId: competition.id,
			state: 'complete',
			startedAt: previous?.startedAt ?? fetchedAt,
			completedAt: now(),
			runsTotal: progress.runsTotal,
			runsDone: progress.runsDone,
			dogRunsStored: progress.dogRunsStored,
			error: null
		});
	});
}

/**
 * After a failed or cancelled attempt: every row it replaced as it was before, in one transaction.
 * A row written since by someone else (its `fetchedAt` is not the attempt's) is newer than both
 * and stays.
 */
export async function putBack(replaced: Replaced): Promise<void> {
	if (replaced.competitions.size + replaced.runs.size + replaced.dogRuns.size === 0) return;
	await db.transaction('rw', db.competitions, db.runs, db.dogRuns, async () => {
		const competitionIds = [...replaced.competitions.keys()];
		const runIds = [...replaced.runs.keys()];
		const dogRunIds = [...replaced.dogRuns.keys()];
		const [competitions, runs, dogRuns] = await Promise.all([
			db.competitions.bulkGet(competitionIds),
			db.runs.bulkGet(runIds),
			db.dogRuns.bulkGet(dogRunIds)
		]);
		const ours = (row: { fetchedAt: number } | undefined) =>
			row === undefined || row.fetchedAt === replaced.fetchedAt;
		const back = <T extends { id: number; fetchedAt: number }>(
			ids: number[],
			now: (T | undefined)[],
			before: Map<number, T | undefined>
		) => {
			const puts: T[] = [];
			const deletes: number[] = [];
			ids.forEach((id, i) => {
				if (!ours(now[i])) return;
				const was = before.get(id);
				if (was) puts.push(was);
				else if (now[i]) deletes.push(id);
			});
			return { puts, deletes };
		};
		const c = back(competitionIds, competitions, replaced.competitions);
		const r = back(runIds, runs, replaced.runs);
		const d = back(dogRunIds, dogRuns, replaced.dogRuns);
		await db.competitions.bulkDelete(c.deletes);
		await db.competitions.bulkPut(c.puts);
		await db.runs.bulkDelete(r.deletes);
		await db.dogRuns.bulkDelete(d.deletes);
		await db.runs.bulkPut(r.puts);
		await putInChunks(db.dogRuns, d.puts);
	});
}

/** The stored ids not among the rows just read: what the competition no longer has. */
function othersThan(stored: readonly number[], rows: readonly { id: number }[]): number[] {
	const ids = new Set(rows.map((row) => row.id));
	return stored.filter((id) => !ids.has(id));
}
