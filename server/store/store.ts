// The storage interface every route and middleware uses (never a driver directly), and its SQLite
// implementation. PostgreSQL's is in pg-store.ts. A store hands out `Sql` (sql.ts): `read` runs
// a function on one consistent snapshot, `write` in one transaction that is rolled back when the
// function throws. `shared` stores (PostgreSQL) are shared by several instances of the service:
// they carry the changes and device revocations of every instance (see Coordination).
import Database from 'better-sqlite3';
import type { DB } from '../db.ts';
import type { ChangeEvent } from '../change-feed.ts';
import { StoreError, type Engine, type Params, type Sql } from './sql.ts';

/** A change as every instance delivers it to its streams (shared stores only). */
export interface SharedChange {
	/** The database-wide sequence number, in commit order. */
	seq: number;
	competitionId: number;
	event: ChangeEvent;
	/** The changed resource as its GET answers it, built on API_BASE. */
	template: string;
}

/**
 * What several instances on one database share besides the data: the change feed (one id space,
 * in commit order) and device revocations. Only shared stores have it.
 */
export interface Coordination {
	/** The feed's epoch, the same on every instance of the database. */
	readonly epoch: string;
	/** The latest change's seq (0 before the first). */
	lastSeq(): number;
	/** The latest changes, oldest first (at most `limit`), to fill a feed at start. */
	recent(limit: number): Promise<SharedChange[]>;
	/**
	 * In a write transaction that changes a resource, before it reads what it answers: the
	 * change's seq (raising the data version). It waits for the changes committing before it, and
	 * holds them back after it until the commit: what the transaction reads next includes every
	 * change of a smaller seq.
	 */
	claimSeq(sql: Sql): Promise<number>;
	/**
	 * In the same transaction: records the change `seq` for every instance (it is delivered to
	 * each instance's `onChange` once committed).
	 */
	recordChange(sql: Sql, seq: number, change: Omit<SharedChange, 'seq'>): Promise<void>;
	/** In the revocation's transaction: every instance closes the device's streams once committed. */
	recordRevoked(sql: Sql, deviceId: number): Promise<void>;
	/** The data version now (raised by every change): what the tag cache compares. */
	dataVersion(sql?: Sql): Promise<number>;
	/** In a transaction: waits for the lock `key` of every instance, held until it ends. */
	lock(sql: Sql, key: number): Promise<void>;
	onChange(listener: (c: SharedChange) => void): void;
	onRevoked(listener: (deviceId: number) => void): void;
}

export interface Store {
	readonly engine: Engine;
	/** The SQLite database (programmatic use and tests); null on PostgreSQL. */
	readonly sqlite: DB | null;
	/** Where a store keeps its data, for messages (a file, or a URL without its password). */
	readonly where: string;
	/** Whether the store is open. */
	readonly open: boolean;
	/** The connection outside any transaction. */
	readonly sql: Sql;
	/**
	 * Runs `fn` on one consistent snapshot; `version` is the data version of that snapshot on a
	 * shared store (see Coordination.dataVersion), null on one process.
	 */
	read<T>(fn: (sql: Sql, version: number | null) => Promise<T>): Promise<T>;
	/** Runs `fn` in one transaction; rolled back when it throws. */
	write<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
	/** Several instances share this store (PostgreSQL); null: one process (SQLite). */
	readonly shared: Coordination | null;
	close(): Promise<void>;
}

/** better-sqlite3 behind `Sql`: statements prepared once each, answers at once. */
export class SqliteSql implements Sql {
	readonly #db: DB;
	readonly #statements = new Map<string, Database.Statement>();

	constructor(db: DB) {
		this.#db = db;
	}

