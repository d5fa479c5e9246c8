import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gateFill, hundredthsOf } from './gate-fill';

const offer = { seq: 4, elapsed: 3863 };

describe('gateFill', () => {
	it('fills an empty Time field with the stop offered to the dog on screen', () => {
		expect(gateFill({ offer, used: new Set(), typed: false, fieldTime: null })).toEqual({
			kind: 'fill',
			seq: 4,
			elapsed: 3863
		});
	});

	it('fills over a time the dog had (a rerun) when the steward has not typed', () => {
		expect(gateFill({ offer, used: new Set(), typed: false, fieldTime: 4012 }).kind).toBe('fill');
	});

	it('asks, never overwrites, when the steward typed a different time', () => {
		expect(gateFill({ offer, used: new Set(), typed: true, fieldTime: 3850 })).toEqual({
			kind: 'ask',
			seq: 4,
			elapsed: 3863
		});
	});

	it('fills when what they typed is the same time, or the field holds no time', () => {
		expect(gateFill({ offer, used: new Set(), typed: true, fieldTime: 3863 }).kind).toBe('fill');
		expect(gateFill({ offer, used: new Set(), typed: true, fieldTime: null }).kind).toBe('fill');
	});

	it('does nothing without an offer, or for a stop already used once', () => {
		expect(gateFill({ offer: null, used: new Set(), typed: false, fieldTime: null }).kind).toBe(
			'none'
		);
		expect(gateFill({ offer, used: new Set([4]), typed: false, fieldTime: null }).kind).toBe(
			'none'
		);
	});

	it('never overwrites a typed time with another one (property)', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 0, max: 99_999 }),
				fc.integer({ min: 0, max: 99_999 }),
				fc.boolean(),
				(typedTime, elapsed, used) => {
					const result = gateFill({
						offer: { seq: 1, elapsed },
						used: new Set(used ? [1] : []),
						typed: true,
						fieldTime: typedTime
					});
					return result.kind !== 'fill' || typedTime === elapsed;
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
