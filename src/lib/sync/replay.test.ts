import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createService, readPutLog, type ServiceOptions } from '../../../server/app';
import { HalClient, type FetchLike } from '$lib/api/hal-client';
import { expandLink, requireLink } from '$lib/api/links';
import { CompetitionRunSchema, CompetitionSchema, DogRunSchema } from '$lib/api/schemas';
import { db, type DogRunRow, type OutboxEntry } from '$lib/db/db';
import { getEntry, outboxKey, putEntry, readSyncLog } from '$lib/db/outbox-store';
import { setSetting, SETTING_SERVICE_ETAGS } from '$lib/db/settings-store';
import { dogRunRow, runRow } from '$lib/db/snapshot-store';
import { overlay } from '$lib/domain/overlay';
import { resolveConflict, saveDogRunEdit, saveRunEdit } from './outbox';
import { replayOutbox, type ReplayOptions } from './replay';

type Service = Awaited<ReturnType<typeof createService>>;

interface Call {
	method: string;
	url: string;
	ifMatch: string | null;
	status?: number;
	etag?: string | null;
}

/**
 * What a test may do to a request on its way: answer it itself, pass it on (`forward`), or resolve
 * undefined to let it through untouched.
 */
type Hook = (
	url: string,
	init: RequestInit,
	forward: () => Promise<Response>
) => Promise<Response | undefined>;

const cleanups: (() => Promise<void>)[] = [];
let service: Service;
let clock: number;
let calls: Call[];
let hook: Hook | undefined;
let dogRuns: DogRunRow[];
/** The dog runs of the largest downloaded run (32 in the small seed). */
let bigRun: DogRunRow[];

async function start(options: Partial<ServiceOptions> = {}): Promise<Service> {
	const dir = mkdtempSync(join(tmpdir(), 'ringside-replay-'));
	const started = await createService({
		dbFile: join(dir, 'results.sqlite'),
		seed: 'small',
		port: 0,
		quiet: true,
		...options
	});
	cleanups.push(async () => {
		await started.close();
		rmSync(dir, { recursive: true, force: true });
	});
	return started;
}

/** Node's fetch, recorded, with the test's hook in front. */
const recordingFetch: FetchLike = async (url, init) => {
	const method = init.method ?? 'GET';
	const call: Call = { method, url, ifMatch: new Headers(init.headers).get('If-Match') };
	calls.push(call);
	const forward = async () => {
		const response = await fetch(url, init);
		call.status = response.status;
		call.etag = response.headers.get('ETag');
		return response;
	};
	return (await hook?.(url, init, forward)) ?? forward();
};

function client(): HalClient {
	return new HalClient({ serviceUrl: service.url, fetch: recordingFetch });
}

function replay(opts: Partial<ReplayOptions> = {}) {
	return replayOutbox({ client: client(), now: () => clock, random: () => 0.5, ...opts });
}

/** Downloads the first IN_PROGRESS competition's runs and dog runs into Dexie, following links. */
async function download(): Promise<void> {
	const c = new HalClient({ serviceUrl: service.url });
	let competitionId: number | undefined;
	let runsHref: string | undefined;
	for await (const page of c.pages(c.competitionsUrl(), 'competitions', CompetitionSchema)) {
		const found = page.items.find((item) => item.state === 'IN_PROGRESS');
		if (found) {
			competitionId = found.id;
			runsHref = expandLink(requireLink(found._links, 'competitionRuns'));
			break;
		}
	}
	if (competitionId === undefined || runsHref === undefined) throw new Error('no IN_PROGRESS');
	dogRuns = [];
	for await (const page of c.pages(runsHref, 'competitionRuns', CompetitionRunSchema)) {
		for (const run of page.items) {
			await db.runs.put(runRow(run, competitionId, clock));
			const href = expandLink(requireLink(run._links, 'dogRuns'));
			let order = 0;
			for await (const list of c.pages(href, 'dogRuns', DogRunSchema)) {
				for (const dogRun of list.items) {
					dogRuns.push(dogRunRow(dogRun, run.id, competitionId, order++, clock));
				}
			}
		}
	}
	await db.dogRuns.bulkPut(dogRuns);
	const perRun = new Map<number, DogRunRow[]>();
	for (const row of dogRuns) perRun.set(row.runId, [...(perRun.get(row.runId) ?? []), row]);
	bigRun = [...perRun.values()].sort((a, b) => b.length - a.length)[0] ?? [];
}

