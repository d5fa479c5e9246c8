/**
 * Typing a time on the capture screen's keypad (or a keyboard's digit keys), one key at a time.
 * A time is at most three whole digits and two decimals (999.99 s, TIME_DECIMALS), so a key that
 * would make it longer is not taken: the display never shows a value that cannot be saved for
 * that reason. The first key after a dog's values were loaded replaces the shown time ("fresh"),
 * as a selected field would.
 */
import { MAX_TIME, TIME_DECIMALS } from './numbers';

export type TimeKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | 'sep' | 'back';

/** Whole digits of the longest time the contract takes (999.99 s: three). */
const WHOLE_DIGITS = String(Math.floor(MAX_TIME)).length;
const SEPARATORS = /[.,]/;

export interface TimeEntry {
	text: string;
	/** The next digit or separator starts a new time. */
	fresh: boolean;
}

/** The key for a keyboard's key name, or null when it is not one the time takes. */
export function timeKeyOf(key: string): TimeKey | null {
	if (/^[0-9]$/.test(key)) return key as TimeKey;
	if (key === '.' || key === ',' || key === 'Decimal') return 'sep';
	if (key === 'Backspace') return 'back';
	return null;
}

export function pressTimeKey(entry: TimeEntry, key: TimeKey, separator: string): TimeEntry {
	if (key === 'back') return { text: Array.from(entry.text).slice(0, -1).join(''), fresh: false };
	const text = entry.fresh ? '' : entry.text;
	const parts = text.split(SEPARATORS);
	const whole = parts[0] ?? '';
	const decimals = parts[1];
	if (key === 'sep') {
		if (decimals !== undefined) return { text, fresh: false };
		return { text: `${whole === '' ? '0' : whole}${separator}`, fresh: false };
	}
	if (decimals !== undefined) {
		if (decimals.length >= TIME_DECIMALS) return { text, fresh: false };
		return { text: text + key, fresh: false };
	}
	// No leading zeros in the whole part ("07" is "7"); "0" stays for "0,5".
	if (whole === '0') return { text: key, fresh: false };
	if (whole.length >= WHOLE_DIGITS) return { text, fresh: false };
	return { text: text + key, fresh: false };
}
