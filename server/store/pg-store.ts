// The PostgreSQL store (pg): the same statements as SQLite (sql.ts turns `@name` into `$n`),
// migrations from the one description (schema.ts), the seed, and what several instances of the
// service on one database share (Coordination): one change feed numbered in commit order and
// carried to every instance by LISTEN/NOTIFY, the data version of the tag cache, device
// revocations, and locks. See docs/deployment.md.
import pg from 'pg';
import { newEpoch, type ChangeEvent } from '../change-feed.ts';
import { SEED_TABLES, seedData, type SeedSize, type SeedSummary, type SeedTable } from '../seed.ts';
import { ddlOf, MIGRATIONS } from './schema.ts';
import {
	positional,
	StoreError,
	valuesOf,
	type Params,
	type Positional,
	type Sql,
	type SqlValue
} from './sql.ts';
import type { Coordination, SharedChange, Store } from './store.ts';

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
/** Advisory lock keys (pg_advisory_xact_lock) of the service: migrations and seeding. */
const MIGRATE_LOCK = 7_406_001;
/** Changes kept in change_log for instances that start or reconnect (a feed keeps 5,000). */
const CHANGE_LOG_KEEP = 20_000;
/**
 * A NOTIFY payload must be shorter than 8,000 bytes: a notice whose full JSON (the template
 * escaped in it) is longer carries only its seq, and the change is read from change_log.
 */
const MAX_NOTIFY_BYTES = 7_900;

