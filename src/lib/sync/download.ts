/**
 * Making a competition available offline: read it in full by links (patiently, several runs at a
 * time, with progress), each run kept whole as soon as its list is read (./download-store), the
 * end in one small transaction. Long because it is one flow in two steps (readCompetition for the
 * search's cold open too, which keeps a competition read in memory with keepCompetition), with its
 * progress and its cancelling; the patience is ./patience's, the rows ../db/snapshot-store's.
 */
import type { HalClient, PageResult } from '$lib/api/hal-client';
import { findLink, requireLink } from '$lib/api/links';
import {
	CompetitionRunSchema,
	CompetitionSchema,
	DogRunSchema,
	type Competition,
	type CompetitionRun
} from '$lib/api/schemas';
import { db, type DogRunRow, type DownloadRow, type RunRow } from '$lib/db/db';
import { dogRunRow, putInChunks, runRow } from '$lib/db/snapshot-store';
import type * as v from 'valibot';
import { ListOrder, RUNS_LIST_RANK, type ListRank } from './list-order';
import { PrioritySlots } from './pool';
import {
	finishCompetition,
	keepCompetitionFirst,
	keepRun,
	putBack,
	Replaced
} from './download-store';
import { errorRecord } from './errors';
import { patientPages, patiently, type Patience } from './patience';
import { reachability } from './reachability';

export { BUSY_TRIES } from './patience';

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
	/**
	 * The wait before asking again after a busy answer (503, 429): the app's one backoff policy
	 * for background requests ($lib/sync/reachability), Retry-After included.
	 */
	busyDelayMs?: () => number;
}

export const DEFAULT_DOWNLOAD_CONCURRENCY = 6;

/** A competition as read from the service, every run and dog run, not stored yet. */
export interface CompetitionRead {
	competition: Competition;
	runs: CompetitionRun[];
	/** Every dog run of every run, each run's in start order. */
	dogRuns: DogRunRow[];
	progress: DownloadProgress;
	fetchedAt: number;
}

/**
 * Makes a competition available offline: the competition, all its runs and all dog runs of every
 * run, following links only. Each run is stored whole, in one transaction, as soon as its list is
 * read, while the other lists are read (the screens see a run as it was or as downloaded, never
 * half of each); the end is one small transaction. A download that fails or is cancelled halfway
 * puts back what it had replaced, so the previous copy stays as it was; trying again starts over
 * cleanly. Unsent edits (the outbox) are never touched.
 */
export async function downloadCompetition(
	client: HalClient,
	competitionHref: string,
	options: DownloadOptions = {}
): Promise<DownloadProgress> {
	const now = options.now ?? Date.now;
	const patient = patienceOf(options);

	let competition: Competition;
	try {
		competition = (
			await patiently(() => client.get(competitionHref, CompetitionSchema, options), patient)
		).body;
	} catch (error) {
		if (options.competitionId !== undefined) {
			const previous = await db.downloads.get(options.competitionId);
			await markDownload(
				options.competitionId,
				previous,
				failure(error, options.signal, emptyProgress())
			);
		}
		throw error;
	}
	const previous = await db.downloads.get(competition.id);
	await markDownload(competition.id, previous, { state: 'running', startedAt: now() });
	let progress = emptyProgress();
	const replaced = new Replaced(now());
	try {
		await keepCompetitionFirst(competition, replaced);
		const read = await readCompetition(
			client,
			competition,
			{
				...options,
				onProgress: (p) => {
					progress = p;
					options.onProgress?.(p);
				}
			},
			replaced
		);
		await finishCompetition(
			competition,
			read.runs,
			read.dogRuns,
			read.progress,
			read.fetchedAt,
			now
		);
		return read.progress;
	} catch (error) {
		await putBack(replaced);
		await markDownload(competition.id, previous, failure(error, options.signal, progress));
		throw error;
	}
}

const emptyProgress = (): DownloadProgress => ({ runsTotal: 0, runsDone: 0, dogRunsStored: 0 });

function patienceOf(options: DownloadOptions): Patience {
	return {
		signal: options.signal,
		busyDelayMs: options.busyDelayMs ?? (() => reachability.backgroundDelayMs(Math.random))
	};
}

/**
 * Reads every run of a competition and every dog run of each, following its links, and keeps
 * them in memory. Stores nothing (keepCompetition stores such a read, in one transaction) unless
 * `keep` is given: then each run is stored as soon as its list is read, what it replaced noted
 * there. The runs' dog-run lists are read as soon as each page of runs comes in, all of them
 * sharing `concurrency` slots; the first failure stops new requests and is thrown once the ones in
 * flight (and their storing) have settled.
 */
