import { describe, expect, it } from 'vitest';
import type { CourseParams, DogRunResult } from './types';
import { validateCourse, validateDogRunEntry } from './validation';

const course: CourseParams = { trackLength: 219, standardTime: 65, maximalTime: 97.5 };
const run = (r: Partial<DogRunResult>): DogRunResult => ({
	time: null,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false,
	...r
});

describe('validateDogRunEntry', () => {
	it.each([
		['a clean run', run({ time: 38.63 })],
		['faults and refusals', run({ time: 68.17, faults: 2, refusals: 1 })],
		['a plain absence', run({ absence: true })],
		['a disqualification without time', run({ disqualified: true })],
		['a time exactly at MCT', run({ time: 97.5 })]
	])('accepts %s with no errors or hints', (_, entry) => {
		const v = validateDogRunEntry(entry, course);
		expect(v.errors).toEqual([]);
		expect(v.hints).toEqual([]);
		expect(v.normalized).toEqual(entry);
	});

	it.each([
		[
			'time with absent',
			run({ absence: true, time: 40 }),
			[{ field: 'time', code: 'time-with-absent' }]
		],
		[
			'absent and disqualified',
			run({ absence: true, disqualified: true }),
			[{ field: 'absence', code: 'absent-and-disqualified' }]
		],
		[
			'penalties with absent',
			run({ absence: true, faults: 1, refusals: 2 }),
			[
				{ field: 'faults', code: 'penalties-with-absent' },
				{ field: 'refusals', code: 'penalties-with-absent' }
			]
		],
		['negative time', run({ time: -1 }), [{ field: 'time', code: 'negative' }]],
		['zero time', run({ time: 0 }), [{ field: 'time', code: 'zero' }]],
		['time over the limit', run({ time: 1000 }), [{ field: 'time', code: 'too-large' }]],
		['time in thousandths', run({ time: 38.634 }), [{ field: 'time', code: 'too-many-decimals' }]],
		['NaN time', run({ time: Number.NaN }), [{ field: 'time', code: 'invalid' }]],
		['negative faults', run({ time: 40, faults: -1 }), [{ field: 'faults', code: 'negative' }]],
		[
			'fractional refusals',
			run({ time: 40, refusals: 1.5 }),
			[{ field: 'refusals', code: 'not-integer' }]
		],
		[
			'faults over the limit',
			run({ time: 40, faults: 100 }),
			[{ field: 'faults', code: 'too-large' }]
		]
	])('reports %s as an error', (_, entry, errors) => {
		expect(validateDogRunEntry(entry, course).errors).toEqual(errors);
	});

	it.each([
		[
			'a 3rd refusal',
			run({ time: 50, refusals: 3 }),
			[{ field: 'refusals', code: 'third-refusal-eliminates' }],
			true
		],
		[
			'a 3rd refusal before the time is in',
			run({ refusals: 3 }),
			[{ field: 'refusals', code: 'third-refusal-eliminates' }],
			true
		],
		[
			'a 3rd refusal already disqualified',
			run({ refusals: 4, disqualified: true }),
			[{ field: 'refusals', code: 'third-refusal-eliminates' }],
			true
		],
		['a time over MCT', run({ time: 97.51 }), [{ field: 'time', code: 'over-maximal-time' }], true],
		[
			'both',
			run({ time: 120, refusals: 3 }),
			[
				{ field: 'refusals', code: 'third-refusal-eliminates' },
				{ field: 'time', code: 'over-maximal-time' }
			],
			true
		],
		['no time yet', run({ faults: 1 }), [{ field: 'time', code: 'no-time' }], false],
		['two refusals', run({ refusals: 2 }), [{ field: 'time', code: 'no-time' }], false]
	])('hints at %s', (_, entry, hints, disqualified) => {
		const v = validateDogRunEntry(entry, course);
		expect(v.errors).toEqual([]);
		expect(v.hints).toEqual(hints);
		expect(v.normalized).toEqual({ ...entry, disqualified });
	});

	it('cannot apply the MCT rule without a course', () => {
		const v = validateDogRunEntry(run({ time: 500 }), null);
		expect(v.hints).toEqual([]);
		expect(v.normalized.disqualified).toBe(false);
	});

	it('does not eliminate an absent dog, even with refusals', () => {
		const v = validateDogRunEntry(run({ absence: true, refusals: 3 }), course);
		expect(v.hints).toEqual([]);
		expect(v.normalized.disqualified).toBe(false);
	});

	it('snaps float drift back onto hundredths', () => {
		const v = validateDogRunEntry(run({ time: 0.1 + 0.2 }), course);
		expect(v.errors).toEqual([]);
		expect(v.normalized.time).toBe(0.3);
	});

	it('is idempotent on its normalized entry', () => {
		const first = validateDogRunEntry(run({ time: 120, refusals: 3 }), course);
		const second = validateDogRunEntry(first.normalized, course);
		expect(second).toEqual(first);
	});
});

describe('validateCourse', () => {
	it.each([
		[{ trackLength: 219, standardTime: 65, maximalTime: 97.5 }],
		[{ trackLength: 219, standardTime: 65, maximalTime: 65 }],
		[{ trackLength: 350, standardTime: 50, maximalTime: 75 }],
		[{ trackLength: 180.5, standardTime: 60.125, maximalTime: 90.188 }]
	])('accepts %j', (params) => {
		expect(validateCourse(params)).toEqual({ errors: [], hints: [] });
	});

	it.each([
		[
			{ trackLength: 219, standardTime: 65, maximalTime: 60 },
			'maximalTime',
			'maximal-below-standard'
		],
		[{ trackLength: 0, standardTime: 65, maximalTime: 97 }, 'trackLength', 'zero'],
		[{ trackLength: -5, standardTime: 65, maximalTime: 97 }, 'trackLength', 'negative'],
		[{ trackLength: 2500, standardTime: 65, maximalTime: 97 }, 'trackLength', 'too-large'],
		[
			{ trackLength: 219.125, standardTime: 65, maximalTime: 97 },
			'trackLength',
			'too-many-decimals'
		],
		[
			{ trackLength: 219, standardTime: 65.1234, maximalTime: 97 },
			'standardTime',
			'too-many-decimals'
		],
		[{ trackLength: 219, standardTime: 65, maximalTime: 1000 }, 'maximalTime', 'too-large'],
		[{ trackLength: 219, standardTime: Number.NaN, maximalTime: 97 }, 'standardTime', 'invalid']
	])('refuses %j: %s %s', (params, field, code) => {
		expect(validateCourse(params).errors).toEqual([{ field, code }]);
	});

	it.each([
		[{ trackLength: 219, standardTime: 30, maximalTime: 45 }, true],
		[{ trackLength: 210, standardTime: 30, maximalTime: 45 }, false],
		[{ trackLength: 211, standardTime: 30, maximalTime: 45 }, true]
	])('hints at a very fast course for %j: %s', (params, fast) => {
		const v = validateCourse(params);
		expect(v.errors).toEqual([]);
		expect(v.hints).toEqual(fast ? [{ field: 'standardTime', code: 'very-fast-course' }] : []);
	});
});