async function useService(options: Partial<ServiceOptions> = {}): Promise<void> {
	service = await start(options);
	await db.delete();
	await db.open();
	await download();
	calls = [];
}

beforeEach(async () => {
	clock = Date.now();
	hook = undefined;
	await useService();
});

afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The dog run as the service holds it now (read directly, not through the app). */
async function onService(row: DogRunRow): Promise<Record<string, unknown>> {
	const response = await fetch(row.href);
	return (await response.json()) as Record<string, unknown>;
}

/** Another device writing to the service. */
async function otherWriter(href: string, body: object): Promise<void> {
	const response = await fetch(href, {
		method: 'PUT',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body)
	});
	expect(response.status).toBe(200);
}

function putsTo(row: DogRunRow) {
	if (!service.db) throw new Error('no database');
	return readPutLog(service.db, { resourceKind: 'dogRun', resourceId: row.id });
}

async function entryOf(row: DogRunRow): Promise<OutboxEntry | undefined> {
	return getEntry(outboxKey('dogRun', row.id));
}

function pick(index: number): DogRunRow {
	const row = bigRun[index];
	if (!row) throw new Error(`no dog run ${index}`);
	return row;
}

/** A time the seed cannot hold for that dog run (it records other values). */
const timeFor = (i: number) => 30 + i + 0.37;

