// Setup file of the `postgres` project: the service tests run unchanged against PostgreSQL.
// `createService` gets a PostgreSQL database instead of its SQLite file: one database per file
// path (a test that restarts on the same file restarts on the same database; ':memory:' is always
// a new one). `svc.db` becomes a handle that `readPutLog` and a few synchronous reads of the
// tests (`prepare(sql).get/all/run`, `exec`, `close`) understand; they run psql synchronously,
// as the tests read SQLite synchronously. Only the tests' own reads go through psql.
import { execFileSync } from 'node:child_process';
import { vi } from 'vitest';
import type * as App from '../app.ts';
import type { PutLogEntry } from '../db.ts';
import { newDatabase } from './new-database.ts';

const PG_HANDLE = Symbol('postgres test handle');

interface PgHandle {
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

const isHandle = (x: unknown): x is PgHandle =>
	typeof x === 'object' && x !== null && PG_HANDLE in x;

/** Runs `sql` with `?` parameters through psql (values quoted by psql's :'name' variables). */
function psql(url: string, sql: string, params: unknown[] = []): string {
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

const jsonRows = (url: string, sql: string, params: unknown[]): Record<string, unknown>[] =>
	JSON.parse(
		psql(url, `SELECT coalesce(json_agg(t), '[]') FROM (${sql}) t;`, params).trim() || '[]'
	) as Record<string, unknown>[];

function handleOf(url: string, svc: App.Service): PgHandle {
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

const databases = new Map<string, string>();

vi.mock('../app.ts', async (importOriginal) => {
	const actual = await importOriginal<typeof App>();
	async function createService(options: App.ServiceOptions = {}): Promise<App.Service> {
		if (options.upstream || options.databaseUrl) return actual.createService(options);
		const { dbFile, ...rest } = options;
		const key = dbFile ?? 'data/ringside.sqlite';
		let url = key === ':memory:' ? undefined : databases.get(key);
		if (!url) {
			url = await newDatabase('t');
			if (key !== ':memory:') databases.set(key, url);
		}
		const svc = await actual.createService({ ...rest, databaseUrl: url });
		(svc as { db: unknown }).db = handleOf(url, svc);
		return svc;
	}
	function readPutLog(db: unknown, filter: { resourceKind?: string; resourceId?: number } = {}) {
		if (!isHandle(db))
			return actual.readPutLog(db as Parameters<typeof actual.readPutLog>[0], filter);
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
	return { ...actual, createService, readPutLog };
});
