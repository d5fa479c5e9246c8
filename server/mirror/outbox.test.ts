// The mirror's outbox table: what the publisher and the secretary's status read of it.
import { describe, expect, it } from 'vitest';
import { openStore } from '../store/open.ts';
import { makeDueNow, readEntry, recordChange, writeEntry, writeResource } from './outbox.ts';

async function storeWithOneDogRun() {
	const { store } = await openStore({
		dbFile: ':memory:',
		reset: false,
		seed: 'small',
		seedDate: '2026-05-12',
		poolSize: 1
	});
	await store.write((sql) =>
		writeResource(sql, {
			kind: 'dogRun',
			id: 1,
			href: 'http://upstream.example/api/v1/dogRuns/1',
			runId: 1,
			competitionId: 1,
			known: null,
			knownAt: 0
		})
	);
	return store;
}

describe('mirror outbox', () => {
	it('makes an entry waiting out a long backoff due now, in its record as in its column', async () => {
		const store = await storeWithOneDogRun();
		const t0 = 1_000_000;
		await store.write((sql) =>
			recordChange(
				sql,
				{
					kind: 'dogRun',
					id: 1,
					runId: 1,
					competitionId: 1,
					before: { faults: 0 },
					after: { faults: 5 }
				},
				t0
			)
		);
		const key = 'dogRun:1';
		const waiting = (await readEntry(store.sql, key))!;
		// Five failed attempts in: the next one four minutes away.
		await store.write((sql) =>
			writeEntry(sql, key, { ...waiting, attempts: 5, nextAttemptAt: t0 + 240_000 }, true)
		);
		const back = t0 + 10_000;
		expect(await store.write((sql) => makeDueNow(store, sql, back))).toBe(1);
		// The record the next decision starts from says so too: writing it back keeps it due.
		const entry = (await readEntry(store.sql, key))!;
		expect(entry.nextAttemptAt).toBe(back);
		await store.write((sql) => writeEntry(sql, key, { ...entry, status: 'sending' }, true));
		const due = await store.sql.get<{ at: number }>(
			'SELECT next_attempt_at AS at FROM mirror_outbox WHERE key = @key',
			{ key }
		);
		expect(Number(due!.at)).toBe(back);
		await store.close();
	});
});
