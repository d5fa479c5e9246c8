import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gateFill, hundredthsOf } from './gate-fill';

const offer = { seq: 4, elapsed: 3863 };
const none = new Set<number>();

describe('gateFill', () => {
	it('fills an empty Time field with the stop offered to the dog on screen', () => {
		expect(gateFill({ offer, used: none, seen: none, fieldTime: null })).toEqual({
			kind: 'fill',
			seq: 4,
			elapsed: 3863
		});
	});

	it('asks, never overwrites, when the field holds another time: typed, stored or an earlier stop', () => {
		expect(gateFill({ offer, used: none, seen: none, fieldTime: 3850 })).toEqual({
			kind: 'ask',
			seq: 4,
			elapsed: 3863
		});
	});

	it('fills when the field already holds the same time', () => {
		expect(gateFill({ offer, used: none, seen: none, fieldTime: 3863 }).kind).toBe('fill');
	});

	it('does nothing without an offer, for a stop decided before, or one this form dealt with', () => {
		expect(gateFill({ offer: null, used: none, seen: none, fieldTime: null }).kind).toBe('none');
		expect(gateFill({ offer, used: new Set([4]), seen: none, fieldTime: null }).kind).toBe('none');
		expect(gateFill({ offer, used: none, seen: new Set([4]), fieldTime: 3000 }).kind).toBe('none');
	});

	it('never replaces a time in the field with another one (property)', () => {
		fc.assert(
			fc.property(
				fc.option(fc.integer({ min: 0, max: 99_999 }), { nil: null }),
				fc.integer({ min: 0, max: 99_999 }),
				fc.boolean(),
				fc.boolean(),
				(fieldTime, elapsed, used, seen) => {
					const result = gateFill({
						offer: { seq: 1, elapsed },
						used: new Set(used ? [1] : []),
						seen: new Set(seen ? [1] : []),
						fieldTime
					});
					return result.kind !== 'fill' || fieldTime === null || fieldTime === elapsed;
				}
			)
		);
	});
});

describe('hundredthsOf', () => {
	it('reads seconds with two decimals as whole hundredths, without float drift', () => {
		expect(hundredthsOf(38.63)).toBe(3863);
		expect(hundredthsOf(0.29)).toBe(29);
		expect(hundredthsOf(null)).toBeNull();
	});
});
