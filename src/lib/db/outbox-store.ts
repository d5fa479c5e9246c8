/**
 * Storage of the outbox and the sync log: Dexie only, no policy (that lives in $lib/sync/outbox and
 * $lib/sync/replay), like Workbox's QueueDb under its Queue. Every function joins the caller's
 * transaction when called inside one.
 */
import type { ApiErrorRecord } from '$lib/api/errors';
import { DUE_STATUSES, type Step } from '$lib/domain/outbox-entry';
import { db, type OutboxEntry, type OutboxStatus, type SyncLogRow } from './db';

export const OUTBOX_STATUSES: readonly OutboxStatus[] = [
	'pending',
	'sending',
	'conflict',
	'failed'
];

export { outboxKey } from './keys';

export function getEntry(key: string): Promise<OutboxEntry | undefined> {
	return db.outbox.get(key);
}

export async function putEntry(entry: OutboxEntry): Promise<void> {
	await db.outbox.put(entry);
}

export function deleteEntry(key: string): Promise<void> {
	return db.outbox.delete(key);
}

/** From this many keys on, `getEntries` tries one read over their range. */
const RANGE_FROM = 4;

/**
 * The entries under `keys`, in that order (undefined where there is none). Many keys are read in
 * one request over their range when it holds few others (a replay's batch: the dog runs of one
 * page of a run, whose keys sort together), instead of one request per key: each request costs
 * the page a round trip to IndexedDB.
 */
export async function getEntries(keys: readonly string[]): Promise<(OutboxEntry | undefined)[]> {
	if (keys.length < RANGE_FROM) return db.outbox.bulkGet([...keys]);
	let low = keys[0] as string;
	let high = low;
	for (const key of keys) {
		if (key < low) low = key;
		if (key > high) high = key;
	}
	const range = db.outbox.where('key').between(low, high, true, true);
	if ((await range.count()) > 2 * keys.length) return db.outbox.bulkGet([...keys]);
	const found = new Map((await range.toArray()).map((entry) => [entry.key, entry]));
	return keys.map((key) => found.get(key));
}

export async function putEntries(entries: readonly OutboxEntry[]): Promise<void> {
	if (entries.length > 0) await db.outbox.bulkPut([...entries]);
}

export async function deleteEntries(keys: readonly string[]): Promise<void> {
	if (keys.length > 0) await db.outbox.bulkDelete([...keys]);
}

/** The entries to send now: pending or sending, with nextAttemptAt <= now; oldest first. */
export async function listDueEntries(now: number): Promise<OutboxEntry[]> {
	const entries = await db.outbox
		.where('nextAttemptAt')
		.belowOrEqual(now)
		.filter((entry) => DUE_STATUSES.includes(entry.status))
		.toArray();
	return entries.sort(byAge);
}

/** How many entries are in each status (0 for none). */
export async function countByStatus(): Promise<Record<OutboxStatus, number>> {
	const counts: Record<OutboxStatus, number> = { pending: 0, sending: 0, conflict: 0, failed: 0 };
	await Promise.all(
		OUTBOX_STATUSES.map(async (status) => {
			counts[status] = await db.outbox.where('status').equals(status).count();
		})
	);
	return counts;
}

/** Appends one outcome to the sync log. */
export async function appendSyncLog(row: Omit<SyncLogRow, 'id'>): Promise<void> {
	await db.syncLog.add(row);
}

/** Appends outcomes to the sync log, in order. */
export async function appendSyncLogs(rows: readonly Omit<SyncLogRow, 'id'>[]): Promise<void> {
	if (rows.length > 0) await db.syncLog.bulkAdd([...rows]);
}

/** The sync log in order of writing, optionally of one entry key. */
export function readSyncLog(key?: string): Promise<SyncLogRow[]> {
	return key === undefined
		? db.syncLog.orderBy('id').toArray()
		: db.syncLog.where('key').equals(key).sortBy('id');
}

function byAge(a: OutboxEntry, b: OutboxEntry): number {
	return a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/**
 * Gathers the steps of several entries (their next state and log rows) and writes them in bulk,
 * inside the caller's transaction: one bulk delete, one bulk put, one bulk add of log rows.
 */
export class StepWriter {
	readonly #entries = new Map<string, OutboxEntry | null>();
	readonly #log: Omit<SyncLogRow, 'id'>[] = [];

	add(key: string, step: Step<ApiErrorRecord>): this {
		this.#entries.set(key, step.entry);
		this.#log.push(...step.log);
		return this;
	}

	async write(): Promise<void> {
		const puts: OutboxEntry[] = [];
		const deletes: string[] = [];
		for (const [key, entry] of this.#entries) {
			if (entry) puts.push(entry);
			else deletes.push(key);
		}
		await deleteEntries(deletes);
		await putEntries(puts);
		await appendSyncLogs(this.#log);
	}
}
