import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { db, type OutboxEntry } from './db';
import { getEntries, outboxKey, putEntries } from './outbox-store';

beforeEach(async () => {
	await db.delete();
	await db.open();
});

function entry(dogRunId: number): OutboxEntry {
	return {
		key: outboxKey('dogRun', dogRunId),
		kind: 'dogRun',
		resourceId: dogRunId,
		runId: 1,
		competitionId: 1,
		href: `http://service/api/v1/dogRuns/${dogRunId}`,
		changes: { time: 10 + dogRunId / 100 },
		base: { time: null },
		status: 'pending',
		revision: 1,
		createdAt: dogRunId,
		updatedAt: dogRunId,
		attempts: 0,
		nextAttemptAt: 0,
		lastError: null,
		conflicts: null
	};
}

describe('getEntries', () => {
	it('answers each key in the order asked, undefined where there is no entry', async () => {
		// Keys sort as strings: 'dogRun:100' comes between 'dogRun:10' and 'dogRun:11'.
		await putEntries([...Array.from({ length: 30 }, (_, i) => entry(i + 1)), entry(100)]);
		const ids = [12, 3, 999, 25, 100, 7, 20, 11];
		const got = await getEntries(ids.map((id) => outboxKey('dogRun', id)));
		expect(got.map((e) => e?.resourceId)).toEqual([12, 3, undefined, 25, 100, 7, 20, 11]);
	});

	it('answers the same when the keys are far apart among many others', async () => {
		await putEntries(Array.from({ length: 200 }, (_, i) => entry(i + 1)));
		const ids = [150, 2, 77, 201, 13];
		const got = await getEntries(ids.map((id) => outboxKey('dogRun', id)));
		expect(got.map((e) => e?.resourceId)).toEqual([150, 2, 77, undefined, 13]);
		expect(got[0]).toEqual(entry(150));
	});

	it('reads inside the caller’s transaction', async () => {
		await putEntries([entry(1), entry(2), entry(3), entry(4)]);
		const keys = [1, 2, 3, 4].map((id) => outboxKey('dogRun', id));
		const got = await db.transaction('rw', db.outbox, async () => {
			await db.outbox.delete(keys[1] as string);
			return getEntries(keys);
		});
		expect(got.map((e) => e?.resourceId)).toEqual([1, undefined, 3, 4]);
	});
});
