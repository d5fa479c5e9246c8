import 'fake-indexeddb/auto';
import * as v from 'valibot';
import { overlay } from '$lib/domain/overlay';
import { beforeEach, describe, expect, it } from 'vitest';
import { CompetitionRunSchema, DogRunSchema } from '$lib/api/schemas';
import { competitionRunJson, dogRunJson } from '$lib/api/test-support';
import { db, type OutboxEntry } from '$lib/db/db';
import {
	countByStatus,
	getEntry,
	listDueEntries,
	outboxKey,
	putEntry,
	readSyncLog
} from '$lib/db/outbox-store';
import { dogRunRow, putDogRunSnapshot, runRow } from '$lib/db/snapshot-store';
import { SyncError } from './errors';
import {
	discardEntry,
	resolveConflict,
	retryAfterSignIn,
	retryNow,
	retryUnreachable,
	saveDogRunEdit,
	saveRunEdit,
	undoDogRunSave
} from './outbox';

const T0 = 1_750_000_000_000;
const RUN = 11;
const DOG = 101;
const KEY = outboxKey('dogRun', DOG);

function dogRun(id: number, fields: Record<string, unknown> = {}) {
	return v.parse(DogRunSchema, { ...dogRunJson(id, RUN), ...fields });
}

beforeEach(async () => {
	await db.delete();
	await db.open();
	await db.runs.put(runRow(v.parse(CompetitionRunSchema, competitionRunJson(RUN)), 1, T0));
	await db.dogRuns.bulkPut([
		dogRunRow(dogRun(DOG), RUN, 1, 0, T0),
		dogRunRow(dogRun(102), RUN, 1, 1, T0)
	]);
});

async function entry(key = KEY): Promise<OutboxEntry> {
	const found = await getEntry(key);
	if (!found) throw new Error(`no outbox entry ${key}`);
	return found;
}

/** Puts the entry of KEY into another state, as the replay would. */
async function setEntry(fields: Partial<OutboxEntry>): Promise<void> {
	await putEntry({ ...(await entry()), ...fields });
}

