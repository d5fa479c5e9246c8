// The one way the service talks SQL, whatever the engine: statements are constant text with named
// parameters (`@name`), and values travel separately. SQLite (better-sqlite3) binds `@name`
// itself; PostgreSQL (pg) gets the same text with `$1, $2, …` (see `positional`), so no value is
// ever spliced into a statement. Every method returns a Promise: PostgreSQL's client is
// asynchronous, SQLite's answers at once (resolved promises; the SQLite store still lets its
// transactions take turns, see sqliteStore).

/** Parameter values: what both drivers accept. */
export type SqlValue = string | number | bigint | null;
export type Params = Record<string, SqlValue>;

/** One connection, or one transaction on it. */
export interface Sql {
	/** Every row `sql` answers. */
	all<T>(sql: string, params?: Params): Promise<T[]>;
	/** The first row, or undefined. */
	get<T>(sql: string, params?: Params): Promise<T | undefined>;
	/** Runs a statement; `changes` is the number of rows it inserted, updated or deleted. */
	run(sql: string, params?: Params): Promise<{ changes: number }>;
}

export type Engine = 'sqlite' | 'postgres';

export class StoreError extends Error {
	readonly code: 'store-closed' | 'store-migration' | 'store-unsupported';

	constructor(code: StoreError['code'], message: string) {
		super(message);
		this.name = 'StoreError';
		this.code = code;
	}
}

export interface Positional {
	text: string;
	names: string[];
}

const NAMED = /@([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * `@name` parameters as PostgreSQL's `$n` (a name used twice is one parameter). The statement
 * text is a constant of the code, never input: only the markers change.
 */
export function positional(sql: string): Positional {
	const names: string[] = [];
	const text = sql.replace(NAMED, (_m, name: string) => {
		let i = names.indexOf(name);
		if (i < 0) i = names.push(name) - 1;
		return `$${i + 1}`;
	});
	return { text, names };
}

/** The values of `names` in order; a missing parameter is a bug of the caller. */
export function valuesOf(p: Positional, params: Params): SqlValue[] {
	return p.names.map((n) => {
		const v = params[n];
		if (v === undefined) throw new Error(`Missing SQL parameter @${n}`);
		return v;
	});
}