	#prepare(sql: string): Database.Statement {
		let st = this.#statements.get(sql);
		if (!st) {
			st = this.#db.prepare(sql);
			this.#statements.set(sql, st);
		}
		return st;
	}

	// Async so that a driver error is a rejection, as on PostgreSQL.
	async all<T>(sql: string, params?: Params): Promise<T[]> {
		const st = this.#prepare(sql);
		return (params ? st.all(params) : st.all()) as T[];
	}

	async get<T>(sql: string, params?: Params): Promise<T | undefined> {
		const st = this.#prepare(sql);
		return (params ? st.get(params) : st.get()) as T | undefined;
	}

	async run(sql: string, params?: Params): Promise<{ changes: number }> {
		const st = this.#prepare(sql);
		const { changes } = params ? st.run(params) : st.run();
		return { changes };
	}
}

/**
 * Turns on the one connection of a SQLite store: a write transaction has it alone, reads share
 * it (first come, first served: a read that arrives while a write waits goes after that write).
 * Statements outside both (`store.sql`) wait only while a write transaction is open.
 */
class Turns {
	#readers = 0;
	#writing = false;
	/** Between BEGIN and COMMIT or ROLLBACK. */
	#open = false;
	readonly #queue: { exclusive: boolean; go: () => void }[] = [];
	#closed: (() => void)[] = [];

