import Database from 'better-sqlite3';
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';

export type DB = Database.Database;

/** Ordered migrations; PRAGMA user_version holds how many have run. */
const MIGRATIONS: string[] = [
	`
	CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
	CREATE TABLE competition_level (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
	CREATE TABLE competition_run_level (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
	CREATE TABLE dog_size_class (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
	CREATE TABLE competition (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		date_from TEXT NOT NULL,
		date_to TEXT NOT NULL,
		details TEXT,
		fees TEXT,
		state TEXT NOT NULL
	);
	CREATE INDEX competition_order ON competition (date_from, id);
	CREATE TABLE judge (
		id INTEGER PRIMARY KEY,
		firstname TEXT NOT NULL,
		lastname TEXT NOT NULL,
		country TEXT NOT NULL
	);
	CREATE TABLE competition_judge (
		competition_id INTEGER NOT NULL REFERENCES competition (id),
		judge_id INTEGER NOT NULL REFERENCES judge (id),
		position INTEGER NOT NULL,
		PRIMARY KEY (competition_id, judge_id)
	);
	CREATE TABLE ring (
		id INTEGER PRIMARY KEY,
		competition_id INTEGER NOT NULL REFERENCES competition (id),
		name TEXT NOT NULL
	);
	CREATE INDEX ring_competition ON ring (competition_id, id);
	CREATE TABLE competitor (
		id INTEGER PRIMARY KEY,
		firstname TEXT NOT NULL,
		lastname TEXT NOT NULL,
		identifier TEXT NOT NULL,
		country TEXT
	);
	CREATE TABLE dog (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		home_name TEXT NOT NULL,
		workbook_no TEXT NOT NULL,
		birthday TEXT NOT NULL,
		competition_level_id INTEGER NOT NULL REFERENCES competition_level (id),
		dog_size_class_id INTEGER NOT NULL REFERENCES dog_size_class (id),
		competitor_id INTEGER NOT NULL REFERENCES competitor (id)
	);
	CREATE TABLE competition_run (
		id INTEGER PRIMARY KEY,
		competition_id INTEGER NOT NULL REFERENCES competition (id),
		name TEXT NOT NULL,
		date TEXT NOT NULL,
		start_time TEXT NOT NULL,
		standard_time_ms INTEGER NOT NULL,
		maximal_time_ms INTEGER NOT NULL,
		track_length REAL NOT NULL,
		dog_size_class_id INTEGER NOT NULL REFERENCES dog_size_class (id),
		competition_run_level_id INTEGER NOT NULL REFERENCES competition_run_level (id),
		judge_id INTEGER NOT NULL REFERENCES judge (id),
		ring_id INTEGER NOT NULL REFERENCES ring (id),
		version INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX competition_run_order ON competition_run (competition_id, date, start_time, ring_id, id);
	CREATE INDEX competition_run_ring ON competition_run (ring_id, date, start_time, id);
	CREATE TABLE dog_run (
		id INTEGER PRIMARY KEY,
		competition_run_id INTEGER NOT NULL REFERENCES competition_run (id),
		start_no INTEGER NOT NULL,
		dog_id INTEGER NOT NULL REFERENCES dog (id),
		competitor_id INTEGER NOT NULL REFERENCES competitor (id),
		time_cs INTEGER,
		refusals INTEGER NOT NULL DEFAULT 0,
		faults INTEGER NOT NULL DEFAULT 0,
		disqualified INTEGER NOT NULL DEFAULT 0,
		absence INTEGER NOT NULL DEFAULT 0,
		version INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX dog_run_order ON dog_run (competition_run_id, start_no, id);
	CREATE TABLE put_log (
		id INTEGER PRIMARY KEY,
		at TEXT NOT NULL,
		method TEXT NOT NULL,
		path TEXT NOT NULL,
		resource_kind TEXT,
		resource_id INTEGER,
		request_body TEXT,
		status INTEGER NOT NULL,
		response_summary TEXT
	);
	`,
	// Injected faults (see faults.ts): null, or what happened to the request or its answer.
	`ALTER TABLE put_log ADD COLUMN fault TEXT;`,
	// The If-Match the PUT carried (null: none) and the client's User-Agent: a chaos test proves
	// from these that no update was applied over a value its sender had not seen.
	`ALTER TABLE put_log ADD COLUMN if_match TEXT; ALTER TABLE put_log ADD COLUMN client TEXT;`,
	// Who sent it (the client address; device and role are for the roles of a later issue, null
	// until then) and how large the body was (only the first bytes of a refused one are kept).
	`ALTER TABLE put_log ADD COLUMN remote_address TEXT;
	 ALTER TABLE put_log ADD COLUMN body_bytes INTEGER;
	 ALTER TABLE put_log ADD COLUMN device TEXT;
	 ALTER TABLE put_log ADD COLUMN role TEXT;`,
	// Who may write (devices.ts): join links and the devices that joined with them. Only the
	// SHA-256 of a join token or a device credential is stored, never the secret itself. `rings`
	// is a JSON array of ring ids a steward may write, null for every ring.
	`CREATE TABLE join_token (
		id INTEGER PRIMARY KEY,
		token_hash TEXT NOT NULL UNIQUE,
		role TEXT NOT NULL CHECK (role IN ('secretary', 'steward', 'viewer')),
		rings TEXT,
		uses_left INTEGER NOT NULL CHECK (uses_left >= 0),
		expires_at TEXT NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE TABLE device (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		role TEXT NOT NULL CHECK (role IN ('secretary', 'steward', 'viewer')),
		rings TEXT,
		credential_hash TEXT NOT NULL UNIQUE,
		join_token_id INTEGER REFERENCES join_token (id),
		joined_at TEXT NOT NULL,
		last_seen_at TEXT,
		last_address TEXT,
		revoked_at TEXT
	);`
];

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
		const sql = MIGRATIONS[v];
		if (sql === undefined) continue;
		db.transaction(() => {
			db.exec(sql);
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

// ---- PUT log -------------------------------------------------------------------------------

export interface PutLogEntry {
	id: number;
	at: string;
	method: string;
	path: string;
	resourceKind: string | null;
	resourceId: number | null;
	requestBody: string | null;
	/** HTTP status of the answer; 0 when the connection was dropped before the request was handled. */
	status: number;
	responseSummary: string | null;
	/**
	 * Injected fault, or null: '503', 'unreachable' and 'reset-before' (not handled, nothing
	 * applied), 'reset-after-apply' (applied, status 200, answer lost) and 'reset-after' (handled
	 * without a change, answer lost).
	 */
	fault: string | null;
	/** The If-Match header the PUT carried, or null. */
	ifMatch: string | null;
	/** The sender's User-Agent, or null. */
	client: string | null;
	/** The sender's IP address (IPv4-mapped IPv6 shown as IPv4), or null. */
	remoteAddress: string | null;
	/** Size of the request body in bytes (null: not read); `requestBody` may hold only its start. */
	bodyBytes: number | null;
	/** The id of the device whose valid credential came with it; null: none. */
	device: string | null;
	/** The role it was allowed or refused with; null in open mode (no roles in force). */
	role: string | null;
}

type Optional = 'fault' | 'ifMatch' | 'client' | 'remoteAddress' | 'bodyBytes' | 'device' | 'role';

export type NewPutLogEntry = Omit<PutLogEntry, 'id' | Optional> &
	Partial<Pick<PutLogEntry, Optional>>;

/** Default of `maxRows`: the newest rows kept. */
export const PUT_LOG_MAX_ROWS = 100_000;

/**
 * Appends a row, then deletes the rows older than the newest `maxRows` (a range on the primary
 * key: nothing to do in the common case). Call inside the change's transaction when it records
 * an applied change, so that the change and its row are stored together or not at all. Returns
 * the new row's id.
 */
export function appendPutLog(db: DB, entry: NewPutLogEntry, maxRows = PUT_LOG_MAX_ROWS): number {
	const { lastInsertRowid } = db
		.prepare(
			`INSERT INTO put_log (at, method, path, resource_kind, resource_id, request_body, status,
			   response_summary, fault, if_match, client, remote_address, body_bytes, device, role)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		)
		.run(
			entry.at,
			entry.method,
			entry.path,
			entry.resourceKind,
			entry.resourceId,
			entry.requestBody,
			entry.status,
			entry.responseSummary,
			entry.fault ?? null,
			entry.ifMatch ?? null,
			entry.client ?? null,
			entry.remoteAddress ?? null,
			entry.bodyBytes ?? null,
			entry.device ?? null,
			entry.role ?? null
		);
	const id = Number(lastInsertRowid);
	db.prepare('DELETE FROM put_log WHERE id <= ?').run(id - maxRows);
	return id;
}

/** Reads the PUT log in arrival order, optionally only one resource. */
export function readPutLog(
	db: DB,
	filter: { resourceKind?: string; resourceId?: number } = {}
): PutLogEntry[] {
	const rows = db
		.prepare(
			`SELECT id, at, method, path, resource_kind AS resourceKind, resource_id AS resourceId,
			        request_body AS requestBody, status, response_summary AS responseSummary, fault,
			        if_match AS ifMatch, client, remote_address AS remoteAddress,
			        body_bytes AS bodyBytes, device, role
			 FROM put_log
			 WHERE (@kind IS NULL OR resource_kind = @kind) AND (@rid IS NULL OR resource_id = @rid)
			 ORDER BY id`
		)
		.all({ kind: filter.resourceKind ?? null, rid: filter.resourceId ?? null });
	return rows as PutLogEntry[];
}
