// Opening the store the options name, the one place that chooses an engine: a postgres:// URL is
// a PostgreSQL database (several instances may share it), anything else a SQLite file. Either is
// migrated and, when it holds no competition yet, seeded (seed.ts).
import { dirname, resolve } from 'node:path';
import type { SeedSize, SeedSummary } from '../seed/seed.ts';
import { isPostgresUrl, openPostgres } from './postgres/pg-store.ts';
import { openDatabase } from './sqlite/open.ts';
import { seedDatabase } from './sqlite/seed.ts';
import { sqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

export { isPostgresUrl };

export interface StoreOptions {
	/** A SQLite file (default ./data/ringside.sqlite); ':memory:' works too. */
	dbFile?: string;
	/** A PostgreSQL database instead (`postgres://user@host:port/db`). */
	databaseUrl?: string;
	/** Delete the data first (the file, or every table of the service) and seed again. */
	reset: boolean;
	/** What an empty database is seeded with; null: nothing (mirror mode fills it from the upstream). */
	seed: SeedSize | null;
	seedDate: string;
	/** Connections of this instance's PostgreSQL pool. */
	poolSize: number;
	/** Where trouble the store meets on its own is reported (a lost listener, a listener's error). */
	logError?: (line: string) => void;
}

/** Opens the store; what it opened is closed again when the start fails. */
export async function openStore(
	o: StoreOptions
): Promise<{ store: Store; seeded: SeedSummary | null }> {
	const logError = o.logError ? { logError: o.logError } : {};
	if (o.databaseUrl) {
		const { reset, seed, seedDate, poolSize } = o;
		return openPostgres({ url: o.databaseUrl, reset, seed, seedDate, poolSize, ...logError });
	}
	const file = o.dbFile ?? resolve('data', 'ringside.sqlite');
	const { db, empty } = openDatabase(file, o.reset);
	try {
		// A new (empty) database is seeded.
		const seeded = empty && o.seed ? seedDatabase(db, o.seed, o.seedDate) : null;
		const dataDir = file === ':memory:' ? process.cwd() : dirname(resolve(file));
		return { store: sqliteStore(db, file, { dataDir, ...logError }), seeded };
	} catch (e) {
		db.close();
		throw e;
	}
}
