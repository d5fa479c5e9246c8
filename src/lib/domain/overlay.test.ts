import { describe, expect, it } from 'vitest';
import { courseOf, hasRun, overlay, resultOf } from './overlay';

const dog = { time: null, faults: 0, refusals: 0, disqualified: false, absence: false };

describe('overlay', () => {
	it('lays unsent changes over the snapshot without touching it', () => {
		const snapshot = { id: 1, time: null as number | null, faults: 0, name: 'Bára' };
		expect(overlay(snapshot, { changes: { time: 40, faults: 5 } })).toEqual({
			id: 1,
			time: 40,
			faults: 5,
			name: 'Bára'
		});
		expect(snapshot.time).toBeNull();
		expect(overlay(snapshot, null)).toBe(snapshot);
		expect(overlay(snapshot, undefined)).toBe(snapshot);
	});

	it('shows a result with its unsent edit, and only the result fields', () => {
		const data = { ...dog, name: 'Bára' };
		expect(resultOf(data, { changes: { time: 38.63 } })).toEqual({ ...dog, time: 38.63 });
	});

	it.each([
		[{}, false],
		[{ time: 38.63 }, true],
		[{ disqualified: true }, true],
		[{ absence: true }, true],
		[{ faults: 2 }, false]
	])('counts a dog with %o unsent as run: %s', (changes, run) => {
		expect(hasRun(dog, { changes })).toBe(run);
	});

	it('shows the course with an unsent change of the standard time', () => {
		const run = { trackLength: 210, standardTime: 60, maximalTime: 90, name: 'A3' };
		expect(courseOf(run, { changes: { standardTime: 58 } })).toEqual({
			trackLength: 210,
			standardTime: 58,
			maximalTime: 90
		});
	});
});