export async function readCompetition(
	client: HalClient,
	competition: Competition,
	options: DownloadOptions = {},
	keep?: Replaced
): Promise<CompetitionRead> {
	const now = options.now ?? Date.now;
	const concurrency = options.concurrency ?? DEFAULT_DOWNLOAD_CONCURRENCY;
	const progress = emptyProgress();
	const report = () => options.onProgress?.({ ...progress });
	const patient = patienceOf(options);
	const pages = <const TName extends string, T>(
		href: string,
		collection: TName,
		item: v.GenericSchema<unknown, T>
	) => patientPages(client, href, collection, item, patient);

	const fetchedAt = keep?.fetchedAt ?? now();
	const runs: CompetitionRun[] = [];
	const dogRunRows: DogRunRow[][] = [];
	const slots = new PrioritySlots(concurrency);
	const order = new ListOrder(concurrency);
	const readers: Promise<void>[] = [];
	let stop: { error: unknown } | null = null;
	/** The first failure stops every list, before its slot goes to the next one. */
	const control = {
		stopped: () => stop !== null,
		fail: (error: unknown) => void (stop ??= { error })
	};

	const readDogRuns = async (run: CompetitionRun, index: number) => {
		const rows: DogRunRow[] = [];
		const href = requireLink(run._links, 'dogRuns').href;
		const rank = order.list();
		await readList(slots, control, pages(href, 'dogRuns', DogRunSchema), rank, (page) => {
			for (const dogRun of page.items) {
				rows.push(dogRunRow(dogRun, run.id, competition.id, rows.length, fetchedAt));
			}
			progress.dogRunsStored += page.items.length;
			report();
		});
		dogRunRows[index] = rows;
		progress.runsDone += 1;
		report();
		// Its slot is free again: the run is stored while the other lists are read.
		if (keep && !control.stopped() && options.signal?.aborted !== true) {
			await keepRun(run, competition.id, rows, keep);
		}
	};

	try {
		const runsHref = requireLink(competition._links, 'competitionRuns').href;
		const runPages = pages(runsHref, 'competitionRuns', CompetitionRunSchema);
		await readList(slots, control, runPages, RUNS_LIST_RANK, (page) => {
			for (const run of page.items) {
				const reader = readDogRuns(run, runs.length);
				readers.push(reader.catch(control.fail));
				runs.push(run);
			}
			progress.runsTotal = Math.max(runs.length, page.page.totalElements);
			report();
		});
	} catch (error) {
		control.fail(error);
	}
	await Promise.all(readers);
	if (stop !== null) throw (stop as { error: unknown }).error;
	if (progress.runsTotal !== runs.length) {
		progress.runsTotal = runs.length;
		report();
	}
	options.signal?.throwIfAborted();
	return { competition, runs, dogRuns: dogRunRows.flat(), progress: { ...progress }, fetchedAt };
}

/**
 * Stores a competition read in full as the device's copy, in one transaction: what it no longer
 * has goes, the rest is overwritten, and its download is recorded as complete.
 */
export async function keepCompetition(
	read: CompetitionRead,
	now: () => number = Date.now
): Promise<void> {
	const { competition, progress, fetchedAt } = read;
	const runRows: RunRow[] = read.runs.map((run) => runRow(run, competition.id, fetchedAt));
	await db.transaction('rw', [db.competitions, db.runs, db.dogRuns, db.downloads], async () => {
		await db.runs.bulkPut(runRows);
		await putInChunks(db.dogRuns, read.dogRuns);
		// Joins this transaction: what the competition no longer has goes, the download completes.
		await finishCompetition(competition, read.runs, read.dogRuns, progress, fetchedAt, now);
	});
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

/**
 * Reads every page of a list, one request at a time through `slots`, ranked as `rank` says
 * (./list-order). The list keeps its slot from one page to the next unless a waiting request ranks
 * at least as high: the list of runs (first of all) asks for its next page before the dog-run
 * lists of the runs just found take every slot. Stops early, between pages, once `stopped()` says
 * so; a failure is told to `fail` before the slot goes to another list.
 */
async function readList<T>(
	slots: PrioritySlots,
	{ stopped, fail }: { stopped: () => boolean; fail: (error: unknown) => void },
	pages: AsyncGenerator<PageResult<T>, void, undefined>,
	rank: ListRank,
	onPage: (page: PageResult<T>) => void
): Promise<void> {
	let priority = rank.first;
	let held = false;
	try {
		if (stopped()) return;
		await slots.acquire(priority);
		held = true;
		// Another list failed while this one waited for its slot: nothing more is asked.
		if (stopped()) return;
		for (;;) {
			const next = await pages.next();
			if (next.done === true) return;
			// The dog-run lists of the runs on this page queue for slots here, before `pass`.
			onPage(next.value);
			priority = rank.next(next.value.page);
			// The last page (as `pages` reads it): the slot is not held for nothing.
			if (findLink(next.value.links, 'next') === undefined || stopped()) return;
			await slots.pass(priority);
		}
	} catch (error) {
		fail(error);
		throw error;
	} finally {
		if (held) slots.release();
		await pages.return();
	}
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
