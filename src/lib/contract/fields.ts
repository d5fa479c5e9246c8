/**
 * What a steward may change, and within which limits: one fact for the app and the service. The
 * app checks an entry before it is saved ($lib/domain/validation); the embedded service refuses a
 * PUT body outside the same limits (server/validation.ts). Imports nothing.
 *
 * Field names are the interface's (competition-results-api.md 4.5 and 4.8), in the order a steward
 * enters them.
 */

/** The result fields of a dog run a PUT may carry (interface 4.8). */
export const DOG_RUN_FIELDS = ['time', 'faults', 'refusals', 'disqualified', 'absence'] as const;
/** The course parameters of a competition run a PUT may carry (interface 4.5). */
export const COURSE_FIELDS = ['trackLength', 'standardTime', 'maximalTime'] as const;
/** Every field an edit may change, dog runs' first. */
export const EDITABLE_FIELDS = [...DOG_RUN_FIELDS, ...COURSE_FIELDS] as const;

export type DogRunFieldName = (typeof DOG_RUN_FIELDS)[number];
/** The two resources an edit changes: a dog run's result, a competition run's course. */
export type ResourceKind = 'dogRun' | 'run';
/** Field name → value: an edit's changes, or a resource's editable fields. */
export type Fields = Record<string, unknown>;
export type CourseFieldName = (typeof COURSE_FIELDS)[number];

/** Largest time a steward can enter, seconds. */
export const MAX_TIME = 999.99;
/** Fraction digits of a time: timers measure hundredths. */
export const TIME_DECIMALS = 2;
/** Upper bound of faults and refusals. */
export const MAX_COUNT = 99;
/** Largest track length, metres. */
export const MAX_TRACK_LENGTH = 2000;
export const TRACK_LENGTH_DECIMALS = 2;
/** Largest standard or maximal course time, seconds. */
export const MAX_COURSE_TIME = 999.999;
/** The service serializes standardTime and maximalTime with two or three fraction digits (2.7). */
export const COURSE_TIME_DECIMALS = 3;

/** Thousandths of a second, exact for the decimals the limits allow (no float comparison). */
function thousandths(seconds: number): number {
	return Math.round(seconds * 1000);
}

/** The maximal course time may not be below the standard course time (MCT ≥ SCT). */
export function maximalBelowStandard(standardTime: number, maximalTime: number): boolean {
	return thousandths(maximalTime) < thousandths(standardTime);
}
