// Turns on the one connection of a SQLite store: its write transactions one at a time, reads and
// statements outside a transaction never inside another request's write.
import type { Params, Sql } from '../sql.ts';

/**
 * Turns on the one connection of a SQLite store: a write transaction has it alone, reads share
 * it (first come, first served: a read that arrives while a write waits goes after that write).
 * Statements outside both (`store.sql`) wait only while a write transaction is open.
 */
export class Turns {
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
export class OutsideSql implements Sql {
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
