import 'fake-indexeddb/auto';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import { competitionRunJson, dogRunJson } from '$lib/api/test-support';
import { CompetitionRunSchema, DogRunSchema } from '$lib/api/schemas';
import { db, type OutboxEntry } from './db';
import { outboxKey } from './keys';
import { captureView } from './capture-view';
import { outboxSummary, storedCompetitions } from './queries';
import { ringRunsUntil, type RingRun } from './ring-queries';
import { dogRunRow, runRow } from './snapshot-store';

beforeEach(async () => {
	await db.delete();
	await db.open();
});

/** A run of ring 2 with `dogs` dog runs; `ran` of them (from the start) have a time. */
async function storeRun(id: number, startTime: string, dogs: number, ran = 0) {
	const run = v.parse(CompetitionRunSchema, { ...competitionRunJson(id), startTime });
	await db.runs.put(runRow(run, 1, 0));
	const rows = Array.from({ length: dogs }, (_, i) => {
		const dogRun = v.parse(DogRunSchema, {
			...dogRunJson(id * 100 + i, id),
			time: i < ran ? 40 + i : null
		});
		return dogRunRow(dogRun, id, 1, i, 0);
	});
	await db.dogRuns.bulkPut(rows);
	return rows.map((r) => r.id);
}

function entry(
	kind: 'dogRun' | 'run',
	id: number,
	runId: number,
	extra: Partial<OutboxEntry> = {}
) {
	return {
		key: outboxKey(kind, id),
		kind,
		resourceId: id,
		runId,
		competitionId: 1,
		href: `x/${id}`,
		changes: { time: 39 },
		base: { time: null },
		status: 'pending',
		attempts: 0,
		nextAttemptAt: 5,
		createdAt: 1,
		updatedAt: 1,
		revision: 1,
		lastError: null,
		conflicts: null,
		...extra
	} as OutboxEntry;
}

describe('captureView', () => {
	it('reads the dog, its run, the run order, and the next dogs still to run (an unsent result counts)', async () => {
		const ids = await storeRun(11, '09:00:00', 8, 2);
		await db.outbox.put(entry('dogRun', ids[3]!, 11));
		const view = await captureView(ids[2]!, 3);
		expect(view?.row.id).toBe(ids[2]);
		expect(view?.run?.id).toBe(11);
		expect(view?.siblings).toEqual(ids);
		// ids[3] has an unsent time: it has run.
		expect(view?.nextUp.map((r) => r.id)).toEqual([ids[4], ids[5], ids[6]]);
		expect(view?.entry).toBeUndefined();
		expect((await captureView(ids[3]!, 3))?.entry?.changes).toEqual({ time: 39 });
		expect(await captureView(99_999, 3)).toBeNull();
	});
});

describe('ringRunsUntil', () => {
	it('reads the ring’s runs in order, one at a time, until the screen has enough', async () => {
		await storeRun(12, '13:00:00', 3);
		await storeRun(11, '09:00:00', 3, 3);
		await storeRun(13, '16:00:00', 3);
		const seen: number[][] = [];
		const enough = (runs: readonly RingRun[]) => {
			seen.push(runs.map((r) => r.run.id));
			return runs.some((r) => r.dogRuns.some((d) => d.data.time === null));
		};
		const read = await ringRunsUntil(1, 2, enough);
		expect(read.runs.map((r) => r.run.id)).toEqual([11, 12]);
		expect(read.ringRuns).toBe(3);
		expect(seen).toEqual([[11], [11, 12]]);
		expect(read.missing).toEqual([]);
	});

	it('names the runs read that have no dog runs on the device', async () => {
		await storeRun(11, '09:00:00', 0);
		const read = await ringRunsUntil(1, 2, () => false);
		expect(read.missing.map((r) => r.id)).toEqual([11]);
	});
});

describe('outboxSummary and storedCompetitions', () => {
	it('counts entries by status, the oldest, and when the first pending one is due', async () => {
		await db.outbox.bulkPut([
			entry('dogRun', 1, 11, { createdAt: 30, nextAttemptAt: 900 }),
			entry('dogRun', 2, 11, { createdAt: 20, nextAttemptAt: 400 }),
			entry('dogRun', 3, 11, { status: 'conflict', createdAt: 10, nextAttemptAt: 1 })
		]);
		expect(await outboxSummary()).toEqual({
			counts: { pending: 2, sending: 0, conflict: 1, failed: 0 },
			oldest: 10,
			dueAt: 400
		});
	});

	it('lists only competitions whose download completed', async () => {
		const data = { id: 1 } as never;
		await db.competitions.bulkPut([
			{ id: 1, href: 'a', data, fetchedAt: 0 },
			{ id: 2, href: 'b', data, fetchedAt: 0 }
		]);
		const row = {
			state: 'complete',
			startedAt: 0,
			runsTotal: 0,
			runsDone: 0,
			dogRunsStored: 0,
			error: null
		} as const;
		await db.downloads.bulkPut([
			{ ...row, competitionId: 1, completedAt: 5 },
			{ ...row, competitionId: 2, state: 'running', completedAt: null }
		]);
		expect((await storedCompetitions()).map((s) => s.competition.id)).toEqual([1]);
	});
});
