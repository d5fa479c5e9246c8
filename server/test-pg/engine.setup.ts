// Setup file of the `postgres` project: the service tests run unchanged against PostgreSQL.
// `createService` gets a PostgreSQL database instead of its SQLite file: one database per file
// path (a test that restarts on the same file restarts on the same database; ':memory:' is always
// a new one). `svc.db` becomes a handle that `readPutLog` and a few synchronous reads of the
// tests (`prepare(sql).get/all/run`, `exec`, `close`) understand; they run psql synchronously,
// as the tests read SQLite synchronously. Only the tests' own reads go through psql.
import { vi } from 'vitest';
import type * as App from '../app.ts';
import { newDatabase } from './new-database.ts';
import { handleOf, isHandle, readPutLogOf } from './psql.ts';

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
		return readPutLogOf(db, filter);
	}
	return { ...actual, createService, readPutLog };
});