describe('replayOutbox against the embedded service', () => {
	it('delivers 5 edits: the service holds exactly them, one PUT each, the outbox is empty', async () => {
		const rows = [0, 3, 6, 9, 12].map(pick);
		for (const [i, row] of rows.entries()) {
			await saveDogRunEdit(row.id, { time: timeFor(i), faults: i }, clock);
		}
		const summary = await replay();
		expect(summary).toEqual({
			sent: 5,
			alreadyApplied: 0,
			conflicts: 0,
			failed: 0,
			retried: 0,
			remaining: 0,
			aborted: false
		});
		for (const [i, row] of rows.entries()) {
			expect(await onService(row)).toMatchObject({ time: timeFor(i), faults: i });
			const puts = putsTo(row);
			expect(puts).toHaveLength(1);
			expect(puts[0]?.status).toBe(200);
			// The snapshot is the server's answer now.
			expect((await db.dogRuns.get(row.id))?.data).toMatchObject({ time: timeFor(i), faults: i });
		}
		expect(await db.outbox.count()).toBe(0);
		expect((await readSyncLog()).filter((r) => r.action === 'sent')).toHaveLength(5);
	});

	it('parks a conflict when another writer changed the same field, until I choose mine', async () => {
		const row = pick(1);
		const original = row.data.time;
		await saveDogRunEdit(row.id, { time: 40.5 }, clock);
		await otherWriter(row.href, { time: 41.11 });

		const first = await replay();
		expect(first).toMatchObject({ sent: 0, conflicts: 1, remaining: 0 });
		const parked = await entryOf(row);
		expect(parked?.status).toBe('conflict');
		expect(parked?.conflicts).toEqual([
			{ field: 'time', base: original, mine: 40.5, theirs: 41.11 }
		]);
		expect(await onService(row)).toMatchObject({ time: 41.11 });
		// The snapshot is the server's; the screen still shows mine.
		const snapshot = (await db.dogRuns.get(row.id))?.data;
		expect(snapshot?.time).toBe(41.11);
		expect(overlay(snapshot ?? {}, parked)).toMatchObject({ time: 40.5 });
		expect((await readSyncLog(parked?.key)).map((r) => r.action)).toEqual(['conflict']);

		// A conflict is not sent again by itself.
		expect(await replay()).toMatchObject({ sent: 0, conflicts: 0 });
		expect(await onService(row)).toMatchObject({ time: 41.11 });

		await resolveConflict(outboxKey('dogRun', row.id), 'mine', clock);
		expect(await replay()).toMatchObject({ sent: 1, conflicts: 0, remaining: 0 });
		expect(await onService(row)).toMatchObject({ time: 40.5 });
		expect(await entryOf(row)).toBeUndefined();
		expect(putsTo(row).map((p) => p.status)).toEqual([200, 200]);
	});

	it('merges when the other writer changed only faults and I changed time', async () => {
		const row = pick(2);
		await saveDogRunEdit(row.id, { time: 44.44 }, clock);
		await otherWriter(row.href, { faults: 15 });
		expect(await replay()).toMatchObject({ sent: 1, conflicts: 0 });
		expect(await onService(row)).toMatchObject({ time: 44.44, faults: 15 });
		const mine = putsTo(row).at(-1);
		expect(JSON.parse(mine?.requestBody ?? 'null')).toEqual({ time: 44.44 });
		expect(await entryOf(row)).toBeUndefined();
	});

	it('after a lost response finds the edit already applied and does not PUT again', async () => {
		const row = pick(4);
		await saveDogRunEdit(row.id, { time: 33.33, refusals: 2 }, clock);
		hook = async (url, init, forward) => {
			if (init.method !== 'PUT') return undefined;
			await (await forward()).text();
			throw new TypeError('fetch failed: socket hang up');
		};
		const first = await replay();
		expect(first).toMatchObject({ sent: 0, retried: 1, remaining: 1 });
		const waiting = await entryOf(row);
		expect(waiting).toMatchObject({
			status: 'pending',
			attempts: 1,
			lastError: { code: 'network' }
		});
		expect(waiting?.nextAttemptAt).toBeGreaterThan(clock);
		expect(await onService(row)).toMatchObject({ time: 33.33, refusals: 2 });

		hook = undefined;
		expect(await replay()).toMatchObject({ sent: 0, alreadyApplied: 0, remaining: 1 });
		clock += 10 * 60_000;
		expect(await replay()).toMatchObject({ sent: 0, alreadyApplied: 1, remaining: 0 });
		expect(putsTo(row)).toHaveLength(1);
		expect(await entryOf(row)).toBeUndefined();
		expect((await readSyncLog()).map((r) => r.action)).toEqual(['retry', 'already-applied']);
	});

	it('sends an edit made after a lost PUT without a conflict with itself', async () => {
		const row = pick(5);
		await saveDogRunEdit(row.id, { time: 50.5 }, clock);
		hook = async (_url, init, forward) => {
			if (init.method !== 'PUT') return undefined;
			await (await forward()).text();
			throw new TypeError('fetch failed');
		};
		await replay();
		hook = undefined;
		// The steward changes the value again before the next replay; 50.5 is on the service.
		await saveDogRunEdit(row.id, { time: 51.25 }, clock);
		expect(await replay()).toMatchObject({ sent: 1, conflicts: 0, remaining: 0 });
		expect(await onService(row)).toMatchObject({ time: 51.25 });
	});

	it('backs off on 503 with Retry-After and delivers once later', async () => {
		const row = pick(7);
		await saveDogRunEdit(row.id, { faults: 20 }, clock);
		let refusals = 0;
		hook = async (url, init) => {
			if (init.method !== 'PUT' || refusals >= 2) return undefined;
			refusals++;
			return new Response(JSON.stringify({ status: 503, message: 'maintenance' }), {
				status: 503,
				headers: { 'Content-Type': 'application/hal+json', 'Retry-After': '30' }
			});
		};
		expect(await replay()).toMatchObject({ retried: 1, sent: 0, remaining: 1 });
		const waiting = await entryOf(row);
		expect(waiting).toMatchObject({ status: 'pending', lastError: { code: 'http', status: 503 } });
		expect(waiting?.nextAttemptAt).toBeGreaterThanOrEqual(clock + 30_000);

		clock += 10_000;
		const putsBefore = calls.filter((c) => c.method === 'PUT').length;
		expect(await replay()).toMatchObject({ sent: 0, retried: 0, remaining: 1 });
		expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(putsBefore);

		clock += 21_000;
		expect(await replay()).toMatchObject({ retried: 1, sent: 0 });
		clock += 31_000;
		expect(await replay()).toMatchObject({ sent: 1, retried: 0, remaining: 0 });
		expect(refusals).toBe(2);
		expect(await onService(row)).toMatchObject({ faults: 20 });
		expect(putsTo(row)).toHaveLength(1);
	});

	it('parks a refused edit with the service message, then delivers the correction', async () => {
		const row = pick(8);
		const key = outboxKey('dogRun', row.id);
		const faultsBefore = row.data.faults;
		await putEntry({
			key,
			kind: 'dogRun',
			resourceId: row.id,
			runId: row.runId,
			competitionId: row.competitionId,
			href: row.href,
			changes: { faults: 150 },
			base: { faults: faultsBefore },
			status: 'pending',
			revision: 1,
			createdAt: clock,
			updatedAt: clock,
			attempts: 0,
			nextAttemptAt: clock,
			lastError: null,
			conflicts: null
		});
		expect(await replay()).toMatchObject({ failed: 1, sent: 0, remaining: 0 });
		const parked = await getEntry(key);
		expect(parked).toMatchObject({
			status: 'failed',
			changes: { faults: 150 },
			lastError: { code: 'http', status: 400 }
		});
		expect(parked?.lastError?.serverMessage).toMatch(/faults/);
		expect(await onService(row)).toMatchObject({ faults: faultsBefore });
		// Parked, not retried by itself, not lost.
		clock += 60 * 60_000;
		expect(await replay()).toMatchObject({ failed: 0, sent: 0 });
		expect(await getEntry(key)).toMatchObject({ status: 'failed' });

		await saveDogRunEdit(row.id, { faults: 15 }, clock);
		expect(await replay()).toMatchObject({ sent: 1, failed: 0, remaining: 0 });
		expect(await onService(row)).toMatchObject({ faults: 15 });
		expect(putsTo(row).map((p) => p.status)).toEqual([400, 200]);
	});

	it("resumes an entry a crash left 'sending'", async () => {
		const notSent = pick(10);
		const sent = pick(11);
		for (const row of [notSent, sent]) {
			await saveDogRunEdit(row.id, { time: 61.5 }, clock);
			const entry = await entryOf(row);
			if (!entry) throw new Error('not saved');
			await putEntry({
				...entry,
				status: 'sending',
				attempts: 1,
				inFlight: { changes: { time: 61.5 }, base: { time: row.data.time } }
			});
		}
		// The second one's PUT had reached the service before the crash.
		await otherWriter(sent.href, { time: 61.5 });

		expect(await replay()).toMatchObject({ sent: 1, alreadyApplied: 1, remaining: 0 });
		expect(await onService(notSent)).toMatchObject({ time: 61.5 });
		expect(putsTo(notSent)).toHaveLength(1);
		expect(putsTo(sent)).toHaveLength(1);
		expect(await db.outbox.count()).toBe(0);
	});

	it('keeps an edit made while its PUT was in flight, and sends it next', async () => {
		const row = pick(13);
		await saveDogRunEdit(row.id, { time: 70.7 }, clock);
		hook = async (_url, init, forward) => {
			if (init.method !== 'PUT') return undefined;
			await saveDogRunEdit(row.id, { time: 70.7, refusals: 3 }, clock);
			return forward();
		};
		expect(await replay()).toMatchObject({ sent: 1, remaining: 1 });
		expect(await entryOf(row)).toMatchObject({
			status: 'pending',
			changes: { refusals: 3 },
			nextAttemptAt: clock
		});
		hook = undefined;
		expect(await replay()).toMatchObject({ sent: 1, remaining: 0 });
		expect(await onService(row)).toMatchObject({ time: 70.7, refusals: 3 });
		expect(putsTo(row)).toHaveLength(2);
	});

	it('stops at an abort and resumes the interrupted entry next time', async () => {
		const rows = [pick(14), pick(15)];
		for (const row of rows) await saveDogRunEdit(row.id, { faults: 9 }, clock);
		const controller = new AbortController();
		hook = async (_url, init) => {
			if (init.method !== 'PUT') return undefined;
			controller.abort();
			throw new DOMException('aborted', 'AbortError');
		};
		const stopped = await replay({ signal: controller.signal, concurrency: 1 });
		expect(stopped).toMatchObject({ aborted: true, sent: 0, remaining: 2 });
		expect((await entryOf(pick(14)))?.status).toBe('sending');
		expect((await entryOf(pick(15)))?.status).toBe('pending');

		hook = undefined;
		expect(await replay()).toMatchObject({ sent: 2, remaining: 0, aborted: false });
		for (const row of rows) expect(await onService(row)).toMatchObject({ faults: 9 });
	});

	it('sends course parameters of a run', async () => {
		const run = await db.runs.get(pick(0).runId);
		if (!run) throw new Error('no run');
		await saveRunEdit(run.id, { trackLength: 187.5 }, clock);
		expect(await replay()).toMatchObject({ sent: 1, remaining: 0 });
		const onServer = (await (await fetch(run.href)).json()) as Record<string, unknown>;
		expect(onServer.trackLength).toBe(187.5);
		expect((await db.runs.get(run.id))?.data.trackLength).toBe(187.5);
	});

	it('checks 10 entries of one run against list reads instead of 10 single GETs', async () => {
		const rows = Array.from({ length: 10 }, (_, i) => pick(i * 3));
		for (const row of rows) await saveDogRunEdit(row.id, { refusals: 4 }, clock);
		expect(await replay()).toMatchObject({ sent: 10, remaining: 0 });
		const gets = calls.filter((c) => c.method === 'GET');
		const listReads = gets.filter((c) => /\/competitionRuns\/\d+\/dogRuns/.test(c.url));
		const singleReads = gets.filter((c) => /\/dogRuns\/\d+$/.test(c.url));
		// The first entry reads its own resource (does the service answer ETags? here not); then
		// 32 dog runs at the link's page size of 20: two pages, read once for the other nine.
		expect(singleReads).toHaveLength(1);
		expect(listReads).toHaveLength(2);
		for (const row of rows) expect(await onService(row)).toMatchObject({ refusals: 4 });

		// Known now: the next replay goes straight to the list.
		calls = [];
		for (const row of rows) await saveDogRunEdit(row.id, { refusals: 2 }, clock);
		expect(await replay()).toMatchObject({ sent: 10, remaining: 0 });
		expect(calls.filter((c) => c.method === 'GET' && /\/dogRuns\/\d+$/.test(c.url))).toHaveLength(
			0
		);
	});

	it("stops reading a run's list once every due dog run of it was found", async () => {
		// All in the list's first page (20 a page): the second page is not needed.
		const rows = Array.from({ length: 5 }, (_, i) => pick(i * 3));
		for (const row of rows) await saveDogRunEdit(row.id, { refusals: 4 }, clock);
		await setSetting(SETTING_SERVICE_ETAGS, false);
		expect(await replay()).toMatchObject({ sent: 5, remaining: 0 });
		const gets = calls.filter((c) => c.method === 'GET');
		expect(gets.filter((c) => /\/competitionRuns\/\d+\/dogRuns/.test(c.url))).toHaveLength(1);
		expect(gets.filter((c) => /\/dogRuns\/\d+$/.test(c.url))).toHaveLength(0);
		for (const row of rows) expect(await onService(row)).toMatchObject({ refusals: 4 });
	});

	it("starts sending the entries found on a run's first page before the rest of its list is in", async () => {
		// 32 dog runs, 20 a page: entries on both pages.
		const rows = Array.from({ length: 8 }, (_, i) => pick(i * 4));
		for (const row of rows) await saveDogRunEdit(row.id, { refusals: 2 }, clock);
		await setSetting(SETTING_SERVICE_ETAGS, false);
		let putBeforeSecondPage = false;
		hook = async (url, init, forward) => {
			if (init.method !== 'GET' || !/\/competitionRuns\/\d+\/dogRuns\?page=1/.test(url)) return;
			// Held until a PUT went out (or long enough to tell it never would).
			for (let i = 0; i < 300 && !calls.some((c) => c.method === 'PUT'); i++) {
				await new Promise((resolve) => setTimeout(resolve, 10));
			}
			putBeforeSecondPage = calls.some((c) => c.method === 'PUT');
			return forward();
		};
		expect(await replay()).toMatchObject({ sent: 8, remaining: 0 });
		expect(putBeforeSecondPage).toBe(true);
		for (const row of rows) expect(await onService(row)).toMatchObject({ refusals: 2 });
	});

	it('does not rewrite a stored dog run the service still holds as stored before sending it', async () => {
		const rows = Array.from({ length: 4 }, (_, i) => pick(i * 2));
		for (const row of rows) await saveDogRunEdit(row.id, { faults: 2 }, clock);
		await setSetting(SETTING_SERVICE_ETAGS, false);
		const refused = rows[3] as DogRunRow;
		const before = await db.dogRuns.get(refused.id);
		const written: { ids: number[]; afterPut: boolean }[] = [];
		let puts = 0;
		const bulkPut = db.dogRuns.bulkPut.bind(db.dogRuns);
		vi.spyOn(db.dogRuns, 'bulkPut').mockImplementation(((rowsWritten: DogRunRow[]) => {
			written.push({ ids: rowsWritten.map((r) => r.id), afterPut: puts > 0 });
			return bulkPut(rowsWritten);
		}) as typeof db.dogRuns.bulkPut);
		hook = async (url, init) => {
			if (init.method !== 'PUT') return undefined;
			puts++;
			if (url !== refused.href) return undefined;
			return new Response(JSON.stringify({ status: 503, message: 'busy' }), {
				status: 503,
				headers: { 'Content-Type': 'application/json' }
			});
		};
		clock += 1000;
		expect(await replay()).toMatchObject({ sent: 3, retried: 1 });
		vi.restoreAllMocks();
		// Nothing was written before the PUTs: the decision found the rows as the service has them.
		expect(written.filter((w) => !w.afterPut)).toEqual([]);
		// The three sent hold the answers; the refused one is as it was, known current since then.
		for (const row of rows.slice(0, 3)) {
			expect(await db.dogRuns.get(row.id)).toMatchObject({ data: { faults: 2 }, fetchedAt: clock });
		}
		expect(await db.dogRuns.get(refused.id)).toEqual({ ...before, fetchedAt: clock });
	});

	it('reads each resource on its own below the batch threshold', async () => {
		for (const row of [pick(0), pick(1)]) await saveDogRunEdit(row.id, { refusals: 5 }, clock);
		await replay();
		const gets = calls.filter((c) => c.method === 'GET');
		expect(gets.filter((c) => /\/dogRuns\/\d+$/.test(c.url))).toHaveLength(2);
		expect(gets.filter((c) => /\/competitionRuns\/\d+\/dogRuns/.test(c.url))).toHaveLength(0);
	});
});

