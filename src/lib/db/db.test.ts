import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { RingsideDb, type OutboxEntry } from './db';

const NAME = 'ringside-upgrade-test';

function entry(id: number): OutboxEntry {
	return {
		key: `dogRun:${id}`,
		kind: 'dogRun',
		resourceId: id,
		runId: 7,
		competitionId: 1,
		href: `http://svc/api/v1/dogRuns/${id}`,
		changes: { time: 38.63 + id },
		base: { time: null },
		status: 'pending',
		revision: 1,
		createdAt: 1,
		updatedAt: 1,
		attempts: 0,
		nextAttemptAt: 0,
		lastError: null,
		conflicts: null
	};
}

/** What the next schema version could look like: one more index, one more table. */
class NextDb extends RingsideDb {
	constructor() {
		super(NAME);
		this.version(2).stores({
			outbox: 'key, status, runId, competitionId, nextAttemptAt, updatedAt',
			notes: '++id'
		});
	}
}

afterEach(async () => {
	await new RingsideDb(NAME).delete();
});

describe('schema upgrades', () => {
	it('carries unsent edits through an upgrade', async () => {
		const old = new RingsideDb(NAME);
		await old.outbox.bulkPut([entry(1), entry(2), entry(3)]);
		old.close();

		const next = new NextDb();
		await next.open();
		expect(next.verno).toBe(2);
		expect((await next.outbox.toArray()).map((e) => e.changes)).toEqual([
			{ time: 39.63 },
			{ time: 40.63 },
			{ time: 41.63 }
		]);
		next.close();
	});

	it('closes an older open copy so the upgrade is not blocked, and tells the UI', async () => {
		const old = new RingsideDb(NAME);
		await old.outbox.put(entry(1));
		let told = 0;
		old.subscribeVersionChange(() => (told += 1));

		const next = new NextDb();
		await next.open();

		expect(told).toBe(1);
		expect(old.isOpen()).toBe(false);
		expect(await next.outbox.get('dogRun:1')).toMatchObject({ changes: { time: 39.63 } });
		next.close();
	});
});
