/**
 * Parsing what a steward types into a number field. Phones in 40+ countries: a decimal comma is as
 * common as a point, and some keyboards type their own digits (Arabic-Indic, Devanagari, ...).
 *
 * Digits are parsed as integers (hundredths or thousandths), never through parseFloat, so 38.63 is
 * 3863 / 100 and carries no float drift. Outcomes carry codes; the UI turns them into words.
 *
 * Accepted: optional surrounding whitespace, digits, at most one decimal separator ('.', ',', the
 * Arabic decimal separator U+066B, or their full-width forms), digits on at least one side of it
 * ('38', '38.63', '38,6', ',5', '38.'). Any Unicode decimal digit counts as its value.
 * Refused: inner whitespace and more than one separator ('1 000', '1.000,5': a thousands separator
 * cannot be told from a decimal one, so it is 'invalid'), a leading '+' ('invalid'), a leading minus
 * ('negative'), exponents, letters, NaN, Infinity. More fraction digits than allowed is refused even
 * when they are zeros ('38.630', and so '1,000' as a track length): a longer fraction is a slip of
 * the finger, and '1,000' may mean a thousand.
 */

import type { ParseErrorCode } from './errors';

export type ParseResult<T> = { ok: true; value: T } | { ok: false; code: ParseErrorCode };

// The limits and the course's fields are the contract's (what the app and the service both hold to).
import {
	type CourseFieldName,
	COURSE_TIME_DECIMALS,
	MAX_COUNT,
	MAX_COURSE_TIME,
	MAX_TIME,
	MAX_TRACK_LENGTH,
	TIME_DECIMALS,
	TRACK_LENGTH_DECIMALS
} from '$lib/contract/fields';

/** A course value a steward types: the contract's course fields. */
export type CourseValueKind = CourseFieldName;

export {
	COURSE_TIME_DECIMALS,
	MAX_COUNT,
	MAX_COURSE_TIME,
	MAX_TIME,
	MAX_TRACK_LENGTH,
	TIME_DECIMALS,
	TRACK_LENGTH_DECIMALS
};

const DECIMAL_SEPARATORS = new Set(['.', ',', '\u066b', '\uff0e', '\uff0c']);
const MINUS_SIGNS = new Set(['-', '\u2212', '\uff0d']);
const PLUS_SIGNS = new Set(['+', '\uff0b']);
const UNICODE_DIGIT = /^\p{Nd}$/u;

type Scanned =
	| { ok: true; negative: boolean; int: string; frac: string; separator: boolean }
	| { ok: false; code: Extract<ParseErrorCode, 'empty' | 'invalid'> };

/**
 * Value of a Unicode decimal digit (category Nd). Unicode encodes every decimal digit set as a
 * contiguous run 0..9, so the digit is the distance to the start of its run, modulo 10.
 */
function digitValue(ch: string): number | null {
	if (ch >= '0' && ch <= '9') return ch.charCodeAt(0) - 48;
	if (!UNICODE_DIGIT.test(ch)) return null;
	const cp = ch.codePointAt(0) ?? 0;
	let run = 0;
	while (run < 100 && UNICODE_DIGIT.test(String.fromCodePoint(cp - run - 1))) run++;
	return run % 10;
}

function scan(input: string): Scanned {
	const chars = Array.from(input.trim());
	if (chars.length === 0) return { ok: false, code: 'empty' };
	let i = 0;
	let negative = false;
	const first = chars[0] ?? '';
	if (MINUS_SIGNS.has(first)) {
		negative = true;
		i = 1;
	} else if (PLUS_SIGNS.has(first)) {
		return { ok: false, code: 'invalid' };
	}
	let int = '';
	let frac = '';
	let separator = false;
	for (; i < chars.length; i++) {
		const ch = chars[i] ?? '';
		const d = digitValue(ch);
		if (d !== null) {
			if (separator) frac += d;
			else int += d;
		} else if (DECIMAL_SEPARATORS.has(ch) && !separator) {
			separator = true;
		} else {
			return { ok: false, code: 'invalid' };
		}
	}
	if (int.length === 0 && frac.length === 0) return { ok: false, code: 'invalid' };
	return { ok: true, negative, int, frac, separator };
}

/**
 * Parses a non-negative decimal into integer units of 10^-decimals, checking bounds.
 * Zero is refused unless allowZero.
 */
function parseUnits(
	input: string,
	decimals: number,
	maxUnits: number,
	allowZero: boolean
): ParseResult<number> {
	const s = scan(input);
	if (!s.ok) return s;
	if (s.negative) return { ok: false, code: 'negative' };
	if (s.frac.length > decimals) return { ok: false, code: 'too-many-decimals' };
	const int = s.int.replace(/^0+/, '');
	// Beyond 12 integer digits the units would no longer be exact integers; all bounds are far below.
	if (int.length > 12) return { ok: false, code: 'too-large' };
	const units = Number(int || '0') * 10 ** decimals + Number(s.frac.padEnd(decimals, '0') || '0');
	if (units === 0 && !allowZero) return { ok: false, code: 'zero' };
	if (units > maxUnits) return { ok: false, code: 'too-large' };
	return { ok: true, value: units };
}

/**
 * A dog's time in seconds with at most two decimals, 0.01 to 999.99.
 * Empty input is a valid answer: no time recorded (null).
 */
export function parseTime(input: string): ParseResult<number | null> {
	if (input.trim() === '') return { ok: true, value: null };
	const r = parseUnits(input, TIME_DECIMALS, Math.round(MAX_TIME * 100), false);
	return r.ok ? { ok: true, value: r.value / 100 } : r;
}

/** Faults or refusals: a whole number 0..max. Empty input is 'empty' (zero must be typed or tapped). */
export function parseCount(input: string, max: number = MAX_COUNT): ParseResult<number> {
	const s = scan(input);
	if (!s.ok) return s;
	if (s.negative) return { ok: false, code: 'negative' };
	if (s.separator) return { ok: false, code: 'not-integer' };
	return parseUnits(input, 0, max, true);
}

/**
 * One of the three course parameters: track length in metres (up to 2 decimals, at most 2000) or a
 * standard / maximal time in seconds (up to 3 decimals, at most 999.999). Zero is refused.
 */
export function parseCourseValue(input: string, kind: CourseValueKind): ParseResult<number> {
	const decimals = kind === 'trackLength' ? TRACK_LENGTH_DECIMALS : COURSE_TIME_DECIMALS;
	const max = kind === 'trackLength' ? MAX_TRACK_LENGTH : MAX_COURSE_TIME;
	return parsePositive(input, decimals, max);
}

/**
 * A positive decimal with at most `decimals` fraction digits, up to `max`: the course helper's
 * speed (m/s) and multiple of the standard time. Zero is refused.
 */
export function parsePositive(input: string, decimals: number, max: number): ParseResult<number> {
	const scale = 10 ** decimals;
	const r = parseUnits(input, decimals, Math.round(max * scale), false);
	return r.ok ? { ok: true, value: r.value / scale } : r;
}

/**
 * How many fraction digits `value` needs, up to `max`: 219 → 0, 38.6 → 1, 65.125 → 3. For showing a
 * figure as it was entered (a course's SCT may be whole seconds or carry three decimals).
 */
export function fractionDigits(value: number, max: number): number {
	for (let digits = 0; digits < max; digits++) {
		const scaled = value * 10 ** digits;
		// A hair of float error (0.1 + 0.2) does not count as a digit.
		if (Math.abs(scaled - Math.round(scaled)) < 1e-6) return digits;
	}
	return max;
}