	async read<T>(fn: () => Promise<T>): Promise<T> {
		if (this.#writing || this.#queue.length > 0) {
			await new Promise<void>((go) => this.#queue.push({ exclusive: false, go }));
		} else this.#readers++;
		try {
			return await fn();
		} finally {
			this.#readers--;
			this.#next();
		}
	}

	/** Runs `fn` alone; `begin` and `end` mark the open transaction (synchronous). */
	async write<T>(begin: () => void, fn: () => Promise<T>, end: (ok: boolean) => void): Promise<T> {
		if (this.#writing || this.#readers > 0 || this.#queue.length > 0) {
			await new Promise<void>((go) => this.#queue.push({ exclusive: true, go }));
		} else this.#writing = true;
		try {
			begin();
			this.#open = true;
			let ok = false;
			try {
				const result = await fn();
				ok = true;
				return result;
			} finally {
				try {
					end(ok);
				} finally {
					this.#open = false;
				}
			}
		} finally {
			this.#writing = false;
			// Statements that waited check again when they resume (OutsideSql): a write let in
			// meanwhile is waited for too.
			const waiting = this.#closed;
			this.#closed = [];
			for (const go of waiting) go();
			this.#next();
		}
	}

	/** A write transaction is open (between BEGIN and its end). */
	get inWrite(): boolean {
		return this.#open;
	}

	/** Resolves when the open write transaction has ended (another may have begun by then). */
	ended(): Promise<void> {
		return new Promise<void>((go) => this.#closed.push(go));
	}

	#next(): void {
		while (!this.#writing && this.#queue.length > 0) {
			const head = this.#queue[0]!;
			if (head.exclusive) {
				if (this.#readers > 0) return;
				this.#queue.shift();
				this.#writing = true;
				head.go();
				return;
			}
			this.#queue.shift();
			this.#readers++;
			head.go();
		}
	}
}

/**
 * `store.sql` of SQLite: each statement waits until no write transaction is open, and runs in the
 * same step as the check that none is (better-sqlite3 runs it at the call), so that no write can
 * begin between the two.
 */
class OutsideSql implements Sql {
	readonly #sql: Sql;
	readonly #turns: Turns;

	constructor(sql: Sql, turns: Turns) {
		this.#sql = sql;
		this.#turns = turns;
	}

	async all<T>(sql: string, params?: Params): Promise<T[]> {
		while (this.#turns.inWrite) await this.#turns.ended();
		return this.#sql.all<T>(sql, params);
	}

	async get<T>(sql: string, params?: Params): Promise<T | undefined> {
		while (this.#turns.inWrite) await this.#turns.ended();
		return this.#sql.get<T>(sql, params);
	}

	async run(sql: string, params?: Params): Promise<{ changes: number }> {
		while (this.#turns.inWrite) await this.#turns.ended();
		return this.#sql.run(sql, params);
	}
}

/**
 * The SQLite store of one process: one connection, so transactions take turns (Turns). A write
 * is BEGIN … COMMIT around its function, which awaits: without turns, another request's
 * statements (two requests of one pipelined HTTP/1.1 connection advance in the same step) would
 * run inside it, be committed or rolled back with it, or read what it had not committed yet. So
 * a write waits until it has the connection alone, a read (one consistent state, as a snapshot
 * on PostgreSQL) until no write is open, and a statement of `store.sql` until no write
 * transaction is open. Inside a write, use only its `sql`: `store.sql` or another `write` would
 * wait for the write itself and never run.
 */
/** Read-only connections of a SQLite file store, each holding one read's snapshot at a time. */
export const SQLITE_READERS = 4;

/**
 * Read-only connections to the same file (WAL: each read transaction is a snapshot, and a write
 * on the main connection commits beside it): a read does not hold the writes back, and can take
 * turns of the event loop (a long list read in chunks) without a PUT waiting for it. Opened on
 * first use; none for an in-memory database, which has no file to share.
 */
class Readers {
	readonly #file: string;
	readonly #idle: { db: DB; sql: SqliteSql }[] = [];
	readonly #all: DB[] = [];
	readonly #waiting: ((r: { db: DB; sql: SqliteSql }) => void)[] = [];

	constructor(file: string) {
		this.#file = file;
	}

	async acquire(): Promise<{ db: DB; sql: SqliteSql }> {
		const idle = this.#idle.pop();
		if (idle) return idle;
		if (this.#all.length < SQLITE_READERS) {
			const db = new Database(this.#file, { readonly: true, fileMustExist: true });
			db.pragma('busy_timeout = 5000');
			this.#all.push(db);
			return { db, sql: new SqliteSql(db) };
		}
		return new Promise((r) => this.#waiting.push(r));
	}

	release(r: { db: DB; sql: SqliteSql }): void {
		const next = this.#waiting.shift();
		if (next) next(r);
		else this.#idle.push(r);
	}

	close(): void {
		for (const db of this.#all) if (db.open) db.close();
		this.#all.length = 0;
		this.#idle.length = 0;
	}
}

export function sqliteStore(db: DB, where: string): Store {
	const raw = new SqliteSql(db);
	const turns = new Turns();
	const sql = new OutsideSql(raw, turns);
	const readers = db.memory ? null : new Readers(db.name);
	const closed = (): StoreError => new StoreError('store-closed', 'The database is closed');
	return {
		engine: 'sqlite',
		sqlite: db,
		where,
		get open() {
			return db.open;
		},
		sql,
		shared: null,
		async read(fn) {
			if (!readers) return turns.read(() => fn(sql, null));
			if (!db.open) throw closed();
			const r = await readers.acquire();
			try {
				if (!db.open) throw closed();
				// A deferred transaction: its snapshot is taken by its first statement.
				r.db.exec('BEGIN');
				return await fn(r.sql, null);
			} finally {
				if (r.db.open && r.db.inTransaction) r.db.exec('COMMIT');
				readers.release(r);
			}
		},
		write(fn) {
			if (!db.open) return Promise.reject(new StoreError('store-closed', 'The database is closed'));
			return turns.write(
				() => {
					if (!db.open) throw new StoreError('store-closed', 'The database is closed');
					db.exec('BEGIN');
				},
				() => fn(raw),
				(ok) => {
					if (!db.inTransaction) return;
					if (!ok) {
						db.exec('ROLLBACK');
						return;
					}
					try {
						db.exec('COMMIT');
					} catch (e) {
						if (db.inTransaction) db.exec('ROLLBACK');
						throw e;
					}
				}
			);
		},
		async close() {
			readers?.close();
			if (db.open) db.close();
		}
	};
}
