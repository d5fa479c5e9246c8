/**
 * Checks of a dog run entry and of course parameters, shown as the steward types.
 * Errors block saving; hints state a rule (and `normalized` applies it). Issues carry codes only.
 */
import { maximalBelowStandard } from '$lib/contract/fields';
import {
	COURSE_TIME_DECIMALS,
	MAX_COUNT,
	MAX_COURSE_TIME,
	MAX_TIME,
	MAX_TRACK_LENGTH,
	TIME_DECIMALS,
	TRACK_LENGTH_DECIMALS
} from './numbers';
import type {
	CourseErrorCode,
	CourseHintCode,
	EntryErrorCode,
	EntryHintCode,
	ValueErrorCode
} from './errors';
import type { CourseField, CourseParams, DogRunField, DogRunResult } from './types';

export interface Issue<F extends string, C extends string> {
	field: F;
	code: C;
}

export type EntryIssue = Issue<DogRunField, EntryErrorCode | EntryHintCode>;
export type CourseIssue = Issue<CourseField, CourseErrorCode | CourseHintCode>;

export interface EntryValidation {
	errors: Issue<DogRunField, EntryErrorCode>[];
	hints: Issue<DogRunField, EntryHintCode>[];
	/** The entry with the rules applied: disqualified set by a 3rd refusal or a time over MCT. */
	normalized: DogRunResult;
}

export interface CourseValidation {
	errors: Issue<CourseField, CourseErrorCode>[];
	hints: Issue<CourseField, CourseHintCode>[];
}

/** Refusals that eliminate (FCI: the 3rd refusal). */
export const ELIMINATING_REFUSALS = 3;
/** m/s; top events run at 3.0 - 5.1 m/s, so a faster standard time is most likely a slip. */
export const VERY_FAST_SPEED = 7;

/** Tolerance for values that should sit on a decimal grid but went through float arithmetic. */
const GRID_EPSILON = 1e-6;

function onGrid(value: number, decimals: number): boolean {
	const scaled = value * 10 ** decimals;
	return Math.abs(scaled - Math.round(scaled)) < GRID_EPSILON;
}

function decimalError(
	value: number,
	decimals: number,
	max: number,
	allowZero: boolean
): ValueErrorCode | null {
	if (!Number.isFinite(value)) return 'invalid';
	if (value < 0) return 'negative';
	if (value === 0 && !allowZero) return 'zero';
	if (!onGrid(value, decimals)) return decimals === 0 ? 'not-integer' : 'too-many-decimals';
	// A value that is zero on its grid (5e-324 s is 0.00 s) is zero: the service would take it so.
	if (!allowZero && Math.round(value * 10 ** decimals) === 0) return 'zero';
	if (Math.round(value * 10 ** decimals) > Math.round(max * 10 ** decimals)) return 'too-large';
	return null;
}

/** Thousandths, the finest grid in the domain (course times have 3 decimals). */
function thousandths(value: number): number {
	return Math.round(value * 1000);
}

export function validateDogRunEntry(
	entry: DogRunResult,
	course: CourseParams | null
): EntryValidation {
	const errors: EntryValidation['errors'] = [];
	const hints: EntryValidation['hints'] = [];
	const normalized: DogRunResult = { ...entry };

	if (entry.time !== null) {
		const code = decimalError(entry.time, TIME_DECIMALS, MAX_TIME, false);
		if (code) errors.push({ field: 'time', code });
		// Snap float drift (38.629999999) back onto hundredths.
		else normalized.time = Math.round(entry.time * 100) / 100;
	}
	for (const field of ['faults', 'refusals'] as const) {
		const code = decimalError(entry[field], 0, MAX_COUNT, true);
		if (code) errors.push({ field, code });
	}

	if (entry.absence) {
		if (entry.time !== null) errors.push({ field: 'time', code: 'time-with-absent' });
		if (entry.disqualified) errors.push({ field: 'absence', code: 'absent-and-disqualified' });
		for (const field of ['faults', 'refusals'] as const) {
			if (entry[field] > 0) errors.push({ field, code: 'penalties-with-absent' });
		}
		// An absent dog did not run: no elimination rule applies, and none is applied.
		return { errors, hints, normalized };
	}

	if (entry.refusals >= ELIMINATING_REFUSALS) {
		hints.push({ field: 'refusals', code: 'third-refusal-eliminates' });
		normalized.disqualified = true;
	}
	if (
		course !== null &&
		entry.time !== null &&
		Number.isFinite(entry.time) &&
		course.maximalTime > 0 &&
		thousandths(entry.time) > thousandths(course.maximalTime)
	) {
		hints.push({ field: 'time', code: 'over-maximal-time' });
		normalized.disqualified = true;
	}
	if (entry.time === null && !normalized.disqualified) {
		hints.push({ field: 'time', code: 'no-time' });
	}
	return { errors, hints, normalized };
}

export function validateCourse(params: CourseParams): CourseValidation {
	const errors: CourseValidation['errors'] = [];
	const hints: CourseValidation['hints'] = [];
	const checks: [CourseField, number, number][] = [
		['trackLength', TRACK_LENGTH_DECIMALS, MAX_TRACK_LENGTH],
		['standardTime', COURSE_TIME_DECIMALS, MAX_COURSE_TIME],
		['maximalTime', COURSE_TIME_DECIMALS, MAX_COURSE_TIME]
	];
	for (const [field, decimals, max] of checks) {
		const code = decimalError(params[field], decimals, max, false);
		if (code) errors.push({ field, code });
	}
	if (errors.length > 0) return { errors, hints };

	if (maximalBelowStandard(params.standardTime, params.maximalTime)) {
		errors.push({ field: 'maximalTime', code: 'maximal-below-standard' });
	}
	if (params.trackLength / params.standardTime > VERY_FAST_SPEED) {
		hints.push({ field: 'standardTime', code: 'very-fast-course' });
	}
	return { errors, hints };
}
