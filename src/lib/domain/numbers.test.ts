import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	fractionDigits,
	parseCount,
	parseCourseValue,
	parsePositive,
	parseTime,
	type ParseResult
} from './numbers';

const ok = <T>(value: T): ParseResult<T> => ({ ok: true, value });
const fail = (code: string) => ({ ok: false, code });

describe('parseTime', () => {
	it.each([
		['38.63', 38.63],
		['38,63', 38.63],
		[' 38,6 ', 38.6],
		['38', 38],
		['038.63', 38.63],
		['38.', 38],
		[',5', 0.5],
		['0.01', 0.01],
		['999.99', 999.99],
		['\u00a038,63\u202f', 38.63],
		['\t38.63\n', 38.63],
		['٣٨٫٦٣', 38.63],
		['۳۸٫۶۳', 38.63],
		['३८.६३', 38.63],
		['３８．６３', 38.63],
		['68.17', 68.17],
		['0.07', 0.07]
	])('accepts %j as %d', (input, value) => {
		expect(parseTime(input)).toEqual(ok(value));
	});

	it.each(['', '   ', '\u00a0'])('reads %j as no time', (input) => {
		expect(parseTime(input)).toEqual(ok(null));
	});

	it.each([
		['abc', 'invalid'],
		['38a', 'invalid'],
		['NaN', 'invalid'],
		['Infinity', 'invalid'],
		['-Infinity', 'invalid'],
		['1e3', 'invalid'],
		['0x10', 'invalid'],
		['+5', 'invalid'],
		['.', 'invalid'],
		[',', 'invalid'],
		['-', 'invalid'],
		['1 000', 'invalid'],
		['1.000,5', 'invalid'],
		['1,000.5', 'invalid'],
		['38..63', 'invalid'],
		['38.6.3', 'invalid'],
		['3 8.63', 'invalid'],
		['38 .63', 'invalid'],
		['½', 'invalid'],
		['3²', 'invalid'],
		['-1', 'negative'],
		['−38,63', 'negative'],
		['38.634', 'too-many-decimals'],
		['38.630', 'too-many-decimals'],
		['1.000', 'too-many-decimals'],
		['0', 'zero'],
		['0,00', 'zero'],
		['000', 'zero'],
		['1000', 'too-large'],
		['999.991', 'too-many-decimals'],
		['1000.00', 'too-large'],
		['99999999999999999999', 'too-large']
	])('refuses %j with %s', (input, code) => {
		expect(parseTime(input)).toEqual(fail(code));
	});
});

describe('parseCount', () => {
	it.each([
		['0', 0],
		['3', 3],
		[' 2 ', 2],
		['02', 2],
		['99', 99],
		['٣', 3]
	])('accepts %j as %d', (input, value) => {
		expect(parseCount(input)).toEqual(ok(value));
	});

	it.each([
		['', 'empty'],
		['  ', 'empty'],
		['x', 'invalid'],
		['+1', 'invalid'],
		['1 0', 'invalid'],
		['-1', 'negative'],
		['1.5', 'not-integer'],
		['1,0', 'not-integer'],
		['2.', 'not-integer'],
		['100', 'too-large']
	])('refuses %j with %s', (input, code) => {
		expect(parseCount(input)).toEqual(fail(code));
	});

	it('honours a custom maximum', () => {
		expect(parseCount('5', 5)).toEqual(ok(5));
		expect(parseCount('6', 5)).toEqual(fail('too-large'));
	});
});

