import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { DogRunSchema, CompetitionRunSchema } from '$lib/api/schemas';
import { competitionRunJson, dogRunJson } from '$lib/api/test-support';
import { db } from '$lib/db/db';
import { putDogRunSnapshot, putRunSnapshot } from '$lib/db/snapshot-store';
import { storeLiveDogRuns } from './live-store';
import * as v from 'valibot';

const dogRun = (time: number | null) => v.parse(DogRunSchema, { ...dogRunJson(101, 11), time });

beforeEach(async () => {
	await db.delete();
	await db.open();
	await db.runs.put({
		id: 11,
		competitionId: 1,
		href: 'x',
		date: '2026-05-12',
		startTime: '09:00',
		ringId: 2,
		judgeId: 5,
		data: v.parse(CompetitionRunSchema, competitionRunJson(11, 1)),
		fetchedAt: 0
	});
	await putRunSnapshot(v.parse(CompetitionRunSchema, competitionRunJson(11, 1)), 1);
	await db.dogRuns.put({
		id: 101,
		runId: 11,
		competitionId: 1,
		order: 0,
		href: dogRunJson(101, 11)._links.self.href,
		data: { ...dogRun(null) } as never,
		fetchedAt: 0
	});
});

describe('live updates stored on the device', () => {
	it('leave a row that holds what came as it is: the phone’s own change coming back', async () => {
		// The answer to the phone's PUT, stored by the replay.
		await putDogRunSnapshot(dogRun(38.63), 1_000);
		const writes: string[] = [];
		db.dogRuns.hook('updating', () => void writes.push('update'));
		db.dogRuns.hook('creating', () => void writes.push('create'));
		// The same dog run over the push link, moments later.
		await storeLiveDogRuns([dogRun(38.63)], 2_000);
		expect(writes).toEqual([]);
		expect((await db.dogRuns.get(101))!.fetchedAt).toBe(1_000);
		// Nothing new for over a minute: the row is said current again, once.
		await storeLiveDogRuns([dogRun(38.63)], 62_000);
		expect((await db.dogRuns.get(101))!.fetchedAt).toBe(62_000);
		// Another device's change is stored.
		await storeLiveDogRuns([dogRun(40.1)], 63_000);
		const row = (await db.dogRuns.get(101))!;
		expect(row.data.time).toBe(40.1);
		expect(row.fetchedAt).toBe(63_000);
	});
});
