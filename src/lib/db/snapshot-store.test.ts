import 'fake-indexeddb/auto';
import { liveQuery } from 'dexie';
import { beforeEach, describe, expect, it } from 'vitest';
import { db, type DogRunRow } from './db';
import { dogRunsInOrder } from './snapshot-store';

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
