// The SQLite store (better-sqlite3) of one process: one connection that writes, whose
// transactions take turns (turns.ts), read-only connections for snapshots (sqlite-sql.ts), and
// the change feed of one process, delivered as each write commits.
import { newEpoch } from '../../push/change-feed.ts';
import { StoreError } from '../sql.ts';
import type { Store, StoredChange } from '../store.ts';
import type { DB } from './open.ts';
import { Readers, SqliteSql } from './sqlite-sql.ts';
import { OutsideSql, Turns } from './turns.ts';

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
export function sqliteStore(
	db: DB,
	where: string,
	options: { dataDir?: string | null; logError?: (line: string) => void } = {}
): Store {
	const raw = new SqliteSql(db);
	const turns = new Turns();
	const sql = new OutsideSql(raw, turns);
	const readers = db.memory ? null : new Readers(db.name);
	const closed = (): StoreError => new StoreError('store-closed', 'The database is closed');
	const logError = options.logError ?? ((line: string) => console.error(line));

	// The change feed of one process: seqs from 1 at each start (a new epoch), the data version
	// raised and the changes delivered in the step that commits them (writes take turns, so
	// commit order is claim order).
	const epoch = newEpoch();
	let committed = 0;
	/** The open write's next seq, its changes and revocations (delivered if it commits). */
	let next = 1;
	let changes: StoredChange[] = [];
	let revoked: number[] = [];
	const changeListeners: ((c: StoredChange) => void)[] = [];
	const revokedListeners: ((id: number) => void)[] = [];
	const tell = <T>(listeners: ((x: T) => void)[], x: T): void => {
		for (const l of listeners) {
			try {
				l(x);
			} catch (e) {
				// Committed already: a listener's failure is its own, not the write's.
				logError(JSON.stringify({ msg: 'change listener', error: String(e) }));
			}
		}
	};
	const committedWrite = (): void => {
		committed = next - 1;
		const [done, gone] = [changes, revoked];
		[changes, revoked] = [[], []];
		for (const c of done) tell(changeListeners, c);
		for (const id of gone) tell(revokedListeners, id);
	};

	return {
		engine: 'sqlite',
		sqlite: db,
		where,
		dataDir: options.dataDir ?? null,
		get open() {
			return db.open;
		},
		sql,
		async read(fn) {
			if (!db.open) throw closed();
			if (!readers) return turns.read(() => fn(sql, committed));
			const r = await readers.acquire();
			try {
				if (!db.open) throw closed();
				// A deferred transaction: its snapshot is taken by its first statement, which the
				// function runs in this step, at this version.
				r.db.exec('BEGIN');
				return await fn(r.sql, committed);
			} finally {
				if (r.db.open && r.db.inTransaction) r.db.exec('COMMIT');
				readers.release(r);
			}
		},
		write(fn) {
			if (!db.open) return Promise.reject(closed());
			return turns.write(
				() => {
					if (!db.open) throw closed();
					db.exec('BEGIN');
					next = committed + 1;
					changes = [];
					revoked = [];
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
					committedWrite();
				}
			);
		},
		feed: {
			epoch,
			async claim() {
				if (!turns.inWrite) throw new Error('A change is claimed in a write');
				return next++;
			},
			async record(_sql, seq, change) {
				if (!turns.inWrite) throw new Error('A change is recorded in a write');
				changes.push({ seq, ...change });
			},
			async recordRevoked(_sql, deviceId) {
				if (!turns.inWrite) throw new Error('A revocation is recorded in a write');
				revoked.push(deviceId);
			},
			onChange: (l) => void changeListeners.push(l),
			onRevoked: (l) => void revokedListeners.push(l),
			deliveredSeq: () => committed,
			committedSeq: async () => committed,
			// Nothing is kept across a restart: a new start is a new epoch.
			recent: async () => []
		},
		// One connection: a write has it alone.
		lock: async () => {},
		async close() {
			readers?.close();
			if (db.open) db.close();
		}
	};
}
