// The Competition Results Service (or its proxy mode): `createService` wires the data, the
// cross-cutting steps (middleware/) and the routes (routes/) into one HTTP server.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { openDatabase, readPutLog, type DB, type PutLogEntry } from './db.ts';
import type { FaultCounts, FaultOptions } from './faults.ts';
import { listen } from './http-server.ts';
import { MAX_BODY_BYTES } from './middleware/body.ts';
import { answerPreflight, createCors } from './middleware/cors.ts';
import { answerFailure } from './middleware/error-answer.ts';
import { createEtags } from './middleware/etag.ts';
import { newExchange, type Exchange } from './middleware/exchange.ts';
import { createFaultInjector, sleep } from './middleware/fault-injection.ts';
import { createPutLog } from './middleware/put-log.ts';
import { logWhenClosed } from './middleware/request-log.ts';
import { normaliseUpstream } from './proxy.ts';
import { Repository } from './resources.ts';
import { createAppShell } from './routes/app-shell.ts';
import { createApiRouter, putTarget } from './routes/router.ts';
import { createUpstreamForwarder } from './routes/upstream.ts';
import { localToday, seedDatabase, type SeedSize, type SeedSummary } from './seed.ts';
import { isCalendarDate } from './validation.ts';

export { MAX_BODY_BYTES, readPutLog, type PutLogEntry, type FaultOptions, type FaultCounts };

export interface ServiceOptions {
	/** TCP port; 0 picks a free one (default 0). */
	port?: number;
	/** Interface to listen on (default 127.0.0.1). */
	host?: string;
	/** SQLite file (default ./data/ringside.sqlite); ':memory:' works too. */
	dbFile?: string;
	/** Delete the database first and seed again. */
	reset?: boolean;
	/** Data size seeded into a new (empty) database (default realistic). */
	seed?: SeedSize;
	/** Anchor date YYYY-MM-DD of the seed (default: today's local date). */
	seedDate?: string;
	/** Answer ETags and honour If-Match (default false). */
	etag?: boolean;
	/** Delay added before each /api answer, in ms (default 0). */
	latencyMs?: number;
	/** Allowed CORS origins; '*' allows any origin. Empty/undefined: CORS off. */
	corsOrigins?: string[];
	/** Folder of the built app to serve at / (e.g. 'build'). */
	appDir?: string;
	/** Proxy mode: forward every /api request to this base URL instead of using SQLite. */
	upstream?: string;
	/** Proxy time-out in ms (default 15000). */
	upstreamTimeoutMs?: number;
	/** No request log lines. */
	quiet?: boolean;
	/** Where log lines go (default console.log / console.error). */
	log?: (line: string) => void;
	logError?: (line: string) => void;
	/** Fault injection on /api requests, for chaos tests (default: none). See faults.ts. */
	faults?: FaultOptions;
}

export interface Service {
	/** Base address, e.g. `http://127.0.0.1:4173/`. */
	url: string;
	port: number;
	/** The open database; null in proxy mode. */
	db: DB | null;
	/** Seed summary when this start created the data, else null. */
	seeded: SeedSummary | null;
	/** Replaces the fault injection settings at runtime; null turns faults off. */
	setFaults(f: FaultOptions | null): void;
	/** How many faults were injected since the start (a copy). */
	faultCounts(): FaultCounts;
	close(): Promise<void>;
}

type Handler = (ex: Exchange) => Promise<void>;

/** Where /api answers come from: the upstream (proxy mode) or the database (opened here). */
interface Backend {
	db: DB | null;
	seeded: SeedSummary | null;
	api: Handler;
}

function openBackend(options: ServiceOptions, upstream: string | null): Backend {
	if (upstream) {
		const timeoutMs = options.upstreamTimeoutMs ?? 15000;
		return { db: null, seeded: null, api: createUpstreamForwarder({ upstream, timeoutMs }) };
	}
	const { db, seeded } = openData(options);
	const api = createApiRouter(new Repository(db), createEtags(options.etag === true));
	return { db, seeded, api };
}

/** Opens (and, when empty, seeds) the database of the local service. */
function openData(options: ServiceOptions): { db: DB; seeded: SeedSummary | null } {
	const file = options.dbFile ?? resolve('data', 'ringside.sqlite');
	const { db, empty } = openDatabase(file, options.reset === true);
	if (!empty) return { db, seeded: null };
	const seedDate = options.seedDate ?? localToday();
	if (!isCalendarDate(seedDate)) throw new Error(`seedDate '${seedDate}' is not YYYY-MM-DD`);
	return { db, seeded: seedDatabase(db, options.seed ?? 'realistic', seedDate) };
}

const isApiPath = (pathname: string): boolean =>
	pathname === '/api' || pathname.startsWith('/api/');

/** Starts the Competition Results Service (or its proxy mode) and resolves once it listens. */
export async function createService(options: ServiceOptions = {}): Promise<Service> {
	const log = options.log ?? ((line: string) => console.log(line));
	const logError = options.logError ?? ((line: string) => console.error(line));
	const latency = Math.max(0, options.latencyMs ?? 0);
	const cors = createCors(options.corsOrigins);
	const upstream = options.upstream ? normaliseUpstream(options.upstream) : null;
	const appShell = createAppShell(options.appDir);
	const { db, seeded, api } = openBackend(options, upstream);
	const faults = createFaultInjector(options.faults ?? null, putTarget);
	const putLog = createPutLog(db, logError);

	/** An /api request: CORS, the configured latency, then a preflight answer or the API. */
	async function handleApi(ex: Exchange): Promise<void> {
		const { allowed, preflight } = cors(ex);
		if (latency > 0) await sleep(latency);
		if (preflight) answerPreflight(ex, allowed);
		else await api(ex);
	}

	/** Every request: logged, faults injected on /api, answered, then noted in put_log. */
	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const ex = newExchange(req, res);
		if (!options.quiet) logWhenClosed(ex, log);
		try {
			if (!isApiPath(ex.pathname)) appShell(ex);
			else if (!(await faults.inject(ex))) await handleApi(ex);
		} catch (e) {
			if (!answerFailure(ex, e, logError)) return;
		}
		putLog(ex);
	}

	const server = await listen(handle, {
		port: options.port ?? 0,
		host: options.host ?? '127.0.0.1',
		onClosed: () => db?.close()
	});
	return {
		url: server.url,
		port: server.port,
		db,
		seeded,
		setFaults: faults.set,
		faultCounts: faults.counts,
		close: server.close
	};
}
