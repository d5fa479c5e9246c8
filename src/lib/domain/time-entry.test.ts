import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTime } from './numbers';
import { pressTimeKey, timeKeyOf, type TimeEntry, type TimeKey } from './time-entry';

function type(keys: string, start: TimeEntry = { text: '', fresh: false }, sep = ','): string {
	let entry = start;
	for (const ch of keys) {
		const key = ch === '<' ? 'back' : ch === ',' || ch === '.' ? 'sep' : (ch as TimeKey);
		entry = pressTimeKey(entry, key, sep);
	}
	return entry.text;
}

describe('pressTimeKey', () => {
	it.each([
		['386', '386'],
		['3863', '386'],
		['38,63', '38,63'],
		['38,634', '38,63'],
		[',5', '0,5'],
		['38,,6', '38,6'],
		['1234', '123'],
		['07,5', '7,5'],
		['0,07', '0,07'],
		['38,6<<', '38'],
		['<', ''],
		['38<9,1', '39,1']
	])('keys %s give %s', (keys, text) => {
		expect(type(keys)).toBe(text);
	});

	it('uses the separator of the language', () => {
		expect(type('41.5', undefined, '.')).toBe('41.5');
		expect(type('41,5', undefined, ',')).toBe('41,5');
	});

	it('replaces a loaded time with the first key, and edits it with backspace', () => {
		const loaded: TimeEntry = { text: '60.63', fresh: true };
		expect(type('4', loaded)).toBe('4');
		expect(type(',5', loaded)).toBe('0,5');
		expect(type('<', loaded)).toBe('60.6');
		expect(type('<1', loaded)).toBe('60.61');
	});

	it('never produces a time the parser refuses for its length or decimals', () => {
		const key = fc.constantFrom<string>(...'0123456789,<');
		fc.assert(
			fc.property(fc.array(key, { maxLength: 12 }), (keys) => {
				const text = type(keys.join(''));
				const parsed = parseTime(text);
				// An empty time is "no time"; "0" and "0,0" are refused as zero, nothing else is.
				if (!parsed.ok) expect(parsed.code).toBe('zero');
			})
		);
	});
});

describe('timeKeyOf', () => {
	it.each([
		['7', '7'],
		['.', 'sep'],
		[',', 'sep'],
		['Backspace', 'back'],
		['f', null],
		['Enter', null]
	])('%s → %s', (key, expected) => {
		expect(timeKeyOf(key)).toBe(expected);
	});
});
