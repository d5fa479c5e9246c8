import type { DogRunRow, OutboxEntry, OutboxStatus, RunRow } from '$lib/db/db';
import { outboxKey } from '$lib/db/outbox-store';
import { rankRun, type RankedEntry } from '$lib/domain/scoring';
import type { CourseParams, DogRunResult } from '$lib/domain/types';
import { overlay } from '$lib/sync/outbox';

/** What a steward sees of one dog run: the server's snapshot with unsent edits laid over it. */
export interface DogRunView {
	row: DogRunRow;
	result: DogRunResult;
	/** null: nothing unsent for it. */
	sync: OutboxStatus | null;
	ranked: RankedEntry<number>;
}

export function resultOf(data: DogRunResult, entry: OutboxEntry | undefined): DogRunResult {
	const base: DogRunResult = {
		time: data.time,
		faults: data.faults,
		refusals: data.refusals,
		disqualified: data.disqualified,
		absence: data.absence
	};
	return overlay(base, entry);
}

/** Whether the dog has run (a time, disqualified or absent), its unsent edit included. */
export function hasRun(data: DogRunResult, entry: OutboxEntry | undefined): boolean {
	const r = resultOf(data, entry);
	return r.time !== null || r.disqualified || r.absence;
}

export function courseOf(run: RunRow, entry: OutboxEntry | undefined): CourseParams {
	const base: CourseParams = {
		trackLength: run.data.trackLength,
		standardTime: run.data.standardTime,
		maximalTime: run.data.maximalTime
	};
	return overlay(base, entry);
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
	const rowEntries = dogRuns.map((row) => entries.get(outboxKey('dogRun', row.id)));
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
