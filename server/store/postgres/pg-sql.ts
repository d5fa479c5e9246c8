// The PostgreSQL driver (pg) behind `Sql`: the statements of sql.ts with `$n` markers, each
// prepared once per connection, BIGINTs as numbers, and transactions that never leave a client
// inside a failed one.
import pg from 'pg';
import { positional, valuesOf, type Params, type Positional, type Sql } from '../sql.ts';

/** The prepared statements' names, shared by every connection of a store. */
export type StatementNames = Map<string, { p: Positional; name: string }>;

/** COUNT(*) and other BIGINTs as numbers (every count and seq of the service is far below 2^53). */
export const TYPES = {
	getTypeParser: ((oid: number, format?: string) =>
		oid === 20
			? (v: string) => Number(v)
			: pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser
};

/** `Sql` on a pool or one client; each statement is prepared once per connection (by name). */
export class PgSql implements Sql {
	readonly #q: pg.Pool | pg.PoolClient | pg.Client;
	readonly #names: StatementNames;

	constructor(q: pg.Pool | pg.PoolClient | pg.Client, names: StatementNames) {
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

/**
 * Runs `fn` in a transaction on `client` (`begin` … COMMIT; ROLLBACK when anything throws, BEGIN
 * and COMMIT too, so that no client is left inside a failed transaction). `fn` gets what `begin`
 * answered (a `begin` of several statements answers a result each). When the ROLLBACK fails as
 * well, throws RollbackFailed (carrying the first error): the client must not be used again.
 */
export async function inTransaction<T>(
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
export class RollbackFailed extends Error {
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
export async function withClient<T>(
	pool: pg.Pool,
	fn: (client: pg.PoolClient) => Promise<T>
): Promise<T> {
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
