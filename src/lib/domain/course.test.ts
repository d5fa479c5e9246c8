import { describe, expect, it } from 'vitest';
import {
	courseTimes,
	roundSeconds,
	timeFromFactor,
	timeFromSpeed,
	type MaximalRule,
	type Rounding
} from './course';

describe('roundSeconds', () => {
	it.each<[number, Rounding, number]>([
		[62.571428, 'up', 63],
		[62.571428, 'nearest', 63],
		[62.571428, 'none', 62.57],
		[62.4, 'up', 63],
		[62.4, 'nearest', 62],
		[62.5, 'nearest', 63],
		[62, 'up', 62],
		// float division a hair above or below a whole second
		[50.00000000000001, 'up', 50],
		[49.99999999999999, 'up', 50],
		[114.99999999999999, 'nearest', 115],
		[75.757575, 'none', 75.76],
		[36.300000000000004, 'none', 36.3]
	])('%d rounded %s is %d', (seconds, rounding, expected) => {
		expect(roundSeconds(seconds, rounding)).toBe(expected);
	});
});

describe('timeFromSpeed', () => {
	it.each<[number, number, Rounding | undefined, number | null]>([
		// 219 m at 3.5 m/s = 62.57 s
		[219, 3.5, undefined, 63],
		[219, 3.5, 'up', 63],
		[219, 3.5, 'nearest', 63],
		[219, 3.5, 'none', 62.57],
		[160, 3.2, 'up', 50],
		[180, 3.6, 'up', 50],
		[250, 3.3, 'nearest', 76],
		[250, 3.3, 'none', 75.76],
		// MCT from a slower speed: 219 m at 2.5 m/s = 87.6 s
		[219, 2.5, 'up', 88],
		[219, 2.5, 'none', 87.6],
		[219, 0, 'up', null],
		[0, 3.5, 'up', null],
		[219, -3, 'up', null],
		[Number.NaN, 3.5, 'up', null],
		[219, Number.POSITIVE_INFINITY, 'up', null]
	])('%d m at %d m/s (%s) gives %d s', (length, speed, rounding, expected) => {
		expect(timeFromSpeed(length, speed, rounding)).toBe(expected);
	});
});

describe('timeFromFactor', () => {
	it.each<[number, number, Rounding, number | null]>([
		[63, 1.5, 'up', 95],
		[63, 1.5, 'nearest', 95],
		[63, 1.5, 'none', 94.5],
		[62, 1.5, 'up', 93],
		[33, 1.1, 'none', 36.3],
		[62.57, 2, 'none', 125.14],
		[63, 0, 'up', null],
		[0, 1.5, 'up', null]
	])('%d s × %d (%s) gives %d s', (standard, factor, rounding, expected) => {
		expect(timeFromFactor(standard, factor, rounding)).toBe(expected);
	});
});

describe('courseTimes', () => {
	it.each<[number, number, MaximalRule, Rounding | undefined, ReturnType<typeof courseTimes>]>([
		// the MCT multiplies the SCT as published (rounded), not the raw quotient
		[219, 3.5, { factor: 1.5 }, undefined, { standardTime: 63, maximalTime: 95 }],
		[219, 3.5, { factor: 1.5 }, 'none', { standardTime: 62.57, maximalTime: 93.86 }],
		[219, 3.5, { speed: 2.5 }, 'up', { standardTime: 63, maximalTime: 88 }],
		[219, 3.5, { factor: 2 }, 'nearest', { standardTime: 63, maximalTime: 126 }],
		[219, 0, { factor: 1.5 }, 'up', null],
		[219, 3.5, { factor: 0 }, 'up', null],
		[219, 3.5, { speed: 0 }, 'up', null]
	])('%d m at %d m/s, MCT %o, rounding %s', (length, speed, maximal, rounding, expected) => {
		expect(courseTimes(length, speed, maximal, rounding)).toEqual(expected);
	});
});