describe('parseCourseValue', () => {
	it.each([
		['219', 'trackLength', 219],
		['219,5', 'trackLength', 219.5],
		['2000', 'trackLength', 2000],
		['0.01', 'trackLength', 0.01],
		['65', 'standardTime', 65],
		['65,125', 'standardTime', 65.125],
		['999.999', 'maximalTime', 999.999],
		[' 97,5 ', 'maximalTime', 97.5]
	] as const)('accepts %j as %s %d', (input, kind, value) => {
		expect(parseCourseValue(input, kind)).toEqual(ok(value));
	});

	it.each([
		['', 'trackLength', 'empty'],
		['abc', 'standardTime', 'invalid'],
		['1 000', 'trackLength', 'invalid'],
		['-5', 'standardTime', 'negative'],
		['0', 'maximalTime', 'zero'],
		['2000.01', 'trackLength', 'too-large'],
		['1000', 'standardTime', 'too-large'],
		['1,000', 'trackLength', 'too-many-decimals'],
		['65.1255', 'standardTime', 'too-many-decimals'],
		['219.123', 'trackLength', 'too-many-decimals']
	] as const)('refuses %j as %s with %s', (input, kind, code) => {
		expect(parseCourseValue(input, kind)).toEqual(fail(code));
	});
});

// Property-based tests.

const hundredths = fc.integer({ min: 1, max: 99_999 });
const separator = fc.constantFrom('.', ',');
const space = fc.constantFrom('', ' ', '  ', '\t', '\u00a0');

/** A valid way of typing `units` hundredths: optional leading zeros, 0-2 fraction digits. */
const typedTime = fc
	.record({
		units: hundredths,
		sep: separator,
		zeros: fc.nat(2),
		pad: fc.boolean(),
		l: space,
		r: space
	})
	.map(({ units, sep, zeros, pad, l, r }) => {
		const int = String(Math.floor(units / 100));
		let frac = String(units % 100).padStart(2, '0');
		if (!pad) frac = frac.replace(/0+$/, '');
		const body = '0'.repeat(zeros) + int + (frac ? sep + frac : '');
		return { input: l + body + r, value: units / 100 };
	});

const letters = fc.string({
	unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEXYZéŠř'),
	minLength: 1
});
const anyText = fc.string({ maxLength: 12 });
/** Strings made mostly of what a number is made of: dense near the edge of the grammar. */
const numberish = fc.string({ unit: fc.constantFrom(...'0123456789.,-+ e'), maxLength: 9 });

/** An independent oracle of what parseTime may accept, for ASCII input. */
const ACCEPTED_TIME = /^\s*(\d*)(?:[.,](\d{0,2}))?\s*$/;

