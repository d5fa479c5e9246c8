import 'fake-indexeddb/auto';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompetitionRunSchema, DogRunSchema } from '$lib/api/schemas';
import { competitionRunJson, dogRunJson } from '$lib/api/test-support';
import { db } from '$lib/db/db';
import { dogRunRow, runRow } from '$lib/db/snapshot-store';
import { saveDogRunEdit } from './outbox';
import { outboxStateOf, watchOutbox, type OutboxSummary } from './outbox-watch';

const T0 = 1_750_000_000_000;
const RUN = 11;
const stops: (() => void)[] = [];

beforeEach(async () => {
	await db.delete();
	await db.open();
	await db.runs.put(runRow(v.parse(CompetitionRunSchema, competitionRunJson(RUN)), 1, T0));
	await db.dogRuns.put(dogRunRow(v.parse(DogRunSchema, dogRunJson(101, RUN)), RUN, 1, 0, T0));
});
afterEach(() => stops.splice(0).forEach((stop) => stop()));

/** A listener that keeps what it heard, and a way to wait for a summary it should hear. */
function listen() {
	const heard: OutboxSummary[] = [];
	stops.push(watchOutbox((summary) => heard.push(summary)));
	const until = async (test: (s: OutboxSummary) => boolean) => {
		await expect.poll(() => heard.some(test), { timeout: 2_000 }).toBe(true);
		return heard.findLast(test)!;
	};
	return { heard, until };
}

describe('watchOutbox', () => {
	it('hears a save the moment its transaction commits, with nobody telling it', async () => {
		const { until } = listen();
		await until((s) => s.counts.pending === 0);
		await saveDogRunEdit(101, { time: 38.63 }, T0 + 1);
		const after = await until((s) => s.counts.pending === 1);
		expect(outboxStateOf(after)).toEqual({ unsent: 1, dueAt: T0 + 1 });
		expect(after.oldest).toBe(T0 + 1);
	});

	it('shares one read: a listener that comes late hears the latest summary at once', async () => {
		const first = listen();
		await saveDogRunEdit(101, { faults: 5 }, T0 + 2);
		await first.until((s) => s.counts.pending === 1);
		const late: OutboxSummary[] = [];
		stops.push(watchOutbox((summary) => late.push(summary)));
		// Synchronously, before any new read could have run.
		expect(late).toHaveLength(1);
		expect(late[0]?.counts.pending).toBe(1);
	});

	it('stops reading once the last listener stops, and starts afresh for the next', async () => {
		const stop = watchOutbox(() => {});
		stop();
		await saveDogRunEdit(101, { refusals: 1 }, T0 + 3);
		const again: OutboxSummary[] = [];
		stops.push(watchOutbox((summary) => again.push(summary)));
		// Nothing stale was kept from before: the first summary is read now, with the save in it.
		expect(again).toHaveLength(0);
		await expect.poll(() => again[0]?.counts.pending, { timeout: 2_000 }).toBe(1);
	});
});
