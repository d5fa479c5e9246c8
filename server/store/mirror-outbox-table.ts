// The mirror_outbox table: the changes accepted here that the upstream service does not hold yet,
// one entry per resource (`key`, `kind:id`), written in the transaction of the change itself
// (server/mirror/outbox.ts decides what each holds). An entry is the app's OutboxEntry
// (src/lib/domain/outbox-entry.ts) as JSON text, which only the mirror reads and writes; beside
// it the columns the entries are picked by: its status, when it is next due and when it was made
// (ms since 1970).
import type { Sql } from './sql.ts';

/** An entry as stored: its JSON text and the columns beside it. */
export interface OutboxRow {
	key: string;
	/** The entry as JSON. */
	entry: string;
	status: string;
	nextAttemptAt: number;
	createdAt: number;
}

/** How many entries of one status there are, and when the oldest of them was made (ms). */
export interface OutboxStatusCount {
	status: string;
	n: number;
	oldest: number | null;
}

const SQL = {
	entry: 'SELECT entry FROM mirror_outbox WHERE key = @key',
	insert: `INSERT INTO mirror_outbox (key, entry, status, next_attempt_at, created_at)
		VALUES (@key, @entry, @status, @next, @created)`,
	update: `UPDATE mirror_outbox SET entry = @entry, status = @status, next_attempt_at = @next
		WHERE key = @key`,
	delete: 'DELETE FROM mirror_outbox WHERE key = @key',
	due: `SELECT entry FROM mirror_outbox WHERE status IN ('pending', 'sending')
		AND next_attempt_at <= @now ORDER BY created_at, key LIMIT @limit`,
	// What needs a person (conflicts, refusals) first, then the oldest of what waits.
	shown: `SELECT entry FROM mirror_outbox WHERE status IN ('conflict', 'failed')
		UNION ALL SELECT entry FROM (SELECT entry FROM mirror_outbox
		WHERE status IN ('pending', 'sending') ORDER BY created_at, key LIMIT @limit) AS waiting`,
	counts:
		'SELECT status, COUNT(*) AS n, MIN(created_at) AS oldest FROM mirror_outbox GROUP BY status',
	later: `SELECT key FROM mirror_outbox WHERE status = 'pending'
		AND next_attempt_at > @now ORDER BY key`,
	state: `SELECT COUNT(*) AS n, MIN(next_attempt_at) AS at FROM mirror_outbox
		WHERE status IN ('pending', 'sending')`
} as const;

/** The JSON text of the entry `key`, or undefined. */
export async function outboxEntryText(sql: Sql, key: string): Promise<string | undefined> {
	return (await sql.get<{ entry: string }>(SQL.entry, { key }))?.entry;
}

export async function insertOutboxEntry(sql: Sql, row: OutboxRow): Promise<void> {
	await sql.run(SQL.insert, {
		key: row.key,
		entry: row.entry,
		status: row.status,
		next: row.nextAttemptAt,
		created: row.createdAt
	});
}

/** Writes over the stored entry of `row.key` (when it was made stays). */
export async function updateOutboxEntry(
	sql: Sql,
	row: Omit<OutboxRow, 'createdAt'>
): Promise<void> {
	await sql.run(SQL.update, {
		key: row.key,
		entry: row.entry,
		status: row.status,
		next: row.nextAttemptAt
	});
}

export async function deleteOutboxEntry(sql: Sql, key: string): Promise<void> {
	await sql.run(SQL.delete, { key });
}

/** The JSON texts of the entries due at `now` (pending or being sent; oldest first), at most `limit`. */
export async function dueOutboxEntries(sql: Sql, now: number, limit: number): Promise<string[]> {
	return (await sql.all<{ entry: string }>(SQL.due, { now, limit })).map((r) => r.entry);
}

/** The JSON texts of every conflict and refusal, then of the oldest `limit` entries that wait. */
export async function shownOutboxEntries(sql: Sql, limit: number): Promise<string[]> {
	return (await sql.all<{ entry: string }>(SQL.shown, { limit })).map((r) => r.entry);
}

/** The keys of the pending entries not due yet at `now`, in key order. */
export async function laterOutboxKeys(sql: Sql, now: number): Promise<string[]> {
	return (await sql.all<{ key: string }>(SQL.later, { now })).map((r) => r.key);
}

/** The entries to publish (pending or being sent), and when the first of them is due (ms). */
export async function unsentOutbox(sql: Sql): Promise<{ unsent: number; dueAt: number | null }> {
	const row = await sql.get<{ n: number | string; at: number | null }>(SQL.state);
	return {
		unsent: Number(row?.n ?? 0),
		dueAt: row?.at === null || row?.at === undefined ? null : Number(row.at)
	};
}

/** Per status, how many entries and when the oldest was made. */
export async function outboxByStatus(sql: Sql): Promise<OutboxStatusCount[]> {
	const rows = await sql.all<{ status: string; n: number | string; oldest: number | null }>(
		SQL.counts
	);
	return rows.map((r) => ({
		status: r.status,
		n: Number(r.n),
		oldest: r.oldest === null ? null : Number(r.oldest)
	}));
}
