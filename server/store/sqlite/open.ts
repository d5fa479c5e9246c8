// Opening a SQLite file: its folder, a reset, the pragmas (WAL), and the migrations of schema.ts
// counted in PRAGMA user_version.
import Database from 'better-sqlite3';
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ddlOf, MIGRATIONS } from '../schema.ts';

export type DB = Database.Database;

export interface OpenResult {
	db: DB;
	/** True when the database had no competitions (new file, reset, or empty). */
	empty: boolean;
}

/**
 * Opens (creating folders and running migrations) the SQLite file; `reset` deletes it first.
 * Closes the database again when it cannot be set up.
 */
export function openDatabase(file: string, reset = false): OpenResult {
	if (file !== ':memory:') {
		mkdirSync(dirname(file), { recursive: true });
		if (reset) {
			for (const suffix of ['', '-wal', '-shm', '-journal']) {
				if (existsSync(file + suffix)) rmSync(file + suffix);
			}
		}
	}
	const db = new Database(file);
	try {
		db.pragma('journal_mode = WAL');
		db.pragma('synchronous = NORMAL');
		db.pragma('foreign_keys = ON');
		db.pragma('busy_timeout = 5000');
		migrate(db);
		const row = db.prepare('SELECT COUNT(*) AS n FROM competition').get() as { n: number };
		return { db, empty: row.n === 0 };
	} catch (e) {
		// E.g. the file is not a SQLite database: nothing is left open.
		db.close();
		throw e;
	}
}

export function migrate(db: DB): void {
	const current = db.pragma('user_version', { simple: true }) as number;
	for (let v = current; v < MIGRATIONS.length; v++) {
		const step = MIGRATIONS[v];
		if (step === undefined) continue;
		db.transaction(() => {
			// A step of the other engine only is counted as run.
			if (step.only === undefined || step.only === 'sqlite') db.exec(ddlOf(step, 'sqlite'));
			db.pragma(`user_version = ${v + 1}`);
		})();
	}
}

export function getMeta(db: DB, key: string): string | undefined {
	const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
		{ value: string } | undefined;
	return row?.value;
}

export function setMeta(db: DB, key: string, value: string): void {
	db.prepare(
		'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'
	).run(key, value);
}
