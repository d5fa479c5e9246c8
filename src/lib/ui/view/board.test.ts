import { describe, expect, it } from 'vitest';
import type { DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import {
	boardFilled,
	currentRunIndex,
	ringBoard,
	ringOrder,
	waitingDogs,
	type RingRun
} from './board';
import { publicRing } from './public-view';
import { publicRanking, releasedRanking } from './board';

interface Result {
	time?: number | null;
	faults?: number;
	refusals?: number;
	disqualified?: boolean;
	absence?: boolean;
}

function run(id: number, startTime = '08:00:00', date = '2026-05-01', standardTime = 40): RunRow {
	return {
		id,
		competitionId: 1,
		href: `http://svc/api/v1/competitionRuns/${id}`,
		date,
		startTime,
		ringId: 1,
		judgeId: 1,
		fetchedAt: 0,
		data: {
			id,
			name: `Run ${id}`,
			date,
			startTime,
			standardTime,
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
function dog(runId: number, order: number, result: Result = {}): DogRunRow {
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
			time: null,
			faults: 0,
			refusals: 0,
			disqualified: false,
			absence: false,
			...result,
			dog: { name: `Dog ${id}` } as DogRunRow['data']['dog'],
			competitor: {} as DogRunRow['data']['competitor'],
			_links: { self: { href: `http://svc/api/v1/dogRuns/${id}` } }
		}
	};
}

/** A run whose first `done` dogs have a time (40 + i s), `count` dogs in all. */
function ringRun(id: number, count: number, done: number, startTime?: string): RingRun {
	return {
		run: run(id, startTime),
		dogRuns: Array.from({ length: count }, (_, i) => dog(id, i, i < done ? { time: 40 + i } : {}))
	};
}

function unsent(row: DogRunRow, changes: Record<string, unknown>): [string, OutboxEntry] {
	const key = `dogRun:${row.id}`;
	return [
		key,
		{
			key,
			kind: 'dogRun',
			resourceId: row.id,
			runId: row.runId,
			competitionId: 1,
			href: row.href,
			changes,
			base: {},
			status: 'pending',
			revision: 1,
			createdAt: 0,
			updatedAt: 0,
			attempts: 0,
			nextAttemptAt: 0,
			lastError: null,
			conflicts: null
		}
	];
}

const none = new Map<string, OutboxEntry>();
const ids = (dogs: readonly { row: DogRunRow }[]) => dogs.map((d) => d.row.id);

describe('ringOrder', () => {
	it('orders a ring’s runs by day, then start time, then id', () => {
		const runs = [run(3, '09:00:00'), run(2, '08:00:00', '2026-05-02'), run(1, '09:00:00')];
		expect(runs.sort(ringOrder).map((r) => r.id)).toEqual([1, 3, 2]);
	});
});

describe('waitingDogs', () => {
	it('lists the dogs without a result in ring order, across runs, up to the limit', () => {
		const a = ringRun(1, 3, 2);
		const b = ringRun(2, 4, 0);
		const waiting = waitingDogs([a, b], none, 4);
		expect(ids(waiting)).toEqual([a.dogRuns[2]!.id, ...b.dogRuns.slice(0, 3).map((d) => d.id)]);
		expect(waiting.map((d) => d.startNo)).toEqual([3, 1, 2, 3]);
	});

	it('counts an unsent result, a disqualification and an absence as having run', () => {
		const a = ringRun(1, 4, 0);
		const entries = new Map([
			unsent(a.dogRuns[0]!, { time: 38.63 }),
			unsent(a.dogRuns[1]!, { disqualified: true }),
			unsent(a.dogRuns[2]!, { absence: true })
		]);
		expect(ids(waitingDogs([a], entries))).toEqual([a.dogRuns[3]!.id]);
	});
});

describe('boardFilled', () => {
	it('holds once the dog at the start and the next five are known', () => {
		const a = ringRun(1, 5, 0);
		const b = ringRun(2, 5, 0);
		expect(boardFilled([a], none)).toBe(false);
		expect(boardFilled([a, b], none)).toBe(true);
	});
});

describe('currentRunIndex', () => {
	it('is the first run with a dog waiting, skipping finished and empty runs', () => {
		expect(currentRunIndex([ringRun(1, 3, 3), ringRun(2, 0, 0), ringRun(3, 3, 1)], none)).toBe(2);
	});

	it('stays on the last run with dogs when every dog of the ring has run', () => {
		expect(currentRunIndex([ringRun(1, 3, 3), ringRun(2, 2, 2), ringRun(3, 0, 0)], none)).toBe(1);
	});

	it('is -1 for a ring without dogs', () => {
		expect(currentRunIndex([], none)).toBe(-1);
	});
});

describe('ringBoard', () => {
	it('shows the dog at the start, the next five with the first two to the gate', () => {
		const a = ringRun(1, 10, 3);
		const board = ringBoard([a], none);
		expect(board.run?.id).toBe(1);
		expect(board.current?.row.id).toBe(a.dogRuns[3]!.id);
		expect(board.current?.startNo).toBe(4);
		expect(board.next.map((d) => d.startNo)).toEqual([5, 6, 7, 8, 9]);
		expect(board.next.map((d) => d.toGate)).toEqual([true, true, false, false, false]);
		expect(board.done).toBe(3);
		expect(board.total).toBe(10);
		expect(board.finished).toBe(false);
	});

	it('fills the queue from the next run on the ring', () => {
		const a = ringRun(1, 4, 2);
		const b = ringRun(2, 5, 0);
		const board = ringBoard([a, b], none);
		expect(board.run?.id).toBe(1);
		expect(board.next.map((d) => [d.run.id, d.startNo])).toEqual([
			[1, 4],
			[2, 1],
			[2, 2],
			[2, 3],
			[2, 4]
		]);
	});

	it('lists the last five results, the latest first, with provisional penalties and grade', () => {
		const a = ringRun(1, 8, 0);
		const results: Result[] = [
			{ time: 38 },
			{ time: 39, faults: 1 },
			{ time: 45 },
			{ disqualified: true },
			{ absence: true },
			{ time: 41.5, refusals: 2 }
		];
		a.dogRuns.forEach((row, i) => Object.assign(row.data, results[i] ?? {}));
		const board = ringBoard([a], none);
		expect(board.last.map((r) => r.startNo)).toEqual([6, 5, 4, 3, 2]);
		const [sixth, fifth, fourth, third, second] = board.last;
		expect(sixth!.view.ranked.score.total).toBe(11.5);
		expect(sixth!.view.ranked.score.grade).toBe('VD');
		expect(fifth!.view.ranked.score.status).toBe('absent');
		expect(fourth!.view.ranked.score.grade).toBe('DIS');
		expect(third!.view.ranked.score.total).toBe(5);
		expect(second!.view.ranked.score.grade).toBe('V');
	});

	it('ranks the current run best first, top ten, without eliminated or absent dogs', () => {
		const a = ringRun(1, 14, 12);
		a.dogRuns[0]!.data.disqualified = true;
		a.dogRuns[1]!.data.absence = true;
		a.dogRuns[1]!.data.time = null;
		// Times 40 s, 41 s, ... against 40 s; the 12th dog runs clean and fastest.
		a.dogRuns[11]!.data.time = 35;
		const board = ringBoard([a], none);
		expect(board.ranking).toHaveLength(10);
		expect(board.ranking[0]!.startNo).toBe(12);
		expect(board.ranking.map((r) => r.view.ranked.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(board.ranking.map((r) => r.startNo)).not.toContain(1);
		expect(board.ranking.map((r) => r.startNo)).not.toContain(2);
	});

	it('keeps start order among dogs that share a rank', () => {
		const a = ringRun(1, 3, 0);
		for (const row of a.dogRuns) row.data.time = 39;
		const board = ringBoard([a], none);
		expect(board.ranking.map((r) => [r.view.ranked.rank, r.startNo])).toEqual([
			[1, 1],
			[1, 2],
			[1, 3]
		]);
	});

	it('advances to the next run by itself when the last dog’s result is saved on the device', () => {
		const a = ringRun(1, 3, 2);
		const b = ringRun(2, 3, 0);
		expect(ringBoard([a, b], none).run?.id).toBe(1);

		const entries = new Map([unsent(a.dogRuns[2]!, { time: 37.12 })]);
		const board = ringBoard([a, b], entries);
		expect(board.run?.id).toBe(2);
		expect(board.current?.row.id).toBe(b.dogRuns[0]!.id);
		expect(board.ranking).toEqual([]);
		// The previous run's results stay on the board until the new run has its own.
		expect(board.last.map((r) => [r.run.id, r.startNo])).toEqual([
			[1, 3],
			[1, 2],
			[1, 1]
		]);
		expect(board.last[0]!.view.result.time).toBe(37.12);
	});

	it('rescores with the course parameters saved on the device', () => {
		const a = ringRun(1, 2, 2);
		const course: [string, OutboxEntry] = [
			'run:1',
			{
				...unsent(a.dogRuns[0]!, {})[1],
				key: 'run:1',
				kind: 'run',
				resourceId: 1,
				changes: { standardTime: 30 }
			}
		];
		const board = ringBoard([a], new Map([course]));
		// 40 s and 41 s against 30 s.
		expect(board.last.map((r) => r.view.ranked.score.timeFaults)).toEqual([11, 10]);
	});

	it('shows the last run’s final ranking once every dog of the ring has run', () => {
		const a = ringRun(1, 2, 2);
		const b = ringRun(2, 3, 3);
		const board = ringBoard([a, b], none);
		expect(board.finished).toBe(true);
		expect(board.run?.id).toBe(2);
		expect(board.current).toBeNull();
		expect(board.next).toEqual([]);
		expect(board.ranking).toHaveLength(3);
		expect(board.done).toBe(3);
	});

	it('is empty for a ring without dogs', () => {
		const board = ringBoard([ringRun(1, 0, 0)], none);
		expect(board).toMatchObject({ run: null, current: null, next: [], last: [], finished: true });
	});
});

describe('the board of a public view (publicRing)', () => {
	const named = (r: RingRun): RingRun => ({
		run: r.run,
		dogRuns: r.dogRuns.map((row) => ({
			...row,
			data: {
				...row.data,
				competitor: { id: 1, firstname: 'Jana', lastname: 'Nová', identifier: 'X1', country: null }
			}
		}))
	});

	it('shows a run not released as its order and who has run: no result, no ranking', () => {
		const current = named(ringRun(1, 5, 2));
		const entries = new Map([unsent(current.dogRuns[2]!, { time: 39.5 })]);
		const shown = publicRing(
			{ runs: [current], entries },
			{ handlerNames: 'initials', results: 'released', releasedRuns: [] }
		);
		const board = ringBoard(shown.runs, shown.entries);
		// The dog recorded on this device but not sent yet has run too.
		expect(board.done).toBe(3);
		expect(board.ranking).toEqual([]);
		expect(board.last.map((r) => r.view.result)).toEqual(
			[2, 1, 0].map(() => ({
				time: null,
				faults: 0,
				refusals: 0,
				disqualified: false,
				absence: false,
				withheld: { done: true }
			}))
		);
		expect(board.current?.row.id).toBe(current.dogRuns[3]!.id);
		expect(board.current?.row.data.competitor).toMatchObject({ firstname: 'J.', lastname: 'N.' });
	});

	it('shows a released run’s results and ranking, with the names as set', () => {
		const current = named(ringRun(2, 4, 2));
		const shown = publicRing(
			{ runs: [current], entries: none },
			{ handlerNames: 'hidden', results: 'released', releasedRuns: [2] }
		);
		const board = ringBoard(shown.runs, shown.entries);
		expect(board.ranking.map((r) => r.view.result.time)).toEqual([40, 41]);
		expect(board.ranking[0]!.row.data.competitor).toMatchObject({ firstname: '', lastname: '' });
	});
});

describe('the ranking a public view shows while its run is not released', () => {
	it('is the latest released run’s before it, or none', () => {
		const runs = [
			ringRun(21, 3, 3, '08:00:00'),
			ringRun(22, 3, 3, '09:00:00'),
			ringRun(23, 3, 1, '10:00:00')
		];
		const current = runs[2]!.run;
		const shown = (released: number[]) => (id: number) => released.includes(id);
		expect(releasedRanking(runs, none, current, shown([]))).toBeNull();
		const found = releasedRanking(runs, none, current, shown([21]))!;
		expect(found.run.id).toBe(21);
		expect(found.ranking.map((r) => r.view.result.time)).toEqual([40, 41, 42]);
		expect(releasedRanking(runs, none, current, shown([21, 22]))!.run.id).toBe(22);
		// The run under way itself is not what this shows.
		expect(releasedRanking(runs, none, current, shown([23]))).toBeNull();
	});

	it('is what the screens show: the board’s own once released or live, else the earlier run’s', () => {
		const runs = [ringRun(21, 3, 3, '08:00:00'), ringRun(22, 3, 1, '09:00:00')];
		const board = ringBoard(runs, none);
		expect(board.run?.id).toBe(22);
		const live = publicRanking(runs, none, board, {
			handlerNames: 'full',
			results: 'live',
			releasedRuns: []
		});
		expect(live).toEqual({ released: true, earlier: null, rows: board.ranking });
		const held = publicRanking(runs, none, board, {
			handlerNames: 'full',
			results: 'released',
			releasedRuns: [21]
		});
		expect(held.released).toBe(false);
		expect(held.earlier?.id).toBe(21);
		expect(held.rows.map((r) => r.view.result.time)).toEqual([40, 41, 42]);
		const nothing = publicRanking(runs, none, board, {
			handlerNames: 'full',
			results: 'released',
			releasedRuns: []
		});
		expect(nothing).toEqual({ released: false, earlier: null, rows: [] });
	});
});
