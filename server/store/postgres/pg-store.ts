// The PostgreSQL store (pg): the same statements as SQLite (sql.ts turns `@name` into `$n`,
// pg-sql.ts), a database made ready at start (prepare.ts), and what several instances of the
// service on one database share: one change feed numbered in commit order (change_counter, whose
// row lock orders the commits) and carried to every instance by LISTEN/NOTIFY (listener.ts), the
// data version of the tag cache, device revocations, and locks. See docs/deployment.md.
import pg from 'pg';
import { newEpoch, type ChangeEvent } from '../../push/change-feed.ts';
import type { SeedSize, SeedSummary } from '../../seed/seed.ts';
import { StoreError, type Sql } from '../sql.ts';
import type { Store, StoredChange, StoreFeed } from '../store.ts';
import { coalesced } from './coalesced.ts';
import { Listener } from './listener.ts';
import { inTransaction, PgSql, TYPES, withClient, type StatementNames } from './pg-sql.ts';
import { prepareDatabase } from './prepare.ts';

export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
	try {
		const u = new URL(url);
		if (u.password) u.password = '***';
		return u.toString();
	} catch {
		return 'postgres://…';
	}
}

/** Channels of NOTIFY: accepted changes, and revoked devices. */
const CHANGE_CHANNEL = 'ringside_change';
const REVOKED_CHANNEL = 'ringside_revoked';
/** Changes kept in change_log for instances that start or reconnect (a feed keeps 5,000). */
const CHANGE_LOG_KEEP = 20_000;
/**
 * A NOTIFY payload must be shorter than 8,000 bytes: a notice whose full JSON (the template
 * escaped in it) is longer carries only its seq, and the change is read from change_log.
 */
const MAX_NOTIFY_BYTES = 7_900;

const SQL = {
	meta: 'SELECT value FROM meta WHERE key = @key',
	// The counter's row lock is held from here to the commit, so the seqs of all instances are
	// handed out in commit order (a listener that has seq n has every seq < n), and every later
	// statement of the transaction (READ COMMITTED) sees every change committed before it.
	claimSeq: 'UPDATE change_counter SET seq = seq + 1 WHERE id = 1 RETURNING seq',
	// The limit is checked on the notice as sent (JSON escapes the template's quotes).
	recordChange: `WITH i AS (INSERT INTO change_log (seq, competition_id, event, template)
		  VALUES (CAST(@seq AS BIGINT), CAST(@cid AS INTEGER), CAST(@event AS TEXT),
		    CAST(@template AS TEXT))),
		n AS (SELECT json_build_object('seq', CAST(@seq AS BIGINT),
		    'competitionId', CAST(@cid AS INTEGER), 'event', CAST(@event AS TEXT),
		    'template', CAST(@template AS TEXT))::text AS full)
		SELECT pg_notify('ringside_change',
		  CASE WHEN octet_length(n.full) <= CAST(@maxBytes AS INTEGER) THEN n.full
		  ELSE json_build_object('seq', CAST(@seq AS BIGINT))::text END) AS notified
		FROM n`,
	trimChanges: 'DELETE FROM change_log WHERE seq <= @below',
	changesAfter: `SELECT seq, competition_id AS "competitionId", event, template FROM change_log
		WHERE seq > @after ORDER BY seq`,
	recentChanges: `SELECT seq, competition_id AS "competitionId", event, template FROM change_log
		ORDER BY seq DESC LIMIT @limit`,
	dataVersion: 'SELECT seq FROM change_counter WHERE id = 1',
	// Constant text, no parameters: sent as one simple query.
	readSnapshot: `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
		SELECT seq FROM change_counter WHERE id = 1`,
	revoked: "SELECT pg_notify('ringside_revoked', CAST(@id AS TEXT))",
	revokedDevices: 'SELECT id FROM device WHERE revoked_at IS NOT NULL',
	lock: 'SELECT pg_advisory_xact_lock(CAST(@key AS BIGINT))'
} as const;

export interface PostgresOptions {
	url: string;
	reset: boolean;
	seed: SeedSize | null;
	seedDate: string;
	poolSize: number;
	/** Where the listener's trouble is reported. */
	logError?: (line: string) => void;
}

interface ChangeNotice {
	seq: number;
	competitionId?: number;
	event?: ChangeEvent;
	template?: string;
}

/**
 * Opens the database at `o.url`: a pool for the requests, one client that listens (LISTEN) to the
 * changes and revocations of every instance. Closes what it opened when the start fails.
 */
