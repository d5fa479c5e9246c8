// The seed (seed.ts) inserted into an empty SQLite database: one transaction, a prepared
// statement per table.
import { seedData, type SeedSize, type SeedSummary } from '../../seed/seed.ts';
import { SEED_TABLES, type SeedTable } from '../seed-tables.ts';
import { setMeta, type DB } from './open.ts';

/**
 * Fills an empty SQLite database with deterministic data (same size + seed date → same rows).
 * Everything runs in one transaction with prepared statements.
 */
export function seedDatabase(db: DB, size: SeedSize, seedDate: string): SeedSummary {
	const t0 = performance.now();
	const data = seedData(size, seedDate);
	db.transaction(() => {
		for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
			const insert = db.prepare(SEED_TABLES[t].insert);
			for (const row of data.rows[t]) insert.run(...row);
		}
		for (const [key, value] of data.meta) setMeta(db, key, value);
	})();
	return { ...data.summary, ms: Math.round(performance.now() - t0) };
}
