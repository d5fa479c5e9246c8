// better-sqlite3 behind `Sql`, and the read-only connections that hold the snapshots of reads.
import Database from 'better-sqlite3';
import type { Params, Sql } from '../sql.ts';
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

/** Read-only connections of a SQLite file store, each holding one read's snapshot at a time. */
export const SQLITE_READERS = 4;

/**
 * Read-only connections to the same file (WAL: each read transaction is a snapshot, and a write
 * on the main connection commits beside it): a read does not hold the writes back, and can take
 * turns of the event loop (a long list read in chunks) without a PUT waiting for it. Opened on
 * first use; none for an in-memory database, which has no file to share.
 */
export class Readers {
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