export async function openPostgres(
	o: PostgresOptions
): Promise<{ store: Store; seeded: SeedSummary | null }> {
	const logError = o.logError ?? ((line: string) => console.error(line));
	const names: StatementNames = new Map();
	const pool = new pg.Pool({
		connectionString: o.url,
		max: o.poolSize,
		types: TYPES,
		application_name: 'ringside'
	});
	// An idle connection that breaks is replaced by the pool; it must not crash the process.
	pool.on('error', (e) => {
		if (!closed) logError(JSON.stringify({ msg: 'postgres pool', error: String(e) }));
	});
	const newListener = () =>
		new pg.Client({ connectionString: o.url, types: TYPES, application_name: 'ringside-listen' });
	const first = newListener();
	let listening: Listener | null = null;
	let closed = false;
	let closing: Promise<void> | null = null;
	try {
		await first.connect();
		const seeded = await prepareDatabase(first, new PgSql(first, names), o);
		const sql = new PgSql(pool, names);
		const epoch =
			(await sql.get<{ value: string }>(SQL.meta, { key: 'feedEpoch' }))?.value ?? newEpoch();
		let lastSeq = (await sql.get<{ seq: number }>(SQL.dataVersion))?.seq ?? 0;
		const changeListeners: ((c: StoredChange) => void)[] = [];
		const revokedListeners: ((id: number) => void)[] = [];

		const emit = (c: StoredChange): void => {
			if (c.seq <= lastSeq) return;
			lastSeq = c.seq;
			for (const l of changeListeners) l(c);
		};
		// Notices are handled one at a time, in the order they came (commit order).
		let queue: Promise<void> = Promise.resolve();
		const catchUp = async (): Promise<void> => {
			const rows = await sql.all<StoredChange>(SQL.changesAfter, { after: lastSeq });
			for (const r of rows) emit(r);
		};
		const onNotice = (n: pg.Notification): void => {
			if (n.channel === REVOKED_CHANNEL) {
				const id = Number(n.payload);
				for (const l of revokedListeners) l(id);
				return;
			}
			if (n.channel !== CHANGE_CHANNEL || !n.payload) return;
			const notice = JSON.parse(n.payload) as ChangeNotice;
			queue = queue
				.then(async () => {
					const { seq, competitionId, event, template } = notice;
					if (
						seq === lastSeq + 1 &&
						competitionId !== undefined &&
						event !== undefined &&
						template !== undefined
					) {
						emit({ seq, competitionId, event, template });
					} else if (seq > lastSeq) await catchUp();
				})
				.catch((e: unknown) =>
					logError(JSON.stringify({ msg: 'postgres change feed', error: String(e) }))
				);
		};
		listening = new Listener(first, newListener, {
			channels: [CHANGE_CHANNEL, REVOKED_CHANNEL],
			onNotice,
			missed() {
				queue = queue
					.then(catchUp)
					.catch((e: unknown) =>
						logError(JSON.stringify({ msg: 'postgres change feed', error: String(e) }))
					);
			},
			// Every revoked device announced again: their streams here close, their credentials
			// stop at once.
			async announce() {
				const revoked = await sql.all<{ id: number }>(SQL.revokedDevices);
				for (const { id } of revoked) for (const l of revokedListeners) l(id);
			},
			logError
		});
		await listening.start();
		// Changes committed between reading the counter and LISTEN.
		await catchUp();

		// Thousands of boards' conditional reads each ask the data version: one query at a time
		// serves every request that arrived before it was sent.
		const committedSeq = coalesced(
			async () => (await sql.get<{ seq: number }>(SQL.dataVersion))?.seq ?? 0
		);
		const feed: StoreFeed = {
			epoch,
			async claim(tx) {
				const row = await tx.get<{ seq: number }>(SQL.claimSeq);
				if (!row) throw new Error('change_counter has no row');
				return row.seq;
			},
			async record(tx, seq, c) {
				await tx.get(SQL.recordChange, {
					seq,
					cid: c.competitionId,
					event: c.event,
					template: c.template,
					maxBytes: MAX_NOTIFY_BYTES
				});
				if (seq % 1000 === 0) await tx.run(SQL.trimChanges, { below: seq - CHANGE_LOG_KEEP });
			},
			async recordRevoked(tx, deviceId) {
				await tx.run(SQL.revoked, { id: deviceId });
			},
			onChange: (l) => void changeListeners.push(l),
			onRevoked: (l) => void revokedListeners.push(l),
			deliveredSeq: () => lastSeq,
			committedSeq: () => committedSeq(),
			async recent(limit) {
				const rows = await sql.all<StoredChange>(SQL.recentChanges, { limit });
				return rows.reverse();
			}
		};

		const transaction = async <T>(begin: string, fn: (s: Sql) => Promise<T>): Promise<T> => {
			if (closed) throw new StoreError('store-closed', 'The database is closed');
			return withClient(pool, (client) =>
				inTransaction(client, begin, () => fn(new PgSql(client, names)))
			);
		};
		// A snapshot and its data version in one round trip (a simple query of two statements).
		const snapshot = async <T>(fn: (s: Sql, version: number) => Promise<T>): Promise<T> => {
			if (closed) throw new StoreError('store-closed', 'The database is closed');
			// The SELECT of the snapshot may fail after its BEGIN (a cancel, a timeout): rolled back.
			return withClient(pool, (client) =>
				inTransaction(client, SQL.readSnapshot, (began) => {
					const results = began as pg.QueryResult[];
					const version = Number((results[1]?.rows[0] as { seq?: number } | undefined)?.seq ?? 0);
					return fn(new PgSql(client, names), version);
				})
			);
		};

		const store: Store = {
			engine: 'postgres',
			sqlite: null,
			where: redactUrl(o.url),
			get open() {
				return !closed;
			},
			dataDir: null,
			sql,
			feed,
			async lock(tx, key) {
				await tx.run(SQL.lock, { key });
			},
			// One snapshot: a dog run and the run it embeds (its progress) are read as of one moment.
			read: snapshot,
			write: (fn) => transaction('BEGIN', fn),
			close() {
				closed = true;
				closing ??= (async () => {
					// Stops reconnecting at once (in this step), then waits for the loop.
					await listening?.close();
					await queue;
					await pool.end();
				})();
				return closing;
			}
		};
		return { store, seeded };
	} catch (e) {
		closed = true;
		await (listening ? listening.close() : first.end().catch(() => {}));
		await pool.end().catch(() => {});
		throw e;
	}
}
