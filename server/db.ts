import Database from 'better-sqlite3';
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ddlOf, MIGRATIONS } from './store/schema.ts';

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

/** The statements of the PUT log, the same on both engines (named parameters, see store/sql.ts). */
export const PUT_LOG_INSERT = `INSERT INTO put_log (at, method, path, resource_kind, resource_id,
	  request_body, status, response_summary, fault, if_match, client, remote_address, body_bytes,
	  device, role)
	VALUES (@at, @method, @path, @resourceKind, @resourceId, @requestBody, @status,
	  @responseSummary, @fault, @ifMatch, @client, @remoteAddress, @bodyBytes, @device, @role)`;

export const PUT_LOG_TRIM = 'DELETE FROM put_log WHERE id <= @below';

export const PUT_LOG_SET_FAULT = 'UPDATE put_log SET fault = @fault WHERE id = @id';

export const PUT_LOG_SELECT = `SELECT id, at, method, path, resource_kind AS "resourceKind",
	  resource_id AS "resourceId", request_body AS "requestBody", status,
	  response_summary AS "responseSummary", fault, if_match AS "ifMatch", client,
	  remote_address AS "remoteAddress", body_bytes AS "bodyBytes", device, role
	FROM put_log
	WHERE (CAST(@kind AS TEXT) IS NULL OR resource_kind = @kind)
	  AND (CAST(@rid AS INTEGER) IS NULL OR resource_id = @rid)
	ORDER BY id`;

/** The parameters of PUT_LOG_INSERT. */
export function putLogParams(entry: NewPutLogEntry): Record<string, string | number | null> {
	return {
		at: entry.at,
		method: entry.method,
		path: entry.path,
		resourceKind: entry.resourceKind,
		resourceId: entry.resourceId,
		requestBody: entry.requestBody,
		status: entry.status,
		responseSummary: entry.responseSummary,
		fault: entry.fault ?? null,
		ifMatch: entry.ifMatch ?? null,
		client: entry.client ?? null,
		remoteAddress: entry.remoteAddress ?? null,
		bodyBytes: entry.bodyBytes ?? null,
		device: entry.device ?? null,
		role: entry.role ?? null
	};
}

export interface PutLogFilter {
	resourceKind?: string;
	resourceId?: number;
}

/** The parameters of PUT_LOG_SELECT. */
export const putLogFilter = (f: PutLogFilter): Record<string, string | number | null> => ({
	kind: f.resourceKind ?? null,
	rid: f.resourceId ?? null
});

/**
 * Appends a row, then deletes the rows older than the newest `maxRows` (a range on the primary
 * key: nothing to do in the common case). Call inside the change's transaction when it records
 * an applied change, so that the change and its row are stored together or not at all. Returns
 * the new row's id.
 */
export function appendPutLog(db: DB, entry: NewPutLogEntry, maxRows = PUT_LOG_MAX_ROWS): number {
	const { lastInsertRowid } = db.prepare(PUT_LOG_INSERT).run(putLogParams(entry));
	const id = Number(lastInsertRowid);
	db.prepare(PUT_LOG_TRIM).run({ below: id - maxRows });
	return id;
}

/** Reads the PUT log in arrival order, optionally only one resource. */
export function readPutLog(db: DB, filter: PutLogFilter = {}): PutLogEntry[] {
	const rows = db.prepare(PUT_LOG_SELECT).all(putLogFilter(filter));
	return rows as PutLogEntry[];
}
