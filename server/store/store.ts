// The storage interface every route and middleware uses (never a driver directly). Each engine
// implements it in its own folder: SQLite in sqlite/, PostgreSQL in postgres/. A store hands
// out `Sql` (sql.ts): `read` runs a function on one consistent snapshot, `write` in one
// transaction that is rolled back when the function throws. `shared` stores (PostgreSQL) are
// shared by several instances of the service: they carry the changes and device revocations of
// every instance (see Coordination).
import type Database from 'better-sqlite3';
import type { ChangeEvent } from '../change-feed.ts';
import type { Engine, Sql } from './sql.ts';

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
	readonly sqlite: Database.Database | null;
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
