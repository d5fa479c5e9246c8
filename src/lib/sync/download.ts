import type { HalClient } from '$lib/api/hal-client';
import { requireLink } from '$lib/api/links';
import {
	CompetitionRunSchema,
	CompetitionSchema,
	DogRunSchema,
	type Competition,
	type CompetitionRun
} from '$lib/api/schemas';
import { db, type DogRunRow, type DownloadRow, type RunRow } from '$lib/db/db';
import { dogRunRow, runRow } from '$lib/db/snapshot-store';
import { runPool } from './pool';
import { errorRecord } from './errors';

export interface DownloadProgress {
	runsTotal: number;
	runsDone: number;
	dogRunsStored: number;
}

export interface DownloadOptions {
	/** Requests in flight at once (runs' dog-run lists are read in parallel). */
	concurrency?: number;
	signal?: AbortSignal;
	onProgress?: (progress: DownloadProgress) => void;
	/** The competition's id when known: a failure to read it at all is then recorded too. */
	competitionId?: number;
	now?: () => number;
}

export const DEFAULT_DOWNLOAD_CONCURRENCY = 6;

/**
 * Makes a competition available offline: the competition, all its runs and all dog runs of every
 * run, following links only. Everything is read first and stored in one transaction at the end,
 * so a download that fails or is cancelled halfway leaves the previous copy as it was; trying
 * again starts over cleanly. Unsent edits (the outbox) are never touched.
 */
export async function downloadCompetition(
	client: HalClient,
	competitionHref: string,
	options: DownloadOptions = {}
): Promise<DownloadProgress> {
	const now = options.now ?? Date.now;
	const concurrency = options.concurrency ?? DEFAULT_DOWNLOAD_CONCURRENCY;
	const progress: DownloadProgress = { runsTotal: 0, runsDone: 0, dogRunsStored: 0 };
	const report = () => options.onProgress?.({ ...progress });

	let competition: Competition;
	try {
		competition = (await client.get(competitionHref, CompetitionSchema, options)).body;
	} catch (error) {
		if (options.competitionId !== undefined) {
			const previous = await db.downloads.get(options.competitionId);
			await markDownload(options.competitionId, previous, failure(error, options.signal, progress));
		}
		throw error;
	}
	const previous = await db.downloads.get(competition.id);
	await markDownload(competition.id, previous, { state: 'running', startedAt: now() });
	try {
		const runs = await readRuns(client, competition, options);
		progress.runsTotal = runs.length;
		report();

		const fetchedAt = now();
		const dogRunRows: DogRunRow[][] = new Array(runs.length);
		await runPool(runs, concurrency, async (run, index) => {
			const rows: DogRunRow[] = [];
			const href = requireLink(run._links, 'dogRuns').href;
			for await (const page of client.pages(href, 'dogRuns', DogRunSchema, options)) {
				for (const dogRun of page.items) {
					rows.push(dogRunRow(dogRun, run.id, competition.id, rows.length, fetchedAt));
				}
				progress.dogRunsStored += page.items.length;
				report();
			}
			dogRunRows[index] = rows;
			progress.runsDone += 1;
			report();
		});
		options.signal?.throwIfAborted();

		const runRows: RunRow[] = runs.map((run) => runRow(run, competition.id, fetchedAt));
		await db.transaction('rw', [db.competitions, db.runs, db.dogRuns, db.downloads], async () => {
			await db.runs.where('competitionId').equals(competition.id).delete();
			await db.dogRuns.where('competitionId').equals(competition.id).delete();
			await db.competitions.put({
				id: competition.id,
				href: competition._links.self.href,
				data: competition,
				fetchedAt
			});
			await db.runs.bulkPut(runRows);
			await db.dogRuns.bulkPut(dogRunRows.flat());
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
		return progress;
	} catch (error) {
		await markDownload(competition.id, previous, failure(error, options.signal, progress));
		throw error;
	}
}

/** How a download ended when it did not complete: cancelled, or failed and why. */
function failure(
	error: unknown,
	signal: AbortSignal | undefined,
	progress: DownloadProgress
): Partial<DownloadRow> {
	const aborted = signal?.aborted === true;
	return {
		state: aborted ? 'cancelled' : 'failed',
		runsTotal: progress.runsTotal,
		runsDone: progress.runsDone,
		dogRunsStored: progress.dogRunsStored,
		error: aborted ? null : errorRecord(error)
	};
}

async function readRuns(
	client: HalClient,
	competition: Competition,
	options: DownloadOptions
): Promise<CompetitionRun[]> {
	const runs: CompetitionRun[] = [];
	const href = requireLink(competition._links, 'competitionRuns').href;
	for await (const page of client.pages(href, 'competitionRuns', CompetitionRunSchema, options)) {
		runs.push(...page.items);
	}
	return runs;
}

/** Records the state of a download while keeping when the stored copy was last completed. */
async function markDownload(
	competitionId: number,
	previous: DownloadRow | undefined,
	patch: Partial<DownloadRow>
): Promise<void> {
	await db.downloads.put({
		competitionId,
		state: 'running',
		startedAt: Date.now(),
		completedAt: previous?.completedAt ?? null,
		runsTotal: 0,
		runsDone: 0,
		dogRunsStored: 0,
		error: null,
		...patch
	});
}

/**
 * Removes a downloaded competition from the device. Refused while it has unsent edits: those are
 * the steward's results and leave the device only through the service or an explicit discard.
 */
export async function removeDownload(competitionId: number): Promise<'removed' | 'has-unsent'> {
	return db.transaction(
		'rw',
		[db.competitions, db.runs, db.dogRuns, db.downloads, db.outbox],
		async () => {
			const unsent = await db.outbox.where('competitionId').equals(competitionId).count();
			if (unsent > 0) return 'has-unsent';
			await db.runs.where('competitionId').equals(competitionId).delete();
			await db.dogRuns.where('competitionId').equals(competitionId).delete();
			await db.downloads.delete(competitionId);
			return 'removed';
		}
	);
}
