import type { DogRunRow, OutboxEntry, OutboxStatus, RunRow } from '$lib/db/db';
import { unsentFor } from '$lib/db/keys';
import { resultTable, type Entrant, type ResultTable } from '$lib/domain/results';
import { rankRun, type RankedEntry } from '$lib/domain/scoring';
import type { CourseParams, DogRunResult } from '$lib/domain/types';
import { courseOf as courseOfData, resultOf } from '$lib/domain/overlay';

/** What a steward sees of one dog run: the server's snapshot with unsent edits laid over it. */
export interface DogRunView {
	row: DogRunRow;
	result: DogRunResult;
	/** null: nothing unsent for it. */
	sync: OutboxStatus | null;
	ranked: RankedEntry<number>;
}

export { hasRun, resultOf } from '$lib/domain/overlay';

/** A run's unsent edits by their outbox key, as runView and runResults look them up. */
export function entriesByKey(entries: readonly OutboxEntry[]): ReadonlyMap<string, OutboxEntry> {
	return new Map(entries.map((e) => [e.key, e]));
}

/** A stored run's course parameters with an unsent edit of them laid over. */
export function courseOf(run: RunRow, entry: OutboxEntry | undefined): CourseParams {
	return courseOfData(run.data, entry);
}

/**
 * The run's dog runs in start order with provisional scores and ranks, recomputed from the
 * effective course parameters (a changed standard time re-scores every dog at once).
 */
export function runView(
	dogRuns: readonly DogRunRow[],
	entries: ReadonlyMap<string, OutboxEntry>,
	course: CourseParams
): DogRunView[] {
	const rowEntries = dogRuns.map((row) => unsentFor(entries, 'dogRun', row.id));
	const results = dogRuns.map((row, i) => resultOf(row.data, rowEntries[i]));
	const ranked = new Map(
		rankRun(
			dogRuns.map((row, i) => ({ id: row.id, result: results[i] as DogRunResult })),
			course
		).map((entry) => [entry.id, entry])
	);
	return dogRuns.map((row, i) => ({
		row,
		result: results[i] as DogRunResult,
		sync: rowEntries[i]?.status ?? null,
		ranked: ranked.get(row.id) as RankedEntry<number>
	}));
}

/** Who runs, as the secretary's lists name them; every value is the service's text, shown as text. */
export interface EntrantView extends Entrant {
	size: string;
	level: string;
	/** The dog's breed when the service sends one (not in the interface document; some do). */
	breed: string | null;
}

export function entrantOf(row: DogRunRow): EntrantView {
	const { dog, competitor } = row.data;
	const breed = (dog as Record<string, unknown>)['breed'];
	const breedName =
		typeof breed === 'string'
			? breed
			: typeof breed === 'object' &&
				  breed !== null &&
				  typeof (breed as { name?: unknown }).name === 'string'
				? (breed as { name: string }).name
				: '';
	return {
		dog: `${dog.name} ${dog.homeName}`.trim(),
		handler: `${competitor.firstname} ${competitor.lastname}`.trim(),
		book: dog.workbookNo,
		size: dog.dogSizeClass.name,
		level: dog.competitionLevel.name,
		breed: breedName.trim() || null
	};
}

/**
 * The run's results in rank order (ranked, disqualified, absent, not yet run), unsent edits laid
 * over the snapshots, each line carrying its dog run and how to name it. Start number: the place
 * in the service's start order, counted from 1, as on the run screen.
 */
export function runResults(
	dogRuns: readonly DogRunRow[],
	entries: ReadonlyMap<string, OutboxEntry>,
	course: CourseParams
): ResultTable<{ row: DogRunRow } & EntrantView> {
	return resultTable(
		dogRuns.map((row) => ({
			item: { row, ...entrantOf(row) },
			startNo: row.order + 1,
			result: resultOf(row.data, unsentFor(entries, 'dogRun', row.id))
		})),
		course
	);
}

export interface RunGroup {
	date: string;
	rings: [ringName: string, runs: RunRow[]][];
}

/** Runs grouped by day, then ring, keeping the given order inside each group. */
export function groupRuns(runs: readonly RunRow[]): RunGroup[] {
	const days = new Map<string, Map<string, RunRow[]>>();
	for (const run of runs) {
		const day = days.get(run.date) ?? new Map<string, RunRow[]>();
		days.set(run.date, day);
		const ringName = run.data.competitionRing.name;
		const list = day.get(ringName) ?? [];
		list.push(run);
		day.set(ringName, list);
	}
	return [...days].map(([date, rings]) => ({ date, rings: [...rings] }));
}
