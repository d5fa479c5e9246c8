import { describe, expect, it } from 'vitest';
import { maximalFor } from './course';
import { countingResults, standardFromResults, type CourseResult } from './course-from-results';

let nextId = 1;
const run = (time: number | null, more: Partial<CourseResult> = {}): CourseResult => ({
	id: nextId++,
	time,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false,
	...more
});

describe('standardFromResults: published rounds of the FCI Agility World Championship', () => {
	// SmarterAgility's results of AWC 2024 and 2025, as parsed in strakamichal/adw-rating
	// (data/awc2024, data/awc2025; commit a709058): each round's fastest run had a fault, so the
	// SCT came from the fastest run with the fewest faults, + 15 %, to the nearest second.
	it.each([
		['AWC 2025 team agility Medium', 35.17, 36.59, 42],
		['AWC 2025 individual agility Intermediate', 38.26, 38.63, 44],
		['AWC 2025 individual agility Large', 40.0, 40.44, 47],
		['AWC 2024 team agility Small', 36.48, 37.18, 43]
	])('%s: fastest %f s with a fault, fastest clear %f s → SCT %i s', (_, faulted, clear, sct) => {
		const results = [
			run(faulted, { faults: 1 }),
			run(clear),
			run(clear + 1.2),
			run(clear - 3, { disqualified: true }),
			run(null, { absence: true })
		];
		const s = standardFromResults(results, { base: 'fastest', percent: 15, rounding: 'nearest' });
		expect(s?.standardTime).toBe(sct);
		expect(s?.from.map((r) => r.time)).toEqual([clear]);
		expect(s?.counted).toBe(3);
	});

	it('AWC 2024 individual agility Small: a clear run was the fastest, 38.68 s → 44 s', () => {
		const s = standardFromResults([run(41.02), run(38.68), run(39.9, { refusals: 1 })], {
			base: 'fastest',
			percent: 15,
			rounding: 'nearest'
		});
		expect(s).toMatchObject({ baseTime: 38.68, standardTime: 44 });
	});

	it('the FCI 2018 wording, rounded up: 30.12 s + 15 % = 34.64 → 35 s; none keeps hundredths', () => {
		const results = [run(30.12), run(31)];
		expect(
			standardFromResults(results, { base: 'fastest', percent: 15, rounding: 'up' })?.standardTime
		).toBe(35);
		expect(
			standardFromResults(results, { base: 'fastest', percent: 15, rounding: 'none' })?.standardTime
		).toBe(34.64);
	});
});

describe('standardFromResults: the mean of the three', () => {
	it('takes the first three of the ranking (fewest course faults, then fastest)', () => {
		const results = [
			run(33.1, { faults: 1 }),
			run(35.2),
			run(36.4),
			run(34.9, { refusals: 1 }),
			run(38)
		];
		const s = standardFromResults(results, { base: 'meanOfThree', percent: 10, rounding: 'up' })!;
		expect(s.from.map((r) => r.time)).toEqual([35.2, 36.4, 38]);
		expect(s.baseTime).toBe(36.53);
		// 36.5333… × 1.1 = 40.19 → 41
		expect(s.standardTime).toBe(41);
	});

	it('with fewer than three counted so far, the mean of those, and says how many', () => {
		const s = standardFromResults([run(40), run(42), run(20, { absence: true })], {
			base: 'meanOfThree',
			percent: 0,
			rounding: 'none'
		})!;
		expect(s).toMatchObject({ baseTime: 41, standardTime: 41, counted: 2 });
		expect(s.from).toHaveLength(2);
	});
});

describe('standardFromResults: what does not count', () => {
	it('is null while no run counts: none recorded, all eliminated or absent', () => {
		const rule = { base: 'fastest' as const, percent: 15, rounding: 'up' as const };
		expect(standardFromResults([], rule)).toBeNull();
		expect(
			standardFromResults(
				[run(null), run(30, { disqualified: true }), run(0), run(31, { absence: true })],
				rule
			)
		).toBeNull();
	});

	it('is null for a margin that is not a percentage it takes', () => {
		for (const percent of [-1, 101, Number.NaN]) {
			expect(
				standardFromResults([run(30)], { base: 'fastest', percent, rounding: 'up' })
			).toBeNull();
		}
	});

	it('ranks equal faults and times by id, so the suggestion never flickers', () => {
		const a = run(30);
		const b = run(30);
		expect(countingResults([b, a]).map((r) => r.id)).toEqual([a.id, b.id]);
	});
});

describe('maximalFor', () => {
	it('a multiple of the rounded SCT, or the length at a slower speed (AWC 2025: 214 m ÷ 2.5 → 86; 199 m ÷ 3.0 → 66)', () => {
		expect(maximalFor(44, 214, { speed: 2.5 }, 'nearest')).toBe(86);
		expect(maximalFor(44, 199, { speed: 3 }, 'nearest')).toBe(66);
		expect(maximalFor(35, 160, { factor: 1.5 }, 'up')).toBe(53);
		expect(maximalFor(35, 0, { speed: 2.5 }, 'up')).toBeNull();
	});
});
