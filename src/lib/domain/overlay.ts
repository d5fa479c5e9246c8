/**
 * What every screen shows: the service's values with this device's unsent edits laid over them
 * (an outbox entry's `changes`). Pure, and shaped by structure only: any snapshot, any entry.
 */
import type { CourseParams, DogRunResult } from './types';

/** An outbox entry as far as showing it goes: the fields it changes. */
export interface Unsent {
	changes: object;
}

/** The snapshot with the entry's changed fields over it (the snapshot itself is not touched). */
export function overlay<T extends object>(snapshot: T, entry: Unsent | null | undefined): T {
	if (!entry) return snapshot;
	return { ...snapshot, ...entry.changes };
}

/** A dog run's result fields as shown: the service's, with an unsent edit over them. */
export function resultOf(data: DogRunResult, entry: Unsent | null | undefined): DogRunResult {
	const base: DogRunResult = {
		time: data.time,
		faults: data.faults,
		refusals: data.refusals,
		disqualified: data.disqualified,
		absence: data.absence
	};
	if (data.withheld) base.withheld = data.withheld;
	return overlay(base, entry);
}

/**
 * Whether the dog has run (a time, disqualified or absent), its unsent edit included; on a public
 * view of a run not released, as the service or the view marked it.
 */
export function hasRun(data: DogRunResult, entry: Unsent | null | undefined): boolean {
	const r = resultOf(data, entry);
	if (r.withheld) return r.withheld.done;
	return r.time !== null || r.disqualified || r.absence;
}

/** A run's course parameters as shown: the service's, with an unsent edit over them. */
export function courseOf(data: CourseParams, entry: Unsent | null | undefined): CourseParams {
	const base: CourseParams = {
		trackLength: data.trackLength,
		standardTime: data.standardTime,
		maximalTime: data.maximalTime
	};
	return overlay(base, entry);
}
