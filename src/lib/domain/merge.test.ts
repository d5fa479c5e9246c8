import { describe, expect, it } from 'vitest';
import {
	coalesce,
	pruneEdit,
	resolveConflicts,
	sameFieldValue,
	threeWayMerge,
	type MergeDecision,
	type PendingEdit
} from './merge';
import type { CourseParams, DogRunResult } from './types';

const server: DogRunResult = {
	time: null,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false
};

describe('sameFieldValue', () => {
	it.each([
		[65, 65, true],
		[65, 65.0, true],
		[65, 64.99999999, true],
		[38.63, 38.629999999999995, true],
		[0.1 + 0.2, 0.3, true],
		[65.125, 65.125, true],
		[65.125, 65.126, false],
		[38.63, 38.64, false],
		[0, -0, true],
		[null, null, true],
		[null, 0, false],
		[0, null, false],
		[null, undefined, false],
		[undefined, undefined, true],
		[false, false, true],
		[false, 0, false],
		[true, 1, false],
		['65', 65, false],
		[Number.NaN, Number.NaN, true],
		[Infinity, Infinity, true],
		[Infinity, 1e308, false]
	])('%j vs %j: %s', (a, b, equal) => {
		expect(sameFieldValue(a, b)).toBe(equal);
		expect(sameFieldValue(b, a)).toBe(equal);
	});
});

describe('threeWayMerge, one field', () => {
	type Case = [string, number | null | undefined, number | null, number | null, string];
	it.each<Case>([
		// name, base, mine, theirs, outcome
		['theirs == base, mine differs: send', 40, 41, 40, 'send'],
		['theirs == mine, base differs: already applied', 40, 41, 41, 'applied'],
		['all equal: already applied, not resent', 40, 40, 40, 'applied'],
		['all differ: conflict', 40, 41, 42, 'conflict'],
		['mine == base, theirs moved: conflict', 40, 40, 42, 'conflict'],
		['base null, theirs null, mine a time: send', null, 38.63, null, 'send'],
		['base null, theirs == mine: already applied', null, 38.63, 38.63, 'applied'],
		['base null, theirs another time: conflict', null, 38.63, 39.1, 'conflict'],
		['mine clears the time, server untouched: send', 38.63, null, 38.63, 'send'],
		['mine clears the time, server cleared too: applied', 38.63, null, null, 'applied'],
		['mine clears the time, server changed it: conflict', 38.63, null, 39, 'conflict'],
		['base a number, theirs null, mine a number: conflict', 38.63, 40, null, 'conflict'],
		['base missing, theirs == mine: already applied', undefined, 40, 40, 'applied'],
		['base missing, theirs differs: conflict', undefined, 40, 41, 'conflict'],
		['float noise on base: send', 65, 66, 64.99999999, 'send'],
		['float noise on mine: already applied', 40, 38.63, 38.629999999999995, 'applied'],
		['hundredths apart: conflict', 38.63, 38.7, 38.64, 'conflict']
	])('%s', (_, base, mine, theirs, outcome) => {
		const d = threeWayMerge<DogRunResult>(
			base === undefined ? {} : { time: base },
			{ time: mine },
			{ ...server, time: theirs }
		);
		const expected: MergeDecision<DogRunResult> = {
			send: outcome === 'send' ? { time: mine } : {},
			alreadyApplied: outcome === 'applied' ? ['time'] : [],
			conflicts:
				outcome === 'conflict'
					? [{ field: 'time', base: base === undefined ? undefined : base, mine, theirs }]
					: []
		};
		expect(d).toEqual(expected);
	});
});

describe('threeWayMerge, whole records', () => {
	it('merges a timekeeper and a scribe editing different fields of one dog', () => {
		// The scribe's faults and refusals reached the server first; the timekeeper replays a time.
		const theirs = { ...server, faults: 2, refusals: 1 };
		const d = threeWayMerge<DogRunResult>({ time: null }, { time: 68.17 }, theirs);
		expect(d).toEqual({ send: { time: 68.17 }, alreadyApplied: [], conflicts: [] });
	});

	it('splits one edit into sent, applied and conflicting fields', () => {
		const d = threeWayMerge<DogRunResult>(
			{ time: null, faults: 0, refusals: 0, disqualified: false },
			{ time: 40.5, faults: 1, refusals: 3, disqualified: true },
			{ ...server, faults: 1, refusals: 2 }
		);
		expect(d).toEqual({
			send: { time: 40.5, disqualified: true },
			alreadyApplied: ['faults'],
			conflicts: [{ field: 'refusals', base: 0, mine: 3, theirs: 2 }]
		});
	});

	it('merges booleans and ignores fields set to undefined', () => {
		const d = threeWayMerge<DogRunResult>(
			{ absence: false, disqualified: false },
			{ absence: true, disqualified: undefined },
			server
		);
		expect(d).toEqual({ send: { absence: true }, alreadyApplied: [], conflicts: [] });
	});

	it('compares course times at thousandths', () => {
		const theirs: CourseParams = { trackLength: 219, standardTime: 65.0, maximalTime: 97.4999999 };
		const d = threeWayMerge<CourseParams>(
			{ standardTime: 65, maximalTime: 97.5 },
			{ standardTime: 62.5, maximalTime: 95.125 },
			theirs
		);
		expect(d).toEqual({
			send: { standardTime: 62.5, maximalTime: 95.125 },
			alreadyApplied: [],
			conflicts: []
		});
	});

	it('has nothing to do for an empty edit', () => {
		expect(threeWayMerge<DogRunResult>({}, {}, server)).toEqual({
			send: {},
			alreadyApplied: [],
			conflicts: []
		});
	});
});

