// The tables a seed fills, in insertion order, with their columns and the statement SQLite
// inserts a row with: the seed generator (server/seed) fills rows, the stores insert them, the
// mirror's import fills them from the upstream (insertSeedRows, on either engine). SQL lives with
// the store.
import type { Sql, SqlValue } from './sql.ts';

/**
 * The seeded tables in the order their rows are inserted (foreign keys point to earlier tables),
 * their columns and the statement SQLite inserts a row with (ids are given).
 */
export const SEED_TABLES = {
	level: {
		table: 'competition_level',
		columns: ['id', 'name'],
		insert: 'INSERT INTO competition_level (id, name) VALUES (?, ?)'
	},
	runLevel: {
		table: 'competition_run_level',
		columns: ['id', 'name'],
		insert: 'INSERT INTO competition_run_level (id, name) VALUES (?, ?)'
	},
	size: {
		table: 'dog_size_class',
		columns: ['id', 'name'],
		insert: 'INSERT INTO dog_size_class (id, name) VALUES (?, ?)'
	},
	judge: {
		table: 'judge',
		columns: ['id', 'firstname', 'lastname', 'country'],
		insert: 'INSERT INTO judge (id, firstname, lastname, country) VALUES (?, ?, ?, ?)'
	},
	competition: {
		table: 'competition',
		columns: ['id', 'name', 'date_from', 'date_to', 'details', 'fees', 'state'],
		insert:
			'INSERT INTO competition (id, name, date_from, date_to, details, fees, state) VALUES (?, ?, ?, ?, ?, ?, ?)'
	},
	compJudge: {
		table: 'competition_judge',
		columns: ['competition_id', 'judge_id', 'position'],
		insert: 'INSERT INTO competition_judge (competition_id, judge_id, position) VALUES (?, ?, ?)'
	},
	ring: {
		table: 'ring',
		columns: ['id', 'competition_id', 'name'],
		insert: 'INSERT INTO ring (id, competition_id, name) VALUES (?, ?, ?)'
	},
	competitor: {
		table: 'competitor',
		columns: ['id', 'firstname', 'lastname', 'identifier', 'country'],
		insert:
			'INSERT INTO competitor (id, firstname, lastname, identifier, country) VALUES (?, ?, ?, ?, ?)'
	},
	dog: {
		table: 'dog',
		columns: [
			'id',
			'name',
			'home_name',
			'workbook_no',
			'birthday',
			'competition_level_id',
			'dog_size_class_id',
			'competitor_id'
		],
		insert:
			'INSERT INTO dog (id, name, home_name, workbook_no, birthday, competition_level_id, dog_size_class_id, competitor_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'
	},
	run: {
		table: 'competition_run',
		columns: [
			'id',
			'competition_id',
			'name',
			'date',
			'start_time',
			'standard_time_ms',
			'maximal_time_ms',
			'track_length',
			'dog_size_class_id',
			'competition_run_level_id',
			'judge_id',
			'ring_id'
		],
		insert:
			'INSERT INTO competition_run (id, competition_id, name, date, start_time, standard_time_ms, maximal_time_ms, track_length, dog_size_class_id, competition_run_level_id, judge_id, ring_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
	},
	dogRun: {
		table: 'dog_run',
		columns: [
			'id',
			'competition_run_id',
			'start_no',
			'dog_id',
			'competitor_id',
			'time_cs',
			'refusals',
			'faults',
			'disqualified',
			'absence'
		],
		insert:
			'INSERT INTO dog_run (id, competition_run_id, start_no, dog_id, competitor_id, time_cs, refusals, faults, disqualified, absence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
	}
} as const;

export type SeedTable = keyof typeof SEED_TABLES;

/** The rows of each seeded table, in insertion order (foreign keys point to earlier tables). */
export type SeedRows = Record<SeedTable, SqlValue[][]>;

/** `INSERT INTO table (columns) VALUES (@c0, …)`: names are the constants of SEED_TABLES. */
function namedInsertOf(t: SeedTable): string {
	const { table, columns } = SEED_TABLES[t];
	const marks = columns.map((_c, i) => `@c${i}`);
	return ['INSERT INTO', table, `(${columns.join(', ')})`, 'VALUES', `(${marks.join(', ')})`].join(
		' '
	);
}

/** Inserts `rows` a row at a time with named parameters (either engine; ids are given). */
export async function insertSeedRows(sql: Sql, rows: SeedRows): Promise<void> {
	for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
		const insert = namedInsertOf(t);
		for (const row of rows[t]) {
			const params: Record<string, SqlValue> = {};
			row.forEach((v, i) => (params[`c${i}`] = v));
			await sql.run(insert, params);
		}
	}
}

const COMPETITIONS = 'SELECT COUNT(*) AS n FROM competition';

/** How many competitions the database holds (0: nothing seeded or imported). */
export async function competitionCount(sql: Sql): Promise<number> {
	return Number((await sql.get<{ n: number }>(COMPETITIONS))?.n ?? 0);
}
