// Setup file of the `topology` project: suites written against `createService` (the contract
// tests) run unchanged against two instances in separate processes on one PostgreSQL database,
// behind nginx (scripts/topology.ts). `createService` starts that topology and answers the
// proxy's address as the service's; `svc.db` reads the shared database through psql (the PUT
// log). Only options that the command line has are accepted: any other fails the test.
import { vi } from 'vitest';
import { startTopology } from '../../scripts/topology.ts';
import type * as App from '../app.ts';
import { handleOf, isHandle, readPutLogOf } from './psql.ts';

/** `server/main.ts` arguments for the options the suites pass. */
function argsOf(o: App.ServiceOptions): string[] {
	const args = ['--quiet'];
	for (const [key, value] of Object.entries(o)) {
		if (value === undefined) continue;
		switch (key) {
			case 'port':
			case 'quiet':
			case 'dbFile': // each topology has its own new database
				break;
			case 'seed':
				args.push('--seed', String(value));
				break;
			case 'seedDate':
				args.push('--seed-date', String(value));
				break;
			case 'auth':
				args.push('--auth', String(value));
				break;
			case 'allowHosts':
				for (const h of value as string[]) args.push('--allow-host', h);
				break;
			case 'etag':
				if (value === false) args.push('--no-etag');
				break;
			case 'openReads':
				if (value === true) args.push('--open-reads');
				break;
			default:
				throw new Error(`option ${key} cannot be given to separate processes (topology.setup.ts)`);
		}
	}
	return args;
}

vi.mock('../app.ts', async (importOriginal) => {
	const actual = await importOriginal<typeof App>();
	async function createService(options: App.ServiceOptions = {}): Promise<App.Service> {
		const t = await startTopology({ args: argsOf(options) });
		const svc = {
			url: t.url,
			port: t.proxy.port,
			db: null as unknown,
			store: null,
			engine: 'postgres',
			seeded: null,
			authMode: options.auth ?? 'open',
			readPutLog: () => Promise.resolve(readPutLogOf(handleOf(t.databaseUrl, { store: null }))),
			setFaults: () => {
				throw new Error('no fault injection in separate processes');
			},
			faultCounts: () => ({ error503: 0, reset: 0, delayed: 0, unreachable: 0 }),
			timerStatus: () => [],
			createJoinLink: () => {
				throw new Error('no join links from the test process');
			},
			close: () => t.stop()
		};
		svc.db = handleOf(t.databaseUrl, svc);
		return svc as unknown as App.Service;
	}
	function readPutLog(db: unknown, filter: { resourceKind?: string; resourceId?: number } = {}) {
		if (!isHandle(db))
			return actual.readPutLog(db as Parameters<typeof actual.readPutLog>[0], filter);
		return readPutLogOf(db, filter);
	}
	return { ...actual, createService, readPutLog };
});
