// A PostgreSQL database made ready for the service: the migrations of schema.ts counted in
// schema_version (under an advisory lock: instances starting together migrate once), a reset, the
// feed's epoch, and the seed (seed.ts) inserted in batches into an empty database.
import type pg from 'pg';
import { newEpoch } from '../../push/change-feed.ts';
import { seedData, type SeedSize, type SeedSummary } from '../../seed/seed.ts';
import { SEED_TABLES, type SeedTable } from '../seed-tables.ts';
import { ddlOf, MIGRATIONS } from '../schema.ts';
import { StoreError, type Sql, type SqlValue } from '../sql.ts';
import { inTransaction, RollbackFailed } from './pg-sql.ts';

/** What a start asks of the database. */
export interface PrepareOptions {
	reset: boolean;
	/** What an empty database is seeded with; null: nothing (a mirror fills it). */
	seed: SeedSize | null;
	seedDate: string;
}

/** Advisory lock key (pg_advisory_xact_lock) of migrations and seeding. */
const MIGRATE_LOCK = 7_406_001;

const SQL = {
	schemaTable: 'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)',
	schemaVersion: 'SELECT version FROM schema_version',
	schemaInit: 'INSERT INTO schema_version (version) VALUES (0)',
	schemaSet: 'UPDATE schema_version SET version = @version',
	migrateLock: 'SELECT pg_advisory_xact_lock(CAST(@key AS BIGINT))',
	competitions: 'SELECT COUNT(*) AS n FROM competition',
	setMeta: `INSERT INTO meta (key, value) VALUES (@key, @value)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
	addMeta: 'INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING',
	// Every table of the service, for `reset` (constant names, dependants first).
	dropAll: `DROP TABLE IF EXISTS check_in, publication, mirror_list, mirror_outbox, mirror_resource, change_log, change_counter, device, join_token, put_log, dog_run,
		competition_run, dog, competitor, ring, competition_judge, judge, competition,
		dog_size_class, competition_run_level, competition_level, meta, schema_version CASCADE`
} as const;

/**
 * Migrates (under an advisory lock: instances starting together migrate once), with `reset`
 * first drops every table of the service, and seeds an empty database; returns the seed's
 * summary when this start seeded it.
 */
export async function prepareDatabase(
	client: pg.Client,
	sql: Sql,
	o: PrepareOptions
): Promise<SeedSummary | null> {
	const migrate = inTransaction(client, 'BEGIN', async () => {
		await sql.run(SQL.migrateLock, { key: MIGRATE_LOCK });
		if (o.reset) await client.query(SQL.dropAll);
		await client.query(SQL.schemaTable);
		let version = (await sql.get<{ version: number }>(SQL.schemaVersion))?.version;
		if (version === undefined) {
			await sql.run(SQL.schemaInit);
			version = 0;
		}
		if (version > MIGRATIONS.length) {
			throw new StoreError(
				'store-migration',
				`The database has schema version ${version}; this service knows ${MIGRATIONS.length}: use a newer service`
			);
		}
		for (let v = version; v < MIGRATIONS.length; v++) {
			const step = MIGRATIONS[v];
			if (step && (step.only === undefined || step.only === 'postgres')) {
				await client.query(ddlOf(step, 'postgres'));
			}
			await sql.run(SQL.schemaSet, { version: v + 1 });
		}
		await sql.run(SQL.addMeta, { key: 'feedEpoch', value: newEpoch() });
		const empty = ((await sql.get<{ n: number }>(SQL.competitions))?.n ?? 0) === 0;
		return empty && o.seed ? seedPostgres(client, sql, o.seed, o.seedDate) : null;
	});
	// The listening client is ended when the start fails: the first error is the one to tell.
	return migrate.catch((e: unknown) => {
		throw e instanceof RollbackFailed ? e.failure : e;
	});
}

/** Rows per INSERT of the seed (PostgreSQL takes at most 65,535 parameters per statement). */
const SEED_BATCH_PARAMS = 30_000;

/** Inserts the deterministic seed (seed.ts) in batches of many rows per statement. */
async function seedPostgres(
	client: pg.Client,
	sql: Sql,
	size: SeedSize,
	seedDate: string
): Promise<SeedSummary> {
	const t0 = performance.now();
	const data = seedData(size, seedDate);
	for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
		const { table, columns } = SEED_TABLES[t];
		const rows = data.rows[t];
		const per = Math.max(1, Math.floor(SEED_BATCH_PARAMS / columns.length));
		for (let at = 0; at < rows.length; at += per) {
			const batch = rows.slice(at, at + per);
			const values: SqlValue[] = [];
			const tuples = batch.map((row) => {
				const marks = row.map((v) => `$${values.push(v)}`);
				return `(${marks.join(', ')})`;
			});
			// Table and column names are the constants of SEED_TABLES; every value is a parameter.
			const text = ['INSERT INTO', table, `(${columns.join(', ')})`, 'VALUES', tuples.join(', ')];
			await client.query(text.join(' '), values);
		}
	}
	for (const [key, value] of data.meta) await sql.run(SQL.setMeta, { key, value });
	// Statistics for the planner now, not when autovacuum gets to the new tables.
	for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
		await client.query(['ANALYZE', SEED_TABLES[t].table].join(' '));
	}
	return { ...data.summary, ms: Math.round(performance.now() - t0) };
}
