import { describe, expect, it } from 'vitest';
import type { DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import type { RingRun } from './board';
import { findDogs, myDogs, ringDogs, type MarkedDog } from './my-dogs';

function run(id: number): RunRow {
	return {
		id,
		competitionId: 1,
		href: `http://svc/api/v1/competitionRuns/${id}`,
		date: '2026-05-01',
		startTime: `0${id}:00:00`,
		ringId: 1,
		judgeId: 1,
		fetchedAt: 0,
		data: {
			id,
			name: `Run ${id}`,
			date: '2026-05-01',
			startTime: `0${id}:00:00`,
			standardTime: 40,
			maximalTime: 60,
			trackLength: 200,
			progress: 0,
			dogSizeClass: { id: 1, name: 'L' },
			competitionRunLevel: { id: 1, name: 'A3' },
			judge: { id: 1, firstname: 'J', lastname: 'J', country: 'CZ' },
			competitionRing: { id: 1, name: 'Ring 1' },
			_links: { self: { href: `http://svc/api/v1/competitionRuns/${id}` } }
		} as RunRow['data']
	};
}

let nextId = 1;
/** A dog run of dog `dogId` in run `runId`, with a time when `time` is given. */
function entry(runId: number, order: number, dogId: number, time: number | null = null): DogRunRow {
	const id = nextId++;
	return {
		id,
		runId,
		competitionId: 1,
		order,
		href: `http://svc/api/v1/dogRuns/${id}`,
		fetchedAt: 0,
		data: {
			id,
			time,
			faults: 0,
			refusals: 0,
			disqualified: false,
			absence: false,
			dog: { id: dogId, name: `Dog ${dogId}` } as DogRunRow['data']['dog'],
			competitor: {
				firstname: 'Ann',
				lastname: `Handler${dogId}`
			} as DogRunRow['data']['competitor'],
			_links: { self: { href: `http://svc/api/v1/dogRuns/${id}` } }
		}
	};
}

/** Run 1: dogs 11–15, the first two ran. Run 2: dogs 21–23 and dog 11 again, none ran. */
function ring(): RingRun[] {
	return [
		{
			run: run(1),
			dogRuns: [
				entry(1, 0, 11, 41),
				entry(1, 1, 12, 39),
				entry(1, 2, 13),
				entry(1, 3, 14),
				entry(1, 4, 15)
			]
		},
		{
			run: run(2),
			dogRuns: [entry(2, 0, 21), entry(2, 1, 22), entry(2, 2, 11), entry(2, 3, 23)]
		}
	];
}

const mark = (id: number): MarkedDog => ({ id, name: `Dog ${id}`, handler: 'x' });
const none = new Map<string, OutboxEntry>();

describe('myDogs', () => {
	it.each([
		{ dog: 13, kind: 'start', before: undefined, run: 1 },
		{ dog: 14, kind: 'gate', before: 1, run: 1 },
		{ dog: 15, kind: 'gate', before: 2, run: 1 },
		{ dog: 21, kind: 'waiting', before: 3, run: 2 },
		// Ran in run 1, starts again in run 2: its next start counts.
		{ dog: 11, kind: 'waiting', before: 5, run: 2 },
		{ dog: 12, kind: 'done', before: undefined, run: 1 },
		{ dog: 99, kind: 'elsewhere', before: undefined, run: undefined }
	])('dog $dog: $kind', ({ dog, kind, before, run }) => {
		const [mine] = myDogs(ring(), none, [mark(dog)]);
		expect(mine!.status.kind).toBe(kind);
		if ('before' in mine!.status) expect(mine!.status.before).toBe(before);
		if ('run' in mine!.status) expect(mine!.status.run.id).toBe(run);
	});

	it('ranks a dog that is done in its run', () => {
		const [mine] = myDogs(ring(), none, [mark(12)]);
		expect(mine!.status).toMatchObject({ kind: 'done', startNo: 2 });
		if (mine!.status.kind !== 'done') throw new Error('not done');
		// 39 s beats 41 s, both clean under the standard time.
		expect(mine!.status.view.ranked.rank).toBe(1);
	});

	it('lists the dogs in the order they come, the done and those elsewhere last', () => {
		const order = myDogs(ring(), none, [mark(99), mark(12), mark(21), mark(14)]).map(
			(d) => d.dog.id
		);
		expect(order).toEqual([14, 21, 12, 99]);
	});

	it('counts an unsent result of this phone as run (a spectator’s phone has none, a steward’s may)', () => {
		const runs = ring();
		const third = runs[0]!.dogRuns[2]!;
		const entries = new Map<string, OutboxEntry>([
			[
				`dogRun:${third.id}`,
				{
					key: `dogRun:${third.id}`,
					kind: 'dogRun',
					resourceId: third.id,
					changes: { time: 44 }
				} as unknown as OutboxEntry
			]
		]);
		const [mine] = myDogs(runs, entries, [mark(14)]);
		expect(mine!.status.kind).toBe('start');
	});
});

describe('finding a dog', () => {
	it('lists every dog of the ring once', () => {
		expect(ringDogs(ring()).map((d) => d.id)).toEqual([11, 12, 13, 14, 15, 21, 22, 23]);
	});

	it.each([
		['dog 22', [22]],
		['HANDLER13', [13]],
		['dog handler22', [22]],
		['', []],
		['nobody', []]
	])('“%s”', (typed, ids) => {
		expect(findDogs(ringDogs(ring()), typed as string).map((d) => d.id)).toEqual(ids);
	});

	it('ignores accents and case', () => {
		const dogs = [{ id: 1, name: 'Šárka', handler: 'Jiří Dvořák' }];
		expect(findDogs(dogs, 'sarka dvorak')).toHaveLength(1);
	});
});