describe('saveDogRunEdit', () => {
	it('queues the changed fields with the snapshot values as their base', async () => {
		const saved = await saveDogRunEdit(DOG, { time: 38.63, faults: 5 }, T0 + 1);
		expect(saved).toMatchObject({
			key: KEY,
			kind: 'dogRun',
			resourceId: DOG,
			runId: RUN,
			competitionId: 1,
			href: 'http://127.0.0.1:4173/api/v1/dogRuns/101',
			changes: { time: 38.63, faults: 5 },
			base: { time: null, faults: 0 },
			status: 'pending',
			revision: 1,
			attempts: 0,
			nextAttemptAt: T0 + 1
		});
		expect(await entry()).toEqual(saved);
		expect(await listDueEntries(T0 + 1)).toHaveLength(1);
	});

	it('keeps the original base of a field already pending, after the snapshot moved', async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0 + 1);
		// A refresh brought another server value in the meantime.
		await putDogRunSnapshot(dogRun(DOG, { time: 35, refusals: 2 }), T0 + 2);
		const saved = await saveDogRunEdit(DOG, { time: 41, refusals: 3 }, T0 + 3);
		expect(saved?.changes).toEqual({ time: 41, refusals: 3 });
		expect(saved?.base).toEqual({ time: null, refusals: 2 });
		expect(saved?.revision).toBe(2);
	});

	it('keeps one entry per resource, however many saves', async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0 + 1);
		await saveDogRunEdit(DOG, { faults: 5 }, T0 + 2);
		await saveDogRunEdit(DOG, { time: 41.5 }, T0 + 3);
		await saveDogRunEdit(102, { absence: true }, T0 + 4);
		expect(await db.outbox.count()).toBe(2);
		expect((await entry()).changes).toEqual({ time: 41.5, faults: 5 });
		expect((await entry()).createdAt).toBe(T0 + 1);
		expect((await entry(outboxKey('dogRun', 102))).changes).toEqual({ absence: true });
	});

	it('drops a field edited back to its base, and the entry when nothing remains', async () => {
		await saveDogRunEdit(DOG, { time: 40, faults: 5 }, T0 + 1);
		const saved = await saveDogRunEdit(DOG, { faults: 0 }, T0 + 2);
		expect(saved?.changes).toEqual({ time: 40 });
		expect(await saveDogRunEdit(DOG, { time: null }, T0 + 3)).toBeNull();
		expect(await getEntry(KEY)).toBeUndefined();
		expect(await saveDogRunEdit(DOG, { refusals: 0 }, T0 + 4)).toBeNull();
		expect(await db.outbox.count()).toBe(0);
	});

	it('ignores fields that are not result fields and undefined values', async () => {
		const changes = { faults: undefined, refusals: 1, name: 'x' } as Record<string, unknown>;
		const saved = await saveDogRunEdit(DOG, changes, T0);
		expect(saved?.changes).toEqual({ refusals: 1 });
	});

	it('takes what the steward saw as the base: a value that arrived meanwhile is not the base', async () => {
		// The form showed no time; another phone's 38.63 reached this device while it was open.
		await putDogRunSnapshot(dogRun(DOG, { time: 38.63 }), T0);
		const saved = await saveDogRunEdit(DOG, { time: 40.1 }, T0 + 1, { time: null, faults: 0 });
		expect(saved).toMatchObject({ changes: { time: 40.1 }, base: { time: null } });
	});

	it("throws SyncError 'not-stored' for a dog run that is not downloaded", async () => {
		const attempt = saveDogRunEdit(999, { time: 40 }, T0);
		await expect(attempt).rejects.toBeInstanceOf(SyncError);
		await expect(saveDogRunEdit(999, { time: 40 }, T0)).rejects.toMatchObject({
			code: 'not-stored'
		});
		expect(await db.outbox.count()).toBe(0);
	});

	it('puts a failed entry back to pending when the steward corrects it', async () => {
		await saveDogRunEdit(DOG, { faults: 150 }, T0);
		await setEntry({
			status: 'failed',
			attempts: 1,
			lastError: { code: 'http', status: 400, serverMessage: 'faults must be 0 to 99' }
		});
		const saved = await saveDogRunEdit(DOG, { faults: 15 }, T0 + 5);
		expect(saved).toMatchObject({
			status: 'pending',
			attempts: 0,
			lastError: null,
			nextAttemptAt: T0 + 5,
			changes: { faults: 15 },
			base: { faults: 0 }
		});
		expect(await countByStatus()).toEqual({ pending: 1, sending: 0, conflict: 0, failed: 0 });
	});

	it('puts a conflict back to pending (the replay checks it again) with the original base', async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		await setEntry({
			status: 'conflict',
			conflicts: [{ field: 'time', base: null, mine: 40, theirs: 39 }]
		});
		const saved = await saveDogRunEdit(DOG, { time: 40.5 }, T0 + 1);
		expect(saved).toMatchObject({ status: 'pending', conflicts: null, base: { time: null } });
	});

	it('keeps an entry being sent in that state, and keeps a field whose PUT is in flight', async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		await setEntry({
			status: 'sending',
			attempts: 1,
			inFlight: { changes: { time: 40 }, base: { time: null } }
		});
		// Back to the old value while 40 is on its way: must still reach the server as null.
		const saved = await saveDogRunEdit(DOG, { time: null }, T0 + 1);
		expect(saved).toMatchObject({
			status: 'sending',
			revision: 2,
			changes: { time: null },
			base: { time: null }
		});
	});
});

describe('saveRunEdit', () => {
	it("queues course parameters against the run's self link", async () => {
		const saved = await saveRunEdit(RUN, { trackLength: 185, standardTime: 38.5 }, T0);
		expect(saved).toMatchObject({
			key: outboxKey('run', RUN),
			kind: 'run',
			runId: RUN,
			href: 'http://127.0.0.1:4173/api/v1/competitionRuns/11',
			changes: { trackLength: 185 },
			base: { trackLength: 180 }
		});
		await expect(saveRunEdit(12, { trackLength: 1 }, T0)).rejects.toMatchObject({
			code: 'not-stored'
		});
	});
});