describe('parseTime properties', () => {
	it('parses any valid decimal with . or , and at most 2 decimals to the same number', () => {
		fc.assert(
			fc.property(typedTime, ({ input, value }) => {
				expect(parseTime(input)).toEqual(ok(value));
			})
		);
	});

	it('round-trips a comma-formatted time for every hundredth 0.01..999.99', () => {
		fc.assert(
			fc.property(hundredths, (units) => {
				const x = units / 100;
				expect(parseTime(x.toFixed(2).replace('.', ','))).toEqual(ok(x));
			})
		);
	});

	it('round-trips Intl formatting in many locales', () => {
		const locales = [
			'cs-CZ',
			'de-DE',
			'fr-FR',
			'en-US',
			'ar-EG',
			'fa-IR',
			'hi-IN',
			'bn-BD',
			'mr-IN'
		];
		fc.assert(
			fc.property(hundredths, fc.constantFrom(...locales), (units, locale) => {
				const x = units / 100;
				const text = new Intl.NumberFormat(locale, {
					minimumFractionDigits: 2,
					maximumFractionDigits: 2,
					useGrouping: false
				}).format(x);
				expect(parseTime(text)).toEqual(ok(x));
			})
		);
	});

	it('refuses anything containing a letter', () => {
		fc.assert(
			fc.property(anyText, letters, anyText, (a, l, b) => {
				expect(parseTime(a + l + b).ok).toBe(false);
				expect(parseCount(a + l + b).ok).toBe(false);
				expect(parseCourseValue(a + l + b, 'standardTime').ok).toBe(false);
			})
		);
	});

	it('refuses NaN, Infinity and exponents around valid numbers', () => {
		fc.assert(
			fc.property(
				typedTime,
				fc.constantFrom('NaN', 'Infinity', 'e3', 'E-2'),
				fc.boolean(),
				({ input }, word, before) => {
					expect(parseTime(before ? word + input : input + word).ok).toBe(false);
				}
			)
		);
	});

	it('refuses two or more separators', () => {
		fc.assert(
			fc.property(fc.nat(999), separator, fc.nat(999), separator, fc.nat(99), (a, s1, b, s2, c) => {
				expect(parseTime(`${a}${s1}${b}${s2}${c}`)).toEqual(fail('invalid'));
			})
		);
	});

	it('refuses signs: + is invalid, - is negative', () => {
		fc.assert(
			fc.property(typedTime, ({ input }) => {
				expect(parseTime('+' + input.trim())).toEqual(fail('invalid'));
				expect(parseTime('-' + input.trim())).toEqual(fail('negative'));
			})
		);
	});

	it('never accepts what the oracle refuses, and every accepted value is in range', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					anyText,
					numberish,
					typedTime.map((t) => t.input)
				),
				(input) => {
					const r = parseTime(input);
					const m = ACCEPTED_TIME.exec(input);
					const oracleOk =
						m !== null &&
						((m[1] ?? '') + (m[2] ?? '')).length > 0 &&
						(input.trim() === '' ||
							(Number(`${m[1] || '0'}.${m[2] || '0'}`) > 0 &&
								Number(`${m[1] || '0'}.${m[2] || '0'}`) <= 999.99));
					if (input.trim() === '') expect(r).toEqual(ok(null));
					else expect(r.ok).toBe(oracleOk);
					if (r.ok && r.value !== null) {
						expect(r.value).toBe(Number(`${m?.[1] || '0'}.${m?.[2] || '0'}`));
					}
				}
			),
			{ numRuns: 2000 }
		);
	});

	it('returns values on the hundredths grid within range, whatever the input', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 10 }), numberish), (input) => {
				const r = parseTime(input);
				if (r.ok && r.value !== null) {
					expect(r.value).toBeGreaterThanOrEqual(0.01);
					expect(r.value).toBeLessThanOrEqual(999.99);
					expect(Math.round(r.value * 100) / 100).toBe(r.value);
				}
			}),
			{ numRuns: 2000 }
		);
	});
});

describe('parseCount and parseCourseValue properties', () => {
	it('parses every integer 0..99 and refuses every larger one', () => {
		fc.assert(
			fc.property(fc.nat(10_000), space, (n, pad) => {
				const r = parseCount(pad + String(n) + pad);
				expect(r).toEqual(n <= 99 ? ok(n) : fail('too-large'));
			})
		);
	});

	it('parses course times in thousandths with either separator', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 999_999 }), separator, (units, sep) => {
				const text = (units / 1000).toFixed(3).replace('.', sep);
				expect(parseCourseValue(text, 'standardTime')).toEqual(ok(units / 1000));
			})
		);
	});
});

describe('parsePositive', () => {
	it.each([
		['3.5', 2, 20, ok(3.5)],
		['3,75', 2, 20, ok(3.75)],
		['1,5', 2, 10, ok(1.5)],
		['20', 2, 20, ok(20)],
		['20.01', 2, 20, fail('too-large')],
		['3.755', 2, 20, fail('too-many-decimals')],
		['0', 2, 20, fail('zero')],
		['0,00', 2, 20, fail('zero')],
		['-3', 2, 20, fail('negative')],
		['', 2, 20, fail('empty')],
		['3.5 m/s', 2, 20, fail('invalid')]
	])('reads %j (%i decimals, at most %i) as %o', (input, decimals, max, expected) => {
		expect(parsePositive(input, decimals, max)).toEqual(expected);
	});
});

describe('fractionDigits', () => {
	it.each([
		[219, 0],
		[38.6, 1],
		[38.63, 2],
		[65.125, 3],
		[0.1 + 0.2, 1],
		[1.23456, 3]
	])('gives %d %d fraction digits (at most 3)', (value, digits) => {
		expect(fractionDigits(value, 3)).toBe(digits);
	});
});