const SQL = {
	schemaTable: 'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)',
	schemaVersion: 'SELECT version FROM schema_version',
	schemaInit: 'INSERT INTO schema_version (version) VALUES (0)',
	schemaSet: 'UPDATE schema_version SET version = @version',
	migrateLock: 'SELECT pg_advisory_xact_lock(CAST(@key AS BIGINT))',
	competitions: 'SELECT COUNT(*) AS n FROM competition',
	setMeta: `INSERT INTO meta (key, value) VALUES (@key, @value)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
	addMeta: 'INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING',
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
	lock: 'SELECT pg_advisory_xact_lock(CAST(@key AS BIGINT))',
	// Every table of the service, for `reset` (constant names, dependants first).
	dropAll: `DROP TABLE IF EXISTS change_log, change_counter, device, join_token, put_log, dog_run,
		competition_run, dog, competitor, ring, competition_judge, judge, competition,
		dog_size_class, competition_run_level, competition_level, meta, schema_version CASCADE`
} as const;

/** COUNT(*) and other BIGINTs as numbers (every count and seq of the service is far below 2^53). */
const TYPES = {
	getTypeParser: ((oid: number, format?: string) =>
		oid === 20
			? (v: string) => Number(v)
			: pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser
};

/** `Sql` on a pool or one client; each statement is prepared once per connection (by name). */
class PgSql implements Sql {
	readonly #q: pg.Pool | pg.PoolClient | pg.Client;
	readonly #names: Map<string, { p: Positional; name: string }>;

	constructor(
		q: pg.Pool | pg.PoolClient | pg.Client,
		names: Map<string, { p: Positional; name: string }>
	) {
		this.#q = q;
		this.#names = names;
	}

	async #query<T>(
		sql: string,
		params: Params = {}
	): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
		let st = this.#names.get(sql);
		if (!st) {
			st = { p: positional(sql), name: `ringside_${this.#names.size + 1}` };
			this.#names.set(sql, st);
		}
		return this.#q.query<T & pg.QueryResultRow>({
			name: st.name,
			text: st.p.text,
			values: valuesOf(st.p, params)
		});
	}

	async all<T>(sql: string, params?: Params): Promise<T[]> {
		return (await this.#query<T>(sql, params)).rows;
	}

	async get<T>(sql: string, params?: Params): Promise<T | undefined> {
		return (await this.#query<T>(sql, params)).rows[0];
	}

	async run(sql: string, params?: Params): Promise<{ changes: number }> {
		return { changes: (await this.#query(sql, params)).rowCount ?? 0 };
	}
}

export interface PostgresOptions {
	url: string;
	reset: boolean;
	seed: SeedSize;
	seedDate: string;
	poolSize: number;
	/** Where the listener's trouble is reported. */
	logError?: (line: string) => void;
}

/**
 * Runs `fn` in a transaction on `client` (`begin` … COMMIT; ROLLBACK when anything throws, BEGIN
 * and COMMIT too, so that no client is left inside a failed transaction). `fn` gets what `begin`
 * answered (a `begin` of several statements answers a result each). When the ROLLBACK fails as
 * well, throws RollbackFailed (carrying the first error): the client must not be used again.
 */
async function inTransaction<T>(
	client: pg.PoolClient | pg.Client,
	begin: string,
	fn: (began: unknown) => Promise<T>
): Promise<T> {
	try {
		const began: unknown = await client.query(begin);
		const result = await fn(began);
		await client.query('COMMIT');
		return result;
	} catch (e) {
		await client.query('ROLLBACK').catch((rollback: unknown) => {
			throw new RollbackFailed(e, rollback);
		});
		throw e;
	}
}

/** A transaction failed, and so did its ROLLBACK: its connection must not be used again. */
class RollbackFailed extends Error {
	readonly failure: unknown;

	constructor(failure: unknown, rollback: unknown) {
		super(`ROLLBACK failed: ${String(rollback)}`);
		this.name = 'RollbackFailed';
		this.failure = failure;
	}
}

/**
 * Runs `fn` on a client of `pool` and releases it: one whose transaction could not be rolled
 * back is discarded (release with the error), never handed to the next request.
 */
async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
	const client = await pool.connect();
	try {
		const result = await fn(client);
		client.release();
		return result;
	} catch (e) {
		if (e instanceof RollbackFailed) {
			client.release(e);
			throw e.failure;
		}
		client.release();
		throw e;
	}
}

/**
 * Migrates (under an advisory lock: instances starting together migrate once), with `reset`
 * first drops every table of the service, and seeds an empty database; returns the seed's
 * summary when this start seeded it.
 */
async function prepareDatabase(
	client: pg.Client,
	sql: Sql,
	o: PostgresOptions
): Promise<SeedSummary | null> {
	const migrate = inTransaction(client, 'BEGIN', async () => {
		await sql.run(SQL.migrateLock, { key: MIGRATE_LOCK });
		if (o.reset) await client.query(SQL.dropAll);
		await client.query(SQL.schemaTable);
		let version = (await sql.get<{ version: number }>(SQL.schemaVersion))?.version;
		if (version === undefined) {
			await sql.run(SQL.schemaInit);
			version = 0;
		}
		if (version > MIGRATIONS.length) {
			throw new StoreError(
				'store-migration',
				`The database has schema version ${version}; this service knows ${MIGRATIONS.length}: use a newer service`
			);
		}
		for (let v = version; v < MIGRATIONS.length; v++) {
			const step = MIGRATIONS[v];
			if (step && (step.only === undefined || step.only === 'postgres')) {
				await client.query(ddlOf(step, 'postgres'));
			}
			await sql.run(SQL.schemaSet, { version: v + 1 });
		}
		await sql.run(SQL.addMeta, { key: 'feedEpoch', value: newEpoch() });
		const empty = ((await sql.get<{ n: number }>(SQL.competitions))?.n ?? 0) === 0;
		return empty ? seedPostgres(client, sql, o.seed, o.seedDate) : null;
	});
	// The listening client is ended when the start fails: the first error is the one to tell.
	return migrate.catch((e: unknown) => {
		throw e instanceof RollbackFailed ? e.failure : e;
	});
}

/** Rows per INSERT of the seed (PostgreSQL takes at most 65,535 parameters per statement). */
const SEED_BATCH_PARAMS = 30_000;

/** Inserts the deterministic seed (seed.ts) in batches of many rows per statement. */
async function seedPostgres(
	client: pg.Client,
	sql: Sql,
	size: SeedSize,
	seedDate: string
): Promise<SeedSummary> {
	const t0 = performance.now();
	const data = seedData(size, seedDate);
	for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
		const { table, columns } = SEED_TABLES[t];
		const rows = data.rows[t];
		const per = Math.max(1, Math.floor(SEED_BATCH_PARAMS / columns.length));
		for (let at = 0; at < rows.length; at += per) {
			const batch = rows.slice(at, at + per);
			const values: SqlValue[] = [];
			const tuples = batch.map((row) => {
				const marks = row.map((v) => `$${values.push(v)}`);
				return `(${marks.join(', ')})`;
			});
			// Table and column names are the constants of SEED_TABLES; every value is a parameter.
			const text = ['INSERT INTO', table, `(${columns.join(', ')})`, 'VALUES', tuples.join(', ')];
			await client.query(text.join(' '), values);
		}
	}
	for (const [key, value] of data.meta) await sql.run(SQL.setMeta, { key, value });
	// Statistics for the planner now, not when autovacuum gets to the new tables.
	for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
		await client.query(['ANALYZE', SEED_TABLES[t].table].join(' '));
	}
	return { ...data.summary, ms: Math.round(performance.now() - t0) };
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
	const names = new Map<string, { p: Positional; name: string }>();
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
	let listener = newListener();
	let closed = false;
	let closing: Promise<void> | null = null;
	try {
		await listener.connect();
		const seeded = await prepareDatabase(listener, new PgSql(listener, names), o);
		const sql = new PgSql(pool, names);
		const epoch =
			(await sql.get<{ value: string }>(SQL.meta, { key: 'feedEpoch' }))?.value ?? newEpoch();
		let lastSeq = (await sql.get<{ seq: number }>(SQL.dataVersion))?.seq ?? 0;
		const changeListeners: ((c: SharedChange) => void)[] = [];
		const revokedListeners: ((id: number) => void)[] = [];

		const emit = (c: SharedChange): void => {
			if (c.seq <= lastSeq) return;
			lastSeq = c.seq;
			for (const l of changeListeners) l(c);
		};
		// Notices are handled one at a time, in the order they came (commit order).
		let queue: Promise<void> = Promise.resolve();
		const catchUp = async (): Promise<void> => {
			const rows = await sql.all<SharedChange>(SQL.changesAfter, { after: lastSeq });
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
		/**
		 * Listens on `client`. When its connection breaks (a database restart, a network blip, an
		 * administrator's pg_terminate_backend), one reconnection loop makes a new one, with
		 * backoff, and reads what was missed meanwhile: the changes after the last one seen, and
		 * every revoked device announced again (their streams here close, their credentials stop
		 * at once).
		 */
		let reconnecting = false;
		/** The listening connection broke again while the loop was running. */
		let lostAgain = false;
		/** The reconnection loop running (close() waits for it). */
		let relistening: Promise<void> | null = null;
		/** Ends the loop's current wait at once (close). */
		let wakeUp: (() => void) | null = null;
		const pause = (ms: number): Promise<void> =>
			new Promise((resolve) => {
				const timer = setTimeout(resolve, ms);
				wakeUp = () => {
					clearTimeout(timer);
					resolve();
				};
			});
		const attach = async (client: pg.Client): Promise<void> => {
			const trouble = (e?: unknown): void => {
				if (closed || client !== listener) return;
				if (reconnecting) {
					lostAgain = true;
					return;
				}
				reconnecting = true;
				logError(
					JSON.stringify({ msg: 'postgres listener lost; reconnecting', error: String(e ?? 'end') })
				);
				relistening = relisten().finally(() => {
					reconnecting = false;
					relistening = null;
				});
			};
			client.on('notification', onNotice);
			client.on('error', trouble);
			client.on('end', () => trouble());
			await client.query(`LISTEN ${CHANGE_CHANNEL}`);
			await client.query(`LISTEN ${REVOKED_CHANNEL}`);
		};
		/** A connection that no longer listens for this store (its 'error' handler stays). */
		const retire = (client: pg.Client): void => {
			client.removeAllListeners('notification');
			void client.end().catch(() => {});
		};
		/**
		 * The one reconnection loop (`reconnecting` until it ends; a connection lost meanwhile sets
		 * `lostAgain` instead of starting another). A failed read of what was missed is read again:
		 * a connection that listens is never given up for it.
		 */
		const relisten = async (): Promise<void> => {
			let delay = 100;
			while (!closed) {
				await pause(delay);
				delay = Math.min(delay * 2, 5_000);
				if (closed) return;
				const client = newListener();
				try {
					await client.connect();
					if (closed) {
						await client.end().catch(() => {});
						return;
					}
					retire(listener);
					listener = client;
					lostAgain = false;
					await attach(client);
				} catch (e) {
					logError(JSON.stringify({ msg: 'postgres listener', error: String(e) }));
					retire(client);
					continue;
				}
				queue = queue
					.then(catchUp)
					.catch((e: unknown) =>
						logError(JSON.stringify({ msg: 'postgres change feed', error: String(e) }))
					);
				let announced = false;
				for (let wait = 100; !closed && !lostAgain && !announced;) {
					try {
						const revoked = await sql.all<{ id: number }>(SQL.revokedDevices);
						for (const { id } of revoked) for (const l of revokedListeners) l(id);
						announced = true;
					} catch (e) {
						logError(JSON.stringify({ msg: 'postgres listener catch-up', error: String(e) }));
						await pause(wait);
						wait = Math.min(wait * 2, 5_000);
					}
				}
				if (!lostAgain) return;
				delay = 100;
			}
		};
		await attach(listener);
		// Changes committed between reading the counter and LISTEN.
		await catchUp();

		const shared: Coordination = {
			epoch,
			lastSeq: () => lastSeq,
			async recent(limit) {
				const rows = await sql.all<SharedChange>(SQL.recentChanges, { limit });
				return rows.reverse();
			},
			async claimSeq(tx) {
				const row = await tx.get<{ seq: number }>(SQL.claimSeq);
				if (!row) throw new Error('change_counter has no row');
				return row.seq;
			},
			async recordChange(tx, seq, c) {
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
			async dataVersion(tx = sql) {
				return (await tx.get<{ seq: number }>(SQL.dataVersion))?.seq ?? 0;
			},
			async lock(tx, key) {
				await tx.run(SQL.lock, { key });
			},
			onChange: (l) => changeListeners.push(l),
			onRevoked: (l) => revokedListeners.push(l)
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
			sql,
			shared,
			// One snapshot: a dog run and the run it embeds (its progress) are read as of one moment.
			read: snapshot,
			write: (fn) => transaction('BEGIN', fn),
			close() {
				closed = true;
				wakeUp?.();
				closing ??= (async () => {
					await relistening;
					await queue;
					await listener.end().catch(() => {});
					await pool.end();
				})();
				return closing;
			}
		};
		return { store, seeded };
	} catch (e) {
		closed = true;
		await listener.end().catch(() => {});
		await pool.end().catch(() => {});
		throw e;
	}
}