describe('replayOutbox bookkeeping in batches', () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it('loses nothing when it crashes after the PUTs and before their bookkeeping', async () => {
		const rows = Array.from({ length: 6 }, (_, i) => pick(i * 2));
		for (const [i, row] of rows.entries()) {
			await saveDogRunEdit(row.id, { time: timeFor(i) }, clock);
		}
		// Every write of the outcomes fails (as a crash would end them all, however the outcomes
		// were grouped: under load they come in more than one group): the PUTs were made.
		const crash = new Error('crash before the bookkeeping');
		vi.spyOn(db.syncLog, 'bulkAdd').mockRejectedValue(crash);
		await expect(replay()).rejects.toBe(crash);
		for (const [i, row] of rows.entries()) {
			expect(await onService(row)).toMatchObject({ time: timeFor(i) });
			expect(await entryOf(row)).toMatchObject({
				status: 'sending',
				inFlight: { changes: { time: timeFor(i) } }
			});
		}
		vi.restoreAllMocks();

		// The steward changes one of them again before the next replay.
		const edited = rows[0] as DogRunRow;
		await saveDogRunEdit(edited.id, { time: 77.7 }, clock);
		expect(await replay()).toMatchObject({
			sent: 1,
			alreadyApplied: 5,
			conflicts: 0,
			remaining: 0
		});
		expect(await onService(edited)).toMatchObject({ time: 77.7 });
		expect(putsTo(edited)).toHaveLength(2);
		for (const row of rows.slice(1)) expect(putsTo(row)).toHaveLength(1);
		expect(await db.outbox.count()).toBe(0);
	});

	it('keeps a save made after its entry was decided with the rest of its run, and sends it next', async () => {
		const rows = Array.from({ length: 8 }, (_, i) => pick(i * 3));
		for (const row of rows) await saveDogRunEdit(row.id, { faults: 5 }, clock);
		// Known to have no ETags: the run's entries are checked against its list from the start.
		await setSetting(SETTING_SERVICE_ETAGS, false);
		const last = rows[7] as DogRunRow;
		let saved = false;
		hook = async (url, init, forward) => {
			// Once the last one is decided (its page of the run's list is in), before its PUT.
			if (
				init.method === 'PUT' &&
				!saved &&
				url !== last.href &&
				(await entryOf(last))?.status === 'sending'
			) {
				saved = true;
				await saveDogRunEdit(last.id, { faults: 10, refusals: 1 }, clock);
			}
			return forward();
		};
		expect(await replay({ concurrency: 1 })).toMatchObject({ sent: 8, remaining: 1 });
		expect(saved).toBe(true);
		expect(await entryOf(last)).toMatchObject({
			status: 'pending',
			changes: { faults: 10, refusals: 1 },
			nextAttemptAt: clock
		});
		hook = undefined;
		expect(await replay()).toMatchObject({ sent: 1, conflicts: 0, remaining: 0 });
		expect(await onService(last)).toMatchObject({ faults: 10, refusals: 1 });
		expect(putsTo(last)).toHaveLength(2);
	});

	it('never reverts a delivered value after a stop between decision and PUT', async () => {
		const others = [pick(5), pick(9)];
		const target = pick(13);
		await setSetting(SETTING_SERVICE_ETAGS, false);
		// Everything reaches the service, but the answers are lost.
		for (const row of others) await saveDogRunEdit(row.id, { faults: 1 }, clock);
		await saveDogRunEdit(target.id, { time: 55.55 }, clock);
		hook = async (_url, init, forward) => {
			if (init.method !== 'PUT') return undefined;
			await (await forward()).text();
			throw new TypeError('fetch failed: socket hang up');
		};
		await replay();
		expect(await onService(target)).toMatchObject({ time: 55.55 });

		// More edits; a batched replay decides them all, then stops at the first PUT (an older
		// entry's), before the target's.
		clock += 10 * 60_000;
		for (const row of others) await saveDogRunEdit(row.id, { refusals: 1 }, clock);
		await saveDogRunEdit(target.id, { refusals: 2 }, clock);
		const controller = new AbortController();
		hook = async (_url, init) => {
			if (init.method !== 'PUT') return undefined;
			controller.abort();
			throw new DOMException('aborted', 'AbortError');
		};
		await replay({ signal: controller.signal, concurrency: 1 });

		// Another save of the same dog, then normal replays: the time stays what the steward set.
		hook = undefined;
		await saveDogRunEdit(target.id, { faults: 1 }, clock);
		clock += 10 * 60_000;
		await replay();
		clock += 10 * 60_000;
		await replay();
		expect(await onService(target)).toMatchObject({ time: 55.55, refusals: 2, faults: 1 });
		expect(await entryOf(target)).toBeUndefined();
	});

	it('puts entries decided ahead back to pending when it stops before their PUT', async () => {
		const rows = Array.from({ length: 6 }, (_, i) => pick(i * 4));
		for (const row of rows) await saveDogRunEdit(row.id, { refusals: 3 }, clock);
		// Known to have no ETags: the run's entries are checked against its list from the start.
		await setSetting(SETTING_SERVICE_ETAGS, false);
		const controller = new AbortController();
		hook = async (_url, init) => {
			if (init.method !== 'PUT') return undefined;
			controller.abort();
			throw new DOMException('aborted', 'AbortError');
		};
		expect(await replay({ signal: controller.signal, concurrency: 1 })).toMatchObject({
			aborted: true,
			sent: 0,
			remaining: 6
		});
		const [first, ...others] = await Promise.all(rows.map(entryOf));
		// Caught mid-PUT: its outcome is unknown.
		expect(first).toMatchObject({ status: 'sending', attempts: 1 });
		for (const entry of others) {
			expect(entry).toMatchObject({ status: 'pending', attempts: 0, inFlight: null });
		}

		hook = undefined;
		expect(await replay()).toMatchObject({ sent: 6, remaining: 0, aborted: false });
		for (const row of rows) expect(putsTo(row)).toHaveLength(1);
	});
});

