// The put_log table (docs/service.md, "Programmatic use"): its rows, and the statements both
// engines run on it (named parameters, see store/sql.ts). middleware/put-log.ts decides what is
// written when.
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

/** A PUT_LOG_INSERT that answers the new row's id (a row of a PUT that changed nothing). */
export const PUT_LOG_INSERT_RETURNING_ID = `${PUT_LOG_INSERT} RETURNING id`;

/** Default of `refusedPerSender`: rows of PUTs that changed nothing kept per device (or address). */
export const PUT_LOG_REFUSED_PER_SENDER = 1_000;

/** An accepted change's row, numbered among the accepted ones. */
export const PUT_LOG_INSERT_ACCEPTED = `INSERT INTO put_log (at, method, path, resource_kind,
	  resource_id, request_body, status, response_summary, fault, if_match, client, remote_address,
	  body_bytes, device, role, accepted_seq)
	VALUES (@at, @method, @path, @resourceKind, @resourceId, @requestBody, @status,
	  @responseSummary, @fault, @ifMatch, @client, @remoteAddress, @bodyBytes, @device, @role,
	  (SELECT COALESCE(MAX(accepted_seq), 0) + 1 FROM put_log))
	RETURNING id, accepted_seq AS seq`;

/** Accepted rows older than the newest `maxRows` accepted ones. */
export const PUT_LOG_TRIM_ACCEPTED = 'DELETE FROM put_log WHERE accepted_seq <= @below';

/** Other rows older than the newest `maxRows` rows of the log. */
export const PUT_LOG_TRIM_REFUSED =
	'DELETE FROM put_log WHERE accepted_seq IS NULL AND id <= @below';

/** A device's other rows beyond its newest `keep`. */
export const PUT_LOG_TRIM_DEVICE = `DELETE FROM put_log WHERE accepted_seq IS NULL AND device = @device
	AND id <= (SELECT id FROM put_log WHERE accepted_seq IS NULL AND device = @device
	  ORDER BY id DESC LIMIT 1 OFFSET @keep)`;

/** The other rows of an address without a device beyond its newest `keep`. */
export const PUT_LOG_TRIM_ADDRESS = `DELETE FROM put_log WHERE accepted_seq IS NULL
	AND device IS NULL AND remote_address = @address
	AND id <= (SELECT id FROM put_log WHERE accepted_seq IS NULL AND device IS NULL
	  AND remote_address = @address ORDER BY id DESC LIMIT 1 OFFSET @keep)`;

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

/** A SQLite database as better-sqlite3 opens it (`svc.db`), as far as `readPutLog` uses it. */
interface SqliteDatabase {
	prepare(sql: string): { all(params: Record<string, string | number | null>): unknown[] };
}

/** Reads the PUT log of a SQLite database in arrival order, optionally only one resource. */
export function readPutLog(db: SqliteDatabase, filter: PutLogFilter = {}): PutLogEntry[] {
	const rows = db.prepare(PUT_LOG_SELECT).all(putLogFilter(filter));
	return rows as PutLogEntry[];
}
