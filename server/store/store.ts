// The storage interface every route and middleware uses (never a driver directly). Each engine
// implements it in its own folder: SQLite in sqlite/, PostgreSQL in postgres/. A store hands out
// `Sql` (sql.ts): `read` runs a function on one consistent snapshot, `write` in one transaction
// that is rolled back when the function throws. It also owns the delivery of what changed
// (`feed`, as tldraw's TLSyncStorage has onChange): a change recorded in a write reaches every
// listener once that write has committed, in commit order, whether one process holds the data
// (SQLite) or several instances share it (PostgreSQL, LISTEN/NOTIFY). No code outside store/
// asks which engine it runs on.
import type Database from 'better-sqlite3';
import type { ChangeEvent } from '../push/change-feed.ts';
import type { Engine, Sql } from './sql.ts';

/** An accepted change, as the feed delivers it. */
export interface StoredChange {
	/** Its place in the order of changes (commit order), from 1, the same for every process. */
	seq: number;
	competitionId: number;
	event: ChangeEvent;
	/** The changed resource as its GET answers it, built on API_BASE. */
	template: string;
}

/**
 * The changes of a store and device revocations, delivered to listeners once committed. Its seq
 * is also the data version of the tag cache: raised by every change, the same for every process
 * that shares the data.
 */
export interface StoreFeed {
	/**
	 * The feed's epoch: event ids `<epoch>-<seq>` of another epoch cannot be resumed. The same on
	 * every instance of a shared database; one process's store (SQLite) keeps no changes across
	 * a restart and takes a new one at each start.
	 */
	readonly epoch: string;
	/**
	 * In a write that changes a resource, before it reads what it answers: the change's seq. It
	 * waits for the changes committing before it, and holds those after it back until the commit:
	 * what the transaction reads next includes every change of a smaller seq. The data version
	 * is raised when the write commits.
	 */
	claim(sql: Sql): Promise<number>;
	/** In the same write: records the change `seq`, delivered to `onChange` once committed. */
	record(sql: Sql, seq: number, change: Omit<StoredChange, 'seq'>): Promise<void>;
	/** In a revocation's write: `onRevoked` hears of the device once committed. */
	recordRevoked(sql: Sql, deviceId: number): Promise<void>;
	/** Hears of every committed change once, in seq order (of every process sharing the data). */
	onChange(listener: (c: StoredChange) => void): void;
	/** Hears of every committed revocation (of every process sharing the data). */
	onRevoked(listener: (deviceId: number) => void): void;
	/** The seq of the latest change delivered to this process's listeners (0 before the first). */
	deliveredSeq(): number;
	/**
	 * The seq of the latest committed change, read now (on a shared database, a short query that
	 * concurrent callers share): no change has a bigger one yet. The current data version.
	 */
	committedSeq(): Promise<number>;
	/** The latest changes kept, oldest first (at most `limit`), to fill a feed at start. */
	recent(limit: number): Promise<StoredChange[]>;
}

export interface Store {
	/** Which engine: for messages, tests and programmatic use, never to branch on. */
	readonly engine: Engine;
	/** The SQLite database (programmatic use and tests); null on PostgreSQL. */
	readonly sqlite: Database.Database | null;
	/** Where a store keeps its data, for messages (a file, or a URL without its password). */
	readonly where: string;
	/**
	 * The folder of this machine that holds the data, whose free space guards writes (a full
	 * disk); null when a database server holds it (and refuses writes itself when full).
	 */
	readonly dataDir: string | null;
	/** Whether the store is open. */
	readonly open: boolean;
	/** The connection outside any transaction. */
	readonly sql: Sql;
	/**
	 * Runs `fn` on one consistent snapshot; `version` is the data version of that snapshot (the
	 * seq of the latest change it shows, see StoreFeed.committedSeq).
	 */
	read<T>(fn: (sql: Sql, version: number) => Promise<T>): Promise<T>;
	/** Runs `fn` in one transaction; rolled back when it throws. */
	write<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
	/** What changed, delivered once committed. */
	readonly feed: StoreFeed;
	/**
	 * In a write: waits for the lock `key` of every process sharing the store, held until the
	 * write ends (so that, e.g., revocations are counted one at a time). One process's writes
	 * take turns already.
	 */
	lock(sql: Sql, key: number): Promise<void>;
	close(): Promise<void>;
}