describe('replayOutbox concurrency', () => {
	it('sends 30 entries six at a time, each once', async () => {
		await useService({ latencyMs: 20 });
		let inFlight = 0;
		let widest = 0;
		hook = async (_url, _init, forward) => {
			inFlight++;
			widest = Math.max(widest, inFlight);
			try {
				return await forward();
			} finally {
				inFlight--;
			}
		};
		// 30 dog runs over several runs: list reads for the big runs, single reads for the rest.
		const rows = dogRuns.slice(0, 30);
		for (const [i, row] of rows.entries()) {
			await saveDogRunEdit(row.id, { time: timeFor(i) }, clock);
		}
		const started = performance.now();
		const summary = await replay();
		const elapsed = performance.now() - started;
		expect(summary).toMatchObject({ sent: 30, remaining: 0 });
		const floor = 30 * 20; // 30 PUTs one after another, reads not even counted
		console.info(
			`30 entries, latency 20 ms: ${elapsed.toFixed(0)} ms (sequential floor ${floor} ms)`
		);
		// Timing is measured (figures in bench/), not asserted: six in flight is what makes it fast.
		expect(widest).toBe(6);
		for (const [i, row] of rows.entries()) {
			expect(await onService(row)).toMatchObject({ time: timeFor(i) });
			expect(putsTo(row)).toHaveLength(1);
		}
	});

	it('keeps to one request at a time with concurrency 1 (the sequential figure)', async () => {
		await useService({ latencyMs: 20 });
		let inFlight = 0;
		let widest = 0;
		hook = async (_url, _init, forward) => {
			inFlight++;
			widest = Math.max(widest, inFlight);
			try {
				return await forward();
			} finally {
				inFlight--;
			}
		};
		const rows = dogRuns.slice(0, 30);
		for (const [i, row] of rows.entries()) {
			await saveDogRunEdit(row.id, { time: timeFor(i) }, clock);
		}
		const started = performance.now();
		expect(await replay({ concurrency: 1 })).toMatchObject({ sent: 30, remaining: 0 });
		const elapsed = performance.now() - started;
		console.info(`30 entries, concurrency 1, latency 20 ms: ${elapsed.toFixed(0)} ms`);
		expect(widest).toBe(1);
		expect(elapsed).toBeGreaterThanOrEqual(30 * 20);
	});
});

