import type { DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import { unsentFor } from '$lib/db/keys';
import { combinedTable, type CombinedTable } from '$lib/domain/combined';
import { courseOf, entrantOf, resultOf, type EntrantView } from './run-view';

/**
 * What the results screen combines (docs/results.md, "Combined results"): the stored runs with
 * their dogs and unsent edits, the team key, the runs offered, and the `with` address parameter.
 */

/** One chosen run as stored on the device. */
export interface StoredRun {
	run: RunRow;
	dogRuns: readonly DogRunRow[];
	/** The run's unsent edits by outbox key (its course and its dog runs). */
	entries: ReadonlyMap<string, OutboxEntry>;
}

export type CombinedItem = { row: DogRunRow } & EntrantView;

/** A team: the dog with its handler. The same dog with another handler is another team. */
export function teamKey(row: DogRunRow): string {
	return `${row.data.dog.id}/${row.data.competitor.id}`;
}

/** Runs in the order of the day: date, start time, then id. */
export function byStart(a: RunRow, b: RunRow): number {
	return (
		(a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
		(a.startTime < b.startTime ? -1 : a.startTime > b.startTime ? 1 : 0) ||
		a.id - b.id
	);
}

/**
 * The combined table of the stored runs, unsent edits laid over the snapshots (as a run's own
 * results). The runs' columns follow the order given.
 */
export function combinedResults(
	runs: readonly StoredRun[],
	compareNames?: (a: string, b: string) => number
): CombinedTable<CombinedItem> {
	return combinedTable(
		runs.map(({ run, dogRuns, entries }) => ({
			course: courseOf(run, unsentFor(entries, 'run', run.id)),
			entries: dogRuns.map((row) => {
				const entrant = entrantOf(row);
				return {
					team: teamKey(row),
					name: `${entrant.dog} ${entrant.handler}`,
					item: { row, ...entrant },
					result: resultOf(row.data, unsentFor(entries, 'dogRun', row.id))
				};
			})
		})),
		compareNames
	);
}

/**
 * The runs to offer beside `run`: first those of the same size class and level (the usual
 * agility + jumping pair), then the competition's other runs; each in the order of the day.
 */
export function combineCandidates(
	run: RunRow,
	competitionRuns: readonly RunRow[]
): { same: RunRow[]; others: RunRow[] } {
	const size = run.data.dogSizeClass.id;
	const level = run.data.competitionRunLevel.id;
	const rest = competitionRuns
		.filter((r) => r.id !== run.id && r.competitionId === run.competitionId)
		.sort(byStart);
	const isSame = (r: RunRow) =>
		r.data.dogSizeClass.id === size && r.data.competitionRunLevel.id === level;
	return { same: rest.filter(isSame), others: rest.filter((r) => !isSame(r)) };
}

/** The `with` parameter: run ids, comma-separated; anything else is left out, each id once. */
export function parseRunIds(value: string | null): number[] {
	if (!value) return [];
	const ids = value
		.split(',')
		.map((part) => part.trim())
		.filter((part) => /^[1-9]\d{0,15}$/.test(part))
		.map(Number)
		.filter(Number.isSafeInteger);
	return [...new Set(ids)];
}

/** The `with` parameter with `id` added or taken out. */
export function toggleRunId(ids: readonly number[], id: number): number[] {
	return ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id];
}
