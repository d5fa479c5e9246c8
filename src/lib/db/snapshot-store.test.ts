import 'fake-indexeddb/auto';
import { liveQuery } from 'dexie';
import { beforeEach, describe, expect, it } from 'vitest';
import { db, type DogRunRow } from './db';
import type { DogRun } from '$lib/api/schemas';
import {
	dogRunsInOrder,
	PUT_CHUNK,
	putDogRunSnapshots,
	putInChunks,
	touchDogRunSnapshots
} from './snapshot-store';

beforeEach(async () => {
	await db.delete();
	await db.open();
});

function row(id: number, runId: number, order: number): DogRunRow {
	return {
		id,
		runId,
		competitionId: 1,
		order,
		href: `http://service/api/v1/dogRuns/${id}`,
		data: { id } as unknown as DogRunRow['data'],
		fetchedAt: 0
	};
}

const singleRead = (runId: number) =>
	db.dogRuns.where('[runId+order]').between([runId, 0], [runId, Infinity]).toArray();

describe('dogRunsInOrder', () => {
	it('reads what one read of the start order gives, over several windows', async () => {
		const rows: DogRunRow[] = [];
		for (let i = 0; i < 1000; i++) rows.push(row(10_000 - i, 7, i));
		// A stale row sharing a position, one at a window's edge, and rows of other runs.
		rows.push(row(1, 7, 199), row(2, 7, 200), row(3, 7, 999), row(4, 8, 0), row(5, 6, 5));
		await db.dogRuns.bulkPut(rows);
		const read = await dogRunsInOrder(7);
		expect(read.map((r) => r.id)).toEqual((await singleRead(7)).map((r) => r.id));
		expect(read).toHaveLength(1003);
		expect(await dogRunsInOrder(9)).toEqual([]);
	});

	it('answers a live query again when a row of the run changes', async () => {
		await db.dogRuns.bulkPut([row(1, 7, 0), row(2, 7, 1)]);
		const seen: number[][] = [];
		const subscription = liveQuery(() => dogRunsInOrder(7)).subscribe((rows) =>
			seen.push(rows.map((r) => r.fetchedAt))
		);
		try {
			await expect.poll(() => seen.length).toBe(1);
			await db.dogRuns.put({ ...row(2, 7, 1), fetchedAt: 5 });
			await expect.poll(() => seen.at(-1)).toEqual([0, 5]);
		} finally {
			subscription.unsubscribe();
		}
	});
});

/** A dog run as the service sends it, with the run it embeds. */
function answer(id: number, time: number | null, progress = 10): DogRun {
	return {
		id,
		time,
		refusals: 0,
		faults: 0,
		disqualified: false,
		absence: false,
		competitionRun: { id: 7, progress } as DogRun['competitionRun'],
		dog: { id: 1 } as DogRun['dog'],
		competitor: { id: 2 } as DogRun['competitor'],
		_links: { self: { href: `http://service/api/v1/dogRuns/${id}` } }
	};
}

describe('putDogRunSnapshots', () => {
	beforeEach(async () => {
		await db.runs.put({
			id: 7,
			competitionId: 1,
			href: 'http://service/api/v1/competitionRuns/7',
			date: '2026-01-01',
			startTime: '08:00:00',
			ringId: 1,
			judgeId: 1,
			data: { id: 7, progress: 10, _links: {} } as never,
			fetchedAt: 0
		});
	});

	it('stores the answers of dog runs close together or far apart, and only those stored', async () => {
		await db.dogRuns.bulkPut([row(10, 7, 0), row(11, 7, 1), row(13, 7, 2), row(5000, 7, 3)]);
		// 12 is not stored (between stored ones): skipped, as is 9000.
		const near = [10, 11, 12, 13].map((id) => answer(id, 20 + id));
		expect(await putDogRunSnapshots(near, 5)).toBe(3);
		expect(await putDogRunSnapshots([answer(10, 1), answer(5000, 2), answer(9000, 3)], 6)).toBe(2);
		const rows = await db.dogRuns.bulkGet([10, 11, 12, 13, 5000, 9000]);
		expect(rows.map((r) => r && [r.data.time, r.fetchedAt, r.order])).toEqual([
			[1, 6, 0],
			[31, 5, 1],
			undefined,
			[33, 5, 2],
			[2, 6, 3],
			undefined
		]);
		expect(rows[0]?.data).not.toHaveProperty('competitionRun');
	});

	it('leaves a row that already holds what was sent when asked to, and says so', async () => {
		await db.dogRuns.bulkPut([row(1, 7, 0), row(2, 7, 1)]);
		expect(await putDogRunSnapshots([answer(1, 12), answer(2, 13)], 5)).toBe(2);
		const unchanged: number[] = [];
		const stored = await putDogRunSnapshots([answer(1, 12, 40), answer(2, 99, 40)], 8, {
			keepIfSame: new Set([1, 2]),
			unchanged: (id) => unchanged.push(id)
		});
		expect(stored).toBe(2);
		expect(unchanged).toEqual([1]);
		expect((await db.dogRuns.get(1))?.fetchedAt).toBe(5);
		expect(await db.dogRuns.get(2)).toMatchObject({ data: { time: 99 }, fetchedAt: 8 });
		// The run's progress is taken from every answer, kept or not.
		expect((await db.runs.get(7))?.data.progress).toBe(40);

		await touchDogRunSnapshots(
			new Map([
				[1, 9],
				[2, 7],
				[3, 9]
			])
		);
		expect((await db.dogRuns.get(1))?.fetchedAt).toBe(9);
		// Never back in time; not stored stays not stored.
		expect((await db.dogRuns.get(2))?.fetchedAt).toBe(8);
		expect(await db.dogRuns.get(3)).toBeUndefined();
	});
});

describe('putInChunks', () => {
	const many = (n: number) => Array.from({ length: n }, (_, i) => row(i + 1, 7, i));

	it('stores every row, over several writes', async () => {
		const rows = many(PUT_CHUNK * 2 + 3);
		await db.transaction('rw', db.dogRuns, () => putInChunks(db.dogRuns, rows));
		expect(await singleRead(7)).toEqual(rows);
	});

	it('stores nothing when the transaction fails after some chunks (all or nothing)', async () => {
		await db.dogRuns.put(row(1, 7, 0));
		const before = await singleRead(7);
		await expect(
			db.transaction('rw', db.dogRuns, async () => {
				await putInChunks(
					db.dogRuns,
					many(PUT_CHUNK * 2).map((r) => ({ ...r, fetchedAt: 5 }))
				);
				throw new Error('the download was stopped');
			})
		).rejects.toThrow('stopped');
		expect(await singleRead(7)).toEqual(before);
	});
});