describe('replayOutbox with ETags', () => {
	beforeEach(async () => {
		await useService({ etag: true });
	});

	it('sends If-Match with the ETag of the read', async () => {
		const row = pick(0);
		await saveDogRunEdit(row.id, { time: 39.99 }, clock);
		expect(await replay()).toMatchObject({ sent: 1 });
		const read = calls.find((c) => c.method === 'GET' && c.url === row.href);
		const written = calls.find((c) => c.method === 'PUT');
		expect(read?.etag).toMatch(/^"dogRun-\d+-\d+"$/);
		expect(written?.ifMatch).toBe(read?.etag);
		expect(written?.status).toBe(200);
		expect(await onService(row)).toMatchObject({ time: 39.99 });
	});

	it('makes every update conditional once it has seen ETags, even for many entries of a run', async () => {
		const first = pick(0);
		await saveDogRunEdit(first.id, { time: 39.99 }, clock);
		await replay(); // learns that the service answers ETags
		calls = [];
		const rows = Array.from({ length: 10 }, (_, i) => pick(i * 3 + 1));
		for (const row of rows) await saveDogRunEdit(row.id, { refusals: 4 }, clock);
		expect(await replay()).toMatchObject({ sent: 10, remaining: 0 });
		const puts = calls.filter((c) => c.method === 'PUT');
		expect(puts).toHaveLength(10);
		for (const put of puts) expect(put.ifMatch).toMatch(/^"dogRun-\d+-\d+"$/);
		expect(calls.filter((c) => /\/competitionRuns\/\d+\/dogRuns/.test(c.url))).toHaveLength(0);
		for (const row of rows) expect(putsTo(row).map((p) => p.ifMatch !== null)).toEqual([true]);
	});

	it('treats a change between read and PUT (412) as a conflict', async () => {
		const row = pick(1);
		await saveDogRunEdit(row.id, { time: 40.5 }, clock);
		hook = async (_url, init, forward) => {
			if (init.method === 'PUT') await otherWriter(row.href, { time: 41.11 });
			return forward();
		};
		expect(await replay()).toMatchObject({ sent: 0, conflicts: 1, retried: 0, failed: 0 });
		expect(putsTo(row).map((p) => p.status)).toEqual([200, 412]);
		expect(await entryOf(row)).toMatchObject({
			status: 'conflict',
			conflicts: [{ field: 'time', base: row.data.time, mine: 40.5, theirs: 41.11 }]
		});
		expect(await onService(row)).toMatchObject({ time: 41.11 });
	});

	it('after a 412 on another field, merges and sends with the new ETag', async () => {
		const row = pick(2);
		await saveDogRunEdit(row.id, { time: 40.5 }, clock);
		let interfered = false;
		hook = async (_url, init, forward) => {
			if (init.method === 'PUT' && !interfered) {
				interfered = true;
				await otherWriter(row.href, { faults: 25 });
			}
			return forward();
		};
		expect(await replay()).toMatchObject({ sent: 1, conflicts: 0 });
		expect(putsTo(row).map((p) => p.status)).toEqual([200, 412, 200]);
		expect(await onService(row)).toMatchObject({ time: 40.5, faults: 25 });
	});
});
