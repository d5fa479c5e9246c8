// The mirror's outbox table: what the publisher and the secretary's status read of it.
import { describe, expect, it } from 'vitest';
import { openStore } from '../store/open.ts';
import {
	readEntry,
	recordChange,
	retryWaitingForUpstream,
	writeEntry,
	writeResource
} from './outbox.ts';

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
	it('makes an entry that waited only for the upstream due now, in its record as in its column; one the upstream refused for now keeps its backoff', async () => {
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
		const back = t0 + 10_000;
		// Five failed attempts in, the upstream busy (503): the next one four minutes away, kept.
		const busy = {
			...waiting,
			attempts: 5,
			nextAttemptAt: t0 + 240_000,
			lastError: { code: 'http', status: 503, message: 'busy' }
		};
		await store.write((sql) => writeEntry(sql, key, busy, true));
		expect(await store.write((sql) => retryWaitingForUpstream(store, sql, back))).toBe(0);
		expect((await readEntry(store.sql, key))!.nextAttemptAt).toBe(t0 + 240_000);
		// The same wait after no answer at all: due at once.
		const lost = { ...busy, lastError: { code: 'network', status: null, message: 'fetch failed' } };
		await store.write((sql) => writeEntry(sql, key, lost, true));
		expect(await store.write((sql) => retryWaitingForUpstream(store, sql, back))).toBe(1);
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
