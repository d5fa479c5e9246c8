// The SQLite store (better-sqlite3): one process, one connection that writes (transactions take
// turns on it, see Turns) and a few read-only connections for snapshots (WAL, see Readers).
import Database from 'better-sqlite3';
import { StoreError, type Params, type Sql } from '../sql.ts';
import type { Store } from '../store.ts';
import type { DB } from './open.ts';

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