describe('resolveConflicts', () => {
	const decision: MergeDecision<DogRunResult> = {
		send: { disqualified: true },
		alreadyApplied: ['faults'],
		conflicts: [
			{ field: 'refusals', base: 0, mine: 3, theirs: 2 },
			{ field: 'time', base: null, mine: 40.5, theirs: 41 }
		]
	};

	it.each([
		[
			'mine everywhere',
			'mine' as const,
			{ base: { refusals: 2, time: 41 }, changes: { refusals: 3, time: 40.5 } },
			[]
		],
		['theirs everywhere', 'theirs' as const, null, []],
		[
			'per field',
			{ refusals: 'mine', time: 'theirs' } as const,
			{ base: { refusals: 2 }, changes: { refusals: 3 } },
			[]
		],
		[
			'per field, one left open',
			{ time: 'mine' } as const,
			{ base: { time: 41 }, changes: { time: 40.5 } },
			[{ field: 'refusals', base: 0, mine: 3, theirs: 2 }]
		],
		['per field, all theirs', { time: 'theirs', refusals: 'theirs' } as const, null, []]
	])('%s', (_, choice, edit, unresolved) => {
		expect(resolveConflicts(decision, choice)).toEqual({ edit, unresolved });
	});

	it('queues an edit that the next replay sends if the server has not moved again', () => {
		const theirs = { ...server, refusals: 2, time: 41 };
		const { edit } = resolveConflicts(decision, 'mine');
		expect(edit).not.toBeNull();
		if (!edit) return;
		expect(threeWayMerge(edit.base, edit.changes, theirs).send).toEqual({
			refusals: 3,
			time: 40.5
		});
	});

	it('has nothing to queue without conflicts', () => {
		expect(
			resolveConflicts({ send: { time: 40 }, alreadyApplied: [], conflicts: [] }, 'mine')
		).toEqual({ edit: null, unresolved: [] });
	});
});

describe('coalesce', () => {
	type Edit = PendingEdit<DogRunResult>;
	it.each<[string, Edit, Edit, Edit | null]>([
		[
			'a later value of the same field keeps the original base',
			{ base: { time: null }, changes: { time: 38.63 } },
			{ base: { time: 38.63 }, changes: { time: 38.36 } },
			{ base: { time: null }, changes: { time: 38.36 } }
		],
		[
			'a field new to this edit takes its base from the next edit',
			{ base: { time: null }, changes: { time: 38.63 } },
			{ base: { faults: 0 }, changes: { faults: 1 } },
			{ base: { time: null, faults: 0 }, changes: { time: 38.63, faults: 1 } }
		],
		[
			'fields untouched by the next edit stay as they were',
			{ base: { faults: 0, refusals: 0 }, changes: { faults: 1, refusals: 1 } },
			{ base: { refusals: 1 }, changes: { refusals: 2 } },
			{ base: { faults: 0, refusals: 0 }, changes: { faults: 1, refusals: 2 } }
		],
		[
			'a field edited back to its base is dropped',
			{ base: { time: null, faults: 0 }, changes: { time: 38.63, faults: 1 } },
			{ base: { faults: 1 }, changes: { faults: 0 } },
			{ base: { time: null }, changes: { time: 38.63 } }
		],
		[
			'an edit with every field back at its base is empty',
			{ base: { time: null }, changes: { time: 38.63 } },
			{ base: { time: 38.63 }, changes: { time: null } },
			null
		],
		[
			'back to base within float noise is dropped too',
			{ base: { time: 40.3 }, changes: { time: 41 } },
			{ base: { time: 41 }, changes: { time: 0.1 + 0.2 + 40 } },
			null
		],
		[
			'null is a value, not a missing one',
			{ base: { time: 38.63 }, changes: { time: null } },
			{ base: { time: null }, changes: { time: 40 } },
			{ base: { time: 38.63 }, changes: { time: 40 } }
		],
		[
			'booleans toggled twice cancel out',
			{ base: { absence: false }, changes: { absence: true } },
			{ base: { absence: true }, changes: { absence: false } },
			null
		],
		[
			'an existing field without a recorded base borrows the next base',
			{ base: {}, changes: { faults: 1 } },
			{ base: { faults: 1 }, changes: { faults: 2 } },
			{ base: { faults: 1 }, changes: { faults: 2 } }
		],
		[
			'an empty next edit changes nothing',
			{ base: { faults: 0 }, changes: { faults: 1 } },
			{ base: {}, changes: {} },
			{ base: { faults: 0 }, changes: { faults: 1 } }
		]
	])('%s', (_, existing, next, expected) => {
		expect(coalesce(existing, next)).toEqual(expected);
	});

	it('never mutates its inputs', () => {
		const existing: Edit = { base: { time: null }, changes: { time: 38.63 } };
		const next: Edit = { base: { faults: 0 }, changes: { faults: 1 } };
		const copies = structuredClone([existing, next]);
		coalesce(existing, next);
		expect([existing, next]).toEqual(copies);
	});
});

describe('pruneEdit', () => {
	it.each<[PendingEdit<DogRunResult>, PendingEdit<DogRunResult> | null]>([
		[{ base: { faults: 0 }, changes: { faults: 0 } }, null],
		[
			{ base: { faults: 0, time: null }, changes: { faults: 0, time: 40 } },
			{ base: { time: null }, changes: { time: 40 } }
		],
		[
			{ base: {}, changes: { faults: 2 } },
			{ base: {}, changes: { faults: 2 } }
		],
		[{ base: {}, changes: {} }, null]
	])('%j becomes %j', (edit, expected) => {
		expect(pruneEdit(edit)).toEqual(expected);
	});
});
