/**
 * The codes the pure domain returns: what is wrong with a typed number (numbers.ts) and the
 * issues of an entry or a course (validation.ts). Codes only; the UI words every one of them in
 * one place ($lib/ui/view/error-text). The time keypad (time-entry.ts) and the course helper
 * (course.ts) return no codes: a key that does not fit is not taken, a missing input gives null.
 */

/** Problems with a single value, as a check of a stored number finds them. */
export const VALUE_ERROR_CODES = [
	'invalid',
	'negative',
	'zero',
	'too-large',
	'too-many-decimals',
	'not-integer'
] as const;
export type ValueErrorCode = (typeof VALUE_ERROR_CODES)[number];

/** What is wrong with typed text: the value problems, or nothing typed where a value is needed. */
export const PARSE_ERROR_CODES = ['empty', ...VALUE_ERROR_CODES] as const;
export type ParseErrorCode = (typeof PARSE_ERROR_CODES)[number];

export const ENTRY_ERROR_CODES = [
	...VALUE_ERROR_CODES,
	/** A time is recorded for a dog marked absent. */
	'time-with-absent',
	/** Faults or refusals are recorded for a dog marked absent. */
	'penalties-with-absent',
	'absent-and-disqualified'
] as const;
export type EntryErrorCode = (typeof ENTRY_ERROR_CODES)[number];

export const ENTRY_HINT_CODES = [
	/** Three or more refusals: the dog is eliminated. */
	'third-refusal-eliminates',
	/** The time is over the maximal course time: the dog is eliminated. */
	'over-maximal-time',
	/** Neither absent nor eliminated, and no time yet: the entry is incomplete. */
	'no-time'
] as const;
export type EntryHintCode = (typeof ENTRY_HINT_CODES)[number];

export const COURSE_ERROR_CODES = [...VALUE_ERROR_CODES, 'maximal-below-standard'] as const;
export type CourseErrorCode = (typeof COURSE_ERROR_CODES)[number];

/** The standard time implies a speed above VERY_FAST_SPEED m/s: probably a typing slip. */
export const COURSE_HINT_CODES = ['very-fast-course'] as const;
export type CourseHintCode = (typeof COURSE_HINT_CODES)[number];

/** Every code that blocks a value or a save, once each. */
export const DOMAIN_ERROR_CODES = [
	...new Set([...PARSE_ERROR_CODES, ...ENTRY_ERROR_CODES, ...COURSE_ERROR_CODES])
] as readonly DomainErrorCode[];
export type DomainErrorCode = ParseErrorCode | EntryErrorCode | CourseErrorCode;

/** Every code that states a rule without blocking the save, once each. */
export const DOMAIN_HINT_CODES = [
	...ENTRY_HINT_CODES,
	...COURSE_HINT_CODES
] as const satisfies readonly DomainHintCode[];
export type DomainHintCode = EntryHintCode | CourseHintCode;