describe('undoDogRunSave', () => {
	it('cancels an unsent save: the entry is gone and nothing will be sent', async () => {
		await saveDogRunEdit(DOG, { time: 93.1 }, T0);
		expect(await undoDogRunSave(DOG, { time: null }, { time: 93.1 }, T0 + 1)).toBeNull();
		expect(await getEntry(KEY)).toBeUndefined();
	});

	it('takes back only the last of several unsent saves', async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		await saveDogRunEdit(DOG, { time: 93.1, faults: 5 }, T0 + 1);
		const undone = await undoDogRunSave(
			DOG,
			{ time: 40, faults: 0 },
			{ time: 93.1, faults: 5 },
			T0 + 2
		);
		expect(undone).toMatchObject({ changes: { time: 40 }, base: { time: null }, revision: 3 });
	});

	it('sends the previous values as a new edit once the save was sent', async () => {
		await saveDogRunEdit(DOG, { time: 93.1 }, T0);
		// Delivered: the entry is gone and the snapshot holds what the service answered.
		await db.outbox.delete(KEY);
		await putDogRunSnapshot(dogRun(DOG, { time: 93.1 }), T0 + 1);
		const undone = await undoDogRunSave(DOG, { time: null }, { time: 93.1 }, T0 + 2);
		// The service's value now (93.10) is the base: someone else's change is a conflict.
		expect(undone).toMatchObject({
			changes: { time: null },
			base: { time: 93.1 },
			status: 'pending',
			nextAttemptAt: T0 + 2
		});
	});

	it('starts from the saved value even after this device read someone else’s since', async () => {
		await saveDogRunEdit(DOG, { time: 93.1 }, T0);
		await db.outbox.delete(KEY);
		// Delivered, then the scribe's correction reached this device with a list read.
		await putDogRunSnapshot(dogRun(DOG, { time: 45.02 }), T0 + 1);
		const undone = await undoDogRunSave(DOG, { time: null }, { time: 93.1 }, T0 + 2);
		// Base 93.10, the service 45.02: the replay finds a conflict instead of overwriting.
		expect(undone).toMatchObject({ changes: { time: null }, base: { time: 93.1 } });
	});

	it('while the save is being sent, the undo waits for the attempt and then goes out', async () => {
		await saveDogRunEdit(DOG, { time: 93.1 }, T0);
		await setEntry({
			status: 'sending',
			inFlight: { changes: { time: 93.1 }, base: { time: null } }
		});
		const undone = await undoDogRunSave(DOG, { time: null }, { time: 93.1 }, T0 + 1);
		// The PUT in flight may land: "back to null" is kept to be sent after it.
		expect(undone).toMatchObject({
			status: 'sending',
			changes: { time: null },
			base: { time: null },
			revision: 2
		});
	});
});

describe('discardEntry', () => {
	it("drops the entry on the steward's word and logs it", async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		expect(await discardEntry(KEY, T0 + 1)).toBe(true);
		expect(await getEntry(KEY)).toBeUndefined();
		expect(await readSyncLog(KEY)).toMatchObject([
			{ action: 'discarded', at: T0 + 1, kind: 'dogRun', resourceId: DOG, fields: { time: 40 } }
		]);
		expect(await discardEntry(KEY, T0 + 2)).toBe(false);
	});

	it("refuses with 'busy' while the entry is being sent", async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		await setEntry({ status: 'sending' });
		await expect(discardEntry(KEY, T0 + 1)).rejects.toMatchObject({ code: 'busy' });
		expect(await getEntry(KEY)).toBeDefined();
	});
});

describe('resolveConflict', () => {
	async function conflicted(): Promise<void> {
		await saveDogRunEdit(DOG, { time: 40, faults: 5, refusals: 1 }, T0);
		await setEntry({
			status: 'conflict',
			conflicts: [
				{ field: 'time', base: null, mine: 40, theirs: 39.5 },
				{ field: 'faults', base: 0, mine: 5, theirs: 10 }
			]
		});
	}

	it("'mine' keeps my values with theirs as the base, to be sent", async () => {
		await conflicted();
		const resolved = await resolveConflict(KEY, 'mine', T0 + 1);
		expect(resolved).toMatchObject({
			status: 'pending',
			conflicts: null,
			changes: { time: 40, faults: 5, refusals: 1 },
			base: { time: 39.5, faults: 10, refusals: 0 },
			nextAttemptAt: T0 + 1
		});
		expect((await readSyncLog(KEY)).at(-1)).toMatchObject({
			action: 'resolved',
			fields: { time: 'mine', faults: 'mine' }
		});
		// The snapshot holds the server's values.
		expect((await db.dogRuns.get(DOG))?.data).toMatchObject({ time: 39.5, faults: 10 });
	});

	it("'theirs' drops my values and takes the server's into the snapshot", async () => {
		await conflicted();
		const resolved = await resolveConflict(KEY, 'theirs', T0 + 1);
		expect(resolved).toMatchObject({
			status: 'pending',
			changes: { refusals: 1 },
			base: { refusals: 0 }
		});
		expect((await db.dogRuns.get(DOG))?.data).toMatchObject({ time: 39.5, faults: 10 });
		expect(overlay((await db.dogRuns.get(DOG))?.data ?? {}, resolved)).toMatchObject({
			time: 39.5,
			faults: 10,
			refusals: 1
		});
	});

	it('removes the entry when choosing theirs leaves nothing', async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		await setEntry({
			status: 'conflict',
			conflicts: [{ field: 'time', base: null, mine: 40, theirs: 39.5 }]
		});
		expect(await resolveConflict(KEY, 'theirs', T0 + 1)).toBeNull();
		expect(await db.outbox.count()).toBe(0);
	});

	it('decides per field and leaves unnamed conflicts open', async () => {
		await conflicted();
		const resolved = await resolveConflict(KEY, { faults: 'theirs' }, T0 + 1);
		expect(resolved).toMatchObject({
			status: 'conflict',
			changes: { time: 40, refusals: 1 },
			base: { time: null, refusals: 0 },
			conflicts: [{ field: 'time', base: null, mine: 40, theirs: 39.5 }]
		});
		const done = await resolveConflict(KEY, { time: 'mine' }, T0 + 2);
		expect(done).toMatchObject({ status: 'pending', changes: { time: 40 }, base: { time: 39.5 } });
	});

	it("throws 'no-conflict' for an entry without one, 'not-found' without an entry", async () => {
		await saveDogRunEdit(DOG, { time: 40 }, T0);
		await expect(resolveConflict(KEY, 'mine', T0)).rejects.toMatchObject({ code: 'no-conflict' });
		await expect(resolveConflict('dogRun:5', 'mine', T0)).rejects.toMatchObject({
			code: 'not-found'
		});
	});
});

