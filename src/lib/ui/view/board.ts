/**
 * What a ring's big screen shows, computed from the copy on the device with unsent edits laid
 * over it: the dog at the start, the ring's queue, the last results and the provisional ranking of
 * the run under way. Pure: the route loads the rows, this decides. When the last dog of a run gets
 * a result (here or, through live updates, on another device), the next run with a dog waiting
 * becomes the current one by itself.
 */
import { resultsShown, type Publication } from '$lib/contract/publication';
import type { DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import { unsentFor } from '$lib/db/keys';
import type { RingRun } from '$lib/db/ring-queries';
import { courseOf, hasRun, runView, type DogRunView } from './run-view';

/** Dogs listed after the one at the start. */
export const NEXT_SHOWN = 5;
/** The first of those are called to the gate. */
export const TO_GATE = 2;
export const LAST_SHOWN = 5;
export const RANKING_SHOWN = 10;

export { ringOrder, type RingRun } from '$lib/db/ring-queries';

export interface BoardDog {
	row: DogRunRow;
	run: RunRow;
	/** Position in the run's start list, from 1. */
	startNo: number;
}

export interface QueuedDog extends BoardDog {
	/** Called to the gate: one of the next few. */
	toGate: boolean;
}

export interface BoardResult extends BoardDog {
	/** Effective result, provisional score and rank within its run. */
	view: DogRunView;
}

export interface Board {
	/** The run under way (or, when every dog of the ring has run, the last one); null: no dogs. */
	run: RunRow | null;
	current: BoardDog | null;
	next: QueuedDog[];
	/** The most recent results first: the current run's, then the previous run's. */
	last: BoardResult[];
	/** The current run's ranked dogs, best first. */
	ranking: BoardResult[];
	/** Dogs of the current run with a result, of `total`. */
	done: number;
	total: number;
	/** No dog waits anywhere on the ring. */
	finished: boolean;
}

export interface BoardSizes {
	next?: number;
	toGate?: number;
	last?: number;
	ranking?: number;
}

type Entries = ReadonlyMap<string, OutboxEntry>;

const entryOf = (entries: Entries, row: DogRunRow) => unsentFor(entries, 'dogRun', row.id);

/**
 * The ring's queue: dogs without a result (unsent ones included), in ring order, at most `limit`.
 * The first is the dog at the start.
 */
export function waitingDogs(
	runs: readonly RingRun[],
	entries: Entries,
	limit = Infinity
): BoardDog[] {
	const waiting: BoardDog[] = [];
	for (const { run, dogRuns } of runs) {
		for (const row of dogRuns) {
			if (waiting.length >= limit) return waiting;
			if (hasRun(row.data, entryOf(entries, row))) continue;
			waiting.push({ row, run, startNo: row.order + 1 });
		}
	}
	return waiting;
}

/**
 * Whether `runs`, the first runs of the ring in order, already fill the board (the dog at the
 * start and `next` after it): a loader reads the ring's runs one by one until this holds.
 */
export function boardFilled(
	runs: readonly RingRun[],
	entries: Entries,
	next = NEXT_SHOWN
): boolean {
	return waitingDogs(runs, entries, next + 1).length > next;
}

/** The index of the run under way: the first with a dog waiting, else the last with dogs. */
export function currentRunIndex(runs: readonly RingRun[], entries: Entries): number {
	const waiting = runs.findIndex(({ dogRuns }) =>
		dogRuns.some((row) => !hasRun(row.data, entryOf(entries, row)))
	);
	if (waiting >= 0) return waiting;
	return runs.findLastIndex(({ dogRuns }) => dogRuns.length > 0);
}

function viewsOf(ringRun: RingRun, entries: Entries): BoardResult[] {
	const { run, dogRuns } = ringRun;
	const course = courseOf(run, unsentFor(entries, 'run', run.id));
	return runView(dogRuns, entries, course).map((view) => ({
		row: view.row,
		run,
		startNo: view.row.order + 1,
		view
	}));
}

const ran = (r: BoardResult) => hasRun(r.view.result, undefined);

/** The board of a ring whose runs (in ring order; `ringOrder`) are given with their dog runs. */
export function ringBoard(
	runs: readonly RingRun[],
	entries: Entries,
	sizes: BoardSizes = {}
): Board {
	const {
		next: nextShown = NEXT_SHOWN,
		toGate = TO_GATE,
		last: lastShown = LAST_SHOWN,
		ranking: rankingShown = RANKING_SHOWN
	} = sizes;
	const index = currentRunIndex(runs, entries);
	const current = runs[index];
	if (!current) {
		return {
			run: null,
			current: null,
			next: [],
			last: [],
			ranking: [],
			done: 0,
			total: 0,
			finished: true
		};
	}

	const [atStart = null, ...queue] = waitingDogs(runs.slice(index), entries, nextShown + 1);
	const views = viewsOf(current, entries);

	// Most recent first; dogs run in start order, so the latest start number is the latest result.
	const last: BoardResult[] = [];
	for (let i = index; i >= 0 && last.length < lastShown; i--) {
		const ringRun = runs[i] as RingRun;
		const results = (i === index ? views : viewsOf(ringRun, entries)).filter(ran).reverse();
		last.push(...results.slice(0, lastShown - last.length));
	}

	// rankRun breaks no tie by position; runView keeps start order, so a stable sort keeps it.
	const ranking = views
		.filter((r) => r.view.ranked.rank !== null)
		.sort((a, b) => (a.view.ranked.rank as number) - (b.view.ranked.rank as number))
		.slice(0, rankingShown);

	return {
		run: current.run,
		current: atStart,
		next: queue.map((dog, i) => ({ ...dog, toGate: i < toGate })),
		last,
		ranking,
		done: views.filter(ran).length,
		total: views.length,
		finished: atStart === null
	};
}

/**
 * On a public view whose run under way is not released: the ranking of the latest run before it
 * that is (its results shown), with that run, or null when there is none.
 */
export function releasedRanking(
	runs: readonly RingRun[],
	entries: Entries,
	current: RunRow | null,
	shown: (runId: number) => boolean,
	size = RANKING_SHOWN
): { run: RunRow; ranking: BoardResult[] } | null {
	const upTo = current ? runs.findIndex((r) => r.run.id === current.id) : runs.length;
	for (let i = (upTo < 0 ? runs.length : upTo) - 1; i >= 0; i--) {
		const ringRun = runs[i] as RingRun;
		if (!shown(ringRun.run.id)) continue;
		const ranking = viewsOf(ringRun, entries)
			.filter((r) => r.view.ranked.rank !== null)
			.sort((a, b) => (a.view.ranked.rank as number) - (b.view.ranked.rank as number))
			.slice(0, size);
		if (ranking.length > 0) return { run: ringRun.run, ranking };
	}
	return null;
}

/** The ranking a public view shows, as its settings of public views allow. */
export interface PublicRanking {
	/** The run under way's results show: live, or released by the secretary. */
	released: boolean;
	/** While they wait for the release: the latest released run whose ranking shows instead. */
	earlier: RunRow | null;
	/** The ranked dogs shown, best first. */
	rows: BoardResult[];
}

/** The board's ranking, or while its run waits for the release the latest released run's. */
export function publicRanking(
	runs: readonly RingRun[],
	entries: Entries,
	board: Board,
	publication: Publication
): PublicRanking {
	const released = board.run ? resultsShown(publication, board.run.id) : true;
	if (released) return { released, earlier: null, rows: board.ranking };
	const earlier = releasedRanking(runs, entries, board.run, (id) => resultsShown(publication, id));
	return { released, earlier: earlier?.run ?? null, rows: earlier?.ranking ?? [] };
}
