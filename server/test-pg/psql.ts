// The tests' own synchronous reads of a PostgreSQL database (through psql), shaped like the few
// better-sqlite3 calls the service tests make on `svc.db`, and the PUT log read the same way.
import { execFileSync } from 'node:child_process';
import type * as App from '../app.ts';
import type { PutLogEntry } from '../store/put-log-table.ts';

export const PG_HANDLE = Symbol('postgres test handle');

export interface PgHandle {
	[PG_HANDLE]: true;
	url: string;
	open: boolean;
	prepare(sql: string): {
		get(...params: unknown[]): unknown;
		all(...params: unknown[]): unknown[];
		run(...params: unknown[]): { changes: number };
	};
	exec(sql: string): void;
	close(): void;
}

export const isHandle = (x: unknown): x is PgHandle =>
	typeof x === 'object' && x !== null && PG_HANDLE in x;

/** Runs `sql` with `?` parameters through psql (values quoted by psql's :'name' variables). */
export function psql(url: string, sql: string, params: unknown[] = []): string {
	let i = 0;
	const vars: string[] = [];
	const text = sql.replace(/\?/g, () => {
		const v = params[i++];
		vars.push('-v', `p${i}=${v === null || v === undefined ? '' : String(v)}`);
		return `:'p${i}'`;
	});
	return execFileSync('psql', [url, '-XAtq', '-v', 'ON_ERROR_STOP=1', ...vars], {
		input: text,
		encoding: 'utf8'
	});
}

export const jsonRows = (url: string, sql: string, params: unknown[]): Record<string, unknown>[] =>
	JSON.parse(
		psql(url, `SELECT coalesce(json_agg(t), '[]') FROM (${sql}) t;`, params).trim() || '[]'
	) as Record<string, unknown>[];

export function handleOf(url: string, svc: Pick<App.Service, 'store'>): PgHandle {
	const handle: PgHandle = {
		[PG_HANDLE]: true,
		url,
		get open() {
			return svc.store?.open ?? false;
		},
		prepare: (sql) => ({
			get: (...params) => jsonRows(url, sql, params)[0],
			all: (...params) => jsonRows(url, sql, params),
			run: (...params) => {
				psql(url, `${sql};`, params);
				return { changes: 0 };
			}
		}),
		exec: (sql) => {
			psql(url, `${sql};`);
		},
		close: () => {
			void svc.store?.close();
		}
	};
	return handle;
}

/** The PUT log of the database of `db`, as `readPutLog` reads SQLite's. */
export function readPutLogOf(
	db: PgHandle,
	filter: { resourceKind?: string; resourceId?: number } = {}
): PutLogEntry[] {
	const rows = jsonRows(
		db.url,
		`SELECT id, at, method, path, resource_kind AS "resourceKind", resource_id AS "resourceId",
		   request_body AS "requestBody", status, response_summary AS "responseSummary", fault,
		   if_match AS "ifMatch", client, remote_address AS "remoteAddress",
		   body_bytes AS "bodyBytes", device, role
		 FROM put_log WHERE (? = '' OR resource_kind = ?) AND (? = '' OR resource_id::text = ?)
		 ORDER BY id`,
		[
			filter.resourceKind ?? '',
			filter.resourceKind ?? '',
			filter.resourceId ?? '',
			filter.resourceId ?? ''
		]
	);
	return rows as unknown as PutLogEntry[];
}