describe('retryNow and retryUnreachable', () => {
	const waiting = async (
		id: number,
		code: 'network' | 'http',
		extra: Partial<OutboxEntry> = {}
	) => {
		await saveDogRunEdit(id, { time: 40 }, T0);
		const key = outboxKey('dogRun', id);
		const found = await getEntry(key);
		await putEntry({
			...found!,
			attempts: 9,
			nextAttemptAt: T0 + 240_000,
			lastError: code === 'http' ? { code, status: 503 } : { code },
			...extra
		});
		return key;
	};

	it('"Sync now" makes every waiting entry due; a refused one only by its key', async () => {
		const a = await waiting(DOG, 'http');
		const b = await waiting(102, 'http', { status: 'failed' });
		expect(await retryNow(undefined, T0 + 1)).toBe(1);
		expect(await getEntry(a)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 1 });
		expect(await getEntry(b)).toMatchObject({ status: 'failed' });
		expect(await retryNow(b, T0 + 2)).toBe(1);
		expect(await getEntry(b)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 2 });
	});

	it('signed in again: only entries refused for want of credentials (401, 403) go at once', async () => {
		const refused401 = await waiting(DOG, 'http', {
			status: 'failed',
			lastError: { code: 'http', status: 401 }
		});
		const refused400 = await waiting(102, 'http', {
			status: 'failed',
			lastError: { code: 'http', status: 400, serverMessage: 'time must be positive' }
		});
		expect(await retryAfterSignIn(T0 + 1)).toBe(1);
		expect(await getEntry(refused401)).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 1 });
		expect(await getEntry(refused400)).toMatchObject({ status: 'failed' });
	});

	it('the network back: only entries that found no network go at once', async () => {
		const offline = await waiting(DOG, 'network');
		const refused503 = await waiting(102, 'http');
		expect(await retryUnreachable(T0 + 1)).toBe(1);
		expect(await getEntry(offline)).toMatchObject({ nextAttemptAt: T0 + 1, attempts: 9 });
		expect(await getEntry(refused503)).toMatchObject({ nextAttemptAt: T0 + 240_000 });
	});

	it('the service back: entries that timed out or met a gateway without it go too, a 429 waits', async () => {
		const timedOut = await waiting(DOG, 'network', { lastError: { code: 'timeout' } });
		const gateway = await waiting(102, 'http', { lastError: { code: 'http', status: 502 } });
		await db.dogRuns.put(dogRunRow(dogRun(103), RUN, 1, 2, T0));
		const asked = await waiting(103, 'http', {
			lastError: { code: 'http', status: 429, retryAfterMs: 60_000 }
		});
		expect(await retryUnreachable(T0 + 1)).toBe(2);
		expect(await getEntry(timedOut)).toMatchObject({ nextAttemptAt: T0 + 1 });
		expect(await getEntry(gateway)).toMatchObject({ nextAttemptAt: T0 + 1 });
		expect(await getEntry(asked)).toMatchObject({ nextAttemptAt: T0 + 240_000 });
	});
});
