// The Competition Results Service (or its proxy mode): `createService` wires the data, the
// cross-cutting steps (middleware/) and the routes (routes/) into one HTTP server.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
	checkAuthOptions,
	createAuth,
	defaultAuthMode,
	type Auth,
	type AuthMode,
	type FailureLimitOptions
} from './auth.ts';
import {
	PUT_LOG_MAX_ROWS,
	PUT_LOG_SELECT,
	putLogFilter,
	readPutLog,
	type PutLogEntry,
	type PutLogFilter
} from './put-log-table.ts';
import type { DB } from './store/sqlite/open.ts';
import { DeviceStore, type JoinLink, type JoinLinkRequest } from './devices.ts';
import { HttpError } from './errors.ts';
import type { FaultCounts, FaultOptions } from './faults.ts';
import { listen, type Listening } from './http-server.ts';
import { MAX_BODY_BYTES } from './middleware/body.ts';
import { createDiskGuard, MIN_FREE_BYTES } from './middleware/disk-guard.ts';
import { answerPreflight, createCors } from './middleware/cors.ts';
import { answerFailure } from './middleware/error-answer.ts';
import { createEtags } from './middleware/etag.ts';
import { StreamRegistry } from './middleware/event-stream.ts';
import { newExchange, releaseAnswer, type Exchange } from './middleware/exchange.ts';
import { createFaultInjector, sleep } from './middleware/fault-injection.ts';
import { createHostCheck, isOwnOrigin } from './middleware/host-check.ts';
import { createPutLog, withSender, type PutLog } from './middleware/put-log.ts';
import {
	checkReadBudget,
	createReadBudget,
	READ_BUDGET_DEFAULTS,
	type ReadBudgetOptions
} from './middleware/read-budget.ts';
import { logWhenClosed } from './middleware/request-log.ts';
import { MAX_UPSTREAM_BODY_BYTES, normaliseUpstream } from './proxy.ts';
import {
	checkPushOptions,
	createPush,
	PUSH_DEFAULTS,
	type Push,
	type PushOptions
} from './push.ts';
import { Repository } from './resources.ts';
import { isPostgresUrl, openStore } from './store/open.ts';
import type { Store } from './store/store.ts';
import { createAppShell } from './routes/app-shell.ts';
import { createApiRouter, preflightMethods, putTarget } from './routes/router.ts';
import { createUpstreamForwarder } from './routes/upstream.ts';
import { localToday, SEED_SIZES, type SeedSize, type SeedSummary } from './seed.ts';
import type { Engine } from './store/sql.ts';
import {
	checkTimerOptions,
	createTimers,
	parseTimerSettings,
	resolveTimers,
	type TimerOptions,
	type Timers,
	type TimerSetting,
	type TimerState
} from './timer.ts';
import { isCalendarDate, validateJoinLinkRequest } from './validation.ts';

export {
	MAX_BODY_BYTES,
	PUT_LOG_MAX_ROWS,
	READ_BUDGET_DEFAULTS,
	readPutLog,
	type AuthMode,
	type JoinLink,
	type JoinLinkRequest,
	type PutLogEntry,
	type ReadBudgetOptions,
	type FaultOptions,
	type FaultCounts,
	type PushOptions,
	type TimerOptions,
	type TimerSetting
};

export interface ServiceOptions {
	/** TCP port; 0 picks a free one (default 0). */
	port?: number;
	/** Interface to listen on (default 127.0.0.1). */
	host?: string;
	/** SQLite file (default ./data/ringside.sqlite); ':memory:' works too. */
	dbFile?: string;
	/**
	 * A PostgreSQL database instead of the SQLite file (`postgres://user@host:port/db`): several
	 * instances of the service may share it (docs/deployment.md). `--db postgres://…` or
	 * DATABASE_URL on the command line.
	 */
	databaseUrl?: string;
	/** Connections of this instance's PostgreSQL pool (default 10). */
	poolSize?: number;
	/** Delete the database first and seed again. */
	reset?: boolean;
	/** Data size seeded into a new (empty) database (default realistic). */
	seed?: SeedSize;
	/** Anchor date YYYY-MM-DD of the seed (default: today's local date). */
	seedDate?: string;
	/**
	 * Conditional requests (default false, as the interface shows no ETags): an ETag on every GET
	 * answer of /api (single resources and list pages), If-None-Match (304) and If-Match (412).
	 */
	etag?: boolean;
	/**
	 * The push channel (default on): `_links.changes` on each competition and its event stream.
	 * `false` turns it off (no link, the stream answers 404); an object tunes it. Not in proxy
	 * mode, where the upstream decides.
	 */
	push?: boolean | PushOptions;
	/** Delay added before each /api answer, in ms (default 0); faulted ones too, see handleApi. */
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
	/**
	 * Host names served besides the loopback names and the address listened on (every interface
	 * address when that is 0.0.0.0 or ::). Any other Host is answered 400 (DNS rebinding); `*`
	 * turns the check off.
	 */
	allowHosts?: string[];
	/** Accepted changes the PUT log keeps, the newest (default PUT_LOG_MAX_ROWS). */
	putLogMaxRows?: number;
	/**
	 * Rows of PUTs that changed nothing (refused, failed) the PUT log keeps per device, or per
	 * address without one (default PUT_LOG_REFUSED_PER_SENDER): they never push out an accepted
	 * change's row.
	 */
	putLogRefusedPerSender?: number;
	/**
	 * Writes are refused with 507 while the database folder has less free space than this, in
	 * bytes (default 200 MiB; 0: never).
	 */
	minFreeBytes?: number;
	/** Free bytes of the file system holding `dir` (default: fs.statfs); for tests. */
	freeSpace?: (dir: string) => number;
	/**
	 * The read budget per client address of the local API (default READ_BUDGET_DEFAULTS; false:
	 * none). Over it a client's reads get 429 with Retry-After.
	 */
	readBudget?: false | ReadBudgetOptions;
	/** Proxy mode: largest upstream answer body passed on (default 8 MiB); larger is a 502. */
	upstreamMaxBytes?: number;
	/**
	 * Chronometers read by the service and relayed to the phones of their ring (the timer bridge,
	 * docs/service.md): `[ring=<ringId>,]tcp:<host>:<port>` or `[ring=<ringId>,]serial:<device>[@<baud>]`,
	 * one per ring. Without `ring=` the first ring of the one competition in progress. Not in
	 * proxy mode.
	 */
	timer?: TimerSetting | TimerSetting[];
	/** Tuning of the timer bridge (reconnection backoff, streams). */
	timerOptions?: TimerOptions;
	/**
	 * Who may write (docs/service.md, "Devices and roles"). `required`: every write, and every
	 * read unless `openReads`, needs a device credential (`Authorization: Bearer …`) and its role
	 * allows it; `open`: every caller acts as the secretary. Default: `open` when the service
	 * listens on loopback only (127.0.0.1, ::1, localhost), `required` otherwise. Not in proxy
	 * mode, where the upstream authenticates.
	 */
	auth?: AuthMode;
	/** With auth required: reads need no credential (viewers and spectators without joining). */
	openReads?: boolean;
	/**
	 * The budget of failures (failed joins, unknown or revoked credentials) per client address
	 * (default FAILURE_LIMIT_DEFAULTS; false: none): past it, that address's joins and unknown
	 * credentials get 429 before anything is read.
	 */
	failureLimit?: false | FailureLimitOptions;
	/** The clock of join links and devices, in ms since 1970 (default Date.now); for tests. */
	clock?: () => number;
	/**
	 * How long a request may take to arrive, headers and body, in ms (default 30,000; Node's own
	 * default is 300 s); the headers alone at most 15 s. A slower one's connection is closed.
	 */
	requestTimeoutMs?: number;
}

/** The answer to a request that arrives while the service stops. */
const stoppingError = (): HttpError =>
	new HttpError(503, 'The service is stopping; send the request again', {
		'Retry-After': '2',
		Connection: 'close'
	});

export { MIN_FREE_BYTES };

export interface Service {
	/** Base address, e.g. `http://127.0.0.1:4173/`. */
	url: string;
	port: number;
	/** The open SQLite database; null in proxy mode and on PostgreSQL (see `store`). */
	db: DB | null;
	/** The data, on either engine; null in proxy mode. */
	store: Store | null;
	/** `sqlite` or `postgres`; null in proxy mode. */
	engine: Engine | null;
	/** The PUT log (as `readPutLog(svc.db)` reads it on SQLite), on either engine. */
	readPutLog(filter?: PutLogFilter): Promise<PutLogEntry[]>;
	/** Seed summary when this start created the data, else null. */
	seeded: SeedSummary | null;
	/** Replaces the fault injection settings at runtime; null turns faults off. */
	setFaults(f: FaultOptions | null): void;
	/** How many faults were injected since the start (a copy). */
	faultCounts(): FaultCounts;
	/** The state of each configured timer (empty without timers). */
	timerStatus(): TimerState[];
	/** Who may write: `required` or `open`; null in proxy mode (the upstream decides). */
	authMode: AuthMode | null;
	/**
	 * Makes a join link (as `POST …/join-links` does; the start-up's secretary link). Throws in
	 * proxy mode, and with the 400 message on a bad request.
	 */
	createJoinLink(request: JoinLinkRequest): JoinLink;
	close(): Promise<void>;
}

type Handler = (ex: Exchange) => Promise<void>;

/** Where /api answers come from: the upstream (proxy mode) or the database (opened here). */
interface Backend {
	store: Store | null;
	seeded: SeedSummary | null;
	api: Handler;
	/** The push channel of the local service; null when off or in proxy mode. */
	push: Push | null;
	/** The upstream's event streams passed through (proxy mode). */
	proxyStreams: StreamRegistry | null;
	/** The timer bridge; null without timers (and in proxy mode). */
	timers: Timers | null;
	/** Who may do what; null in proxy mode. */
	auth: Auth | null;
}

/**
 * Throws on options that cannot work, before anything is opened (a reset would otherwise delete
 * the data of a start that then fails). Faults, upstream and app folder are checked where they
 * are taken in, also before the database is opened.
 */
function checkOptions(options: ServiceOptions): void {
	const { port, seed, seedDate } = options;
	if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
		throw new Error(`port must be an integer 0..65535, got ${String(port)}`);
	}
	if (seed !== undefined && !SEED_SIZES.includes(seed)) {
		throw new Error(`seed must be one of ${SEED_SIZES.join(', ')}, got '${String(seed)}'`);
	}
	if (seedDate !== undefined && !isCalendarDate(seedDate)) {
		throw new Error(`seedDate '${seedDate}' is not YYYY-MM-DD`);
	}
	if (options.upstream && options.push !== undefined && options.push !== true) {
		throw new Error(
			'push options have no effect in proxy mode: the upstream decides whether it offers changes'
		);
	}
	if (typeof options.push === 'object') checkPushOptions(options.push);
	const timers = parseTimerSettings(options.timer);
	if (options.upstream && timers.length > 0) {
		throw new Error('timer is not available in proxy mode: the rings are the upstream’s');
	}
	if (options.timerOptions) checkTimerOptions(options.timerOptions);
	checkAuthOptions(options);
	if (typeof options.readBudget === 'object') checkReadBudget(options.readBudget);
	const positive = (name: string, v: number | undefined, min: number): void => {
		if (v !== undefined && (!Number.isSafeInteger(v) || v < min)) {
			throw new Error(`${name} must be an integer >= ${min}, got ${String(v)}`);
		}
	};
	positive('putLogMaxRows', options.putLogMaxRows, 1);
	positive('putLogRefusedPerSender', options.putLogRefusedPerSender, 1);
	positive('minFreeBytes', options.minFreeBytes, 0);
	positive('upstreamMaxBytes', options.upstreamMaxBytes, 1);
	positive('poolSize', options.poolSize, 1);
	positive('requestTimeoutMs', options.requestTimeoutMs, 1);
	if (options.databaseUrl !== undefined) {
		if (!isPostgresUrl(options.databaseUrl)) {
			throw new Error(`databaseUrl must be a postgres:// or postgresql:// URL`);
		}
		if (options.upstream) throw new Error('databaseUrl has no effect in proxy mode');
		if (options.dbFile !== undefined) throw new Error('give dbFile or databaseUrl, not both');
	}
}

/** The auth mode of the local service: as given, else open on loopback only (auth.ts). */
const localAuthMode = (options: ServiceOptions): AuthMode =>
	options.auth ?? defaultAuthMode(options.host ?? '127.0.0.1', options.allowHosts);

/** Opens the backend; the database it opened is closed again when opening fails further on. */
async function openBackend(
	options: ServiceOptions,
	upstream: string | null,
	putLogOf: (store: Store | null) => PutLog,
	log: ((line: string) => void) | null,
	logError: (line: string) => void
): Promise<Backend> {
	if (upstream) {
		const timeoutMs = options.upstreamTimeoutMs ?? 15000;
		const maxBodyBytes = options.upstreamMaxBytes ?? MAX_UPSTREAM_BODY_BYTES;
		const proxyStreams = new StreamRegistry(PUSH_DEFAULTS.maxStreams);
		const api = createUpstreamForwarder({ upstream, timeoutMs, maxBodyBytes }, proxyStreams);
		return { store: null, seeded: null, api, push: null, proxyStreams, timers: null, auth: null };
	}
	const { store, seeded } = await openStore({
		...(options.dbFile !== undefined ? { dbFile: options.dbFile } : {}),
		...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
		reset: options.reset === true,
		seed: options.seed ?? 'realistic',
		seedDate: options.seedDate ?? localToday(),
		poolSize: options.poolSize ?? 10,
		logError
	});
	try {
		const pushOptions = typeof options.push === 'object' ? options.push : {};
		// The push channel's feed starts with the changes the store kept (a shared database's).
		const bufferSize = pushOptions.bufferSize ?? PUSH_DEFAULTS.bufferSize;
		const push =
			options.push === false
				? null
				: createPush(
						pushOptions,
						{ feed: store.feed, recent: await store.feed.recent(bufferSize) },
						options.latencyMs ?? 0
					);
		const repo = new Repository(store.sql);
		// The rings are checked before anything connects; the connections start last.
		const timerRings = await resolveTimers(repo, parseTimerSettings(options.timer));
		const guards = {
			putLog: putLogOf(store),
			beforeWrite: createDiskGuard(store.dataDir, options.minFreeBytes, options.freeSpace),
			readBudget: options.readBudget === false ? null : createReadBudget(options.readBudget ?? {})
		};
		const timers =
			timerRings.length === 0
				? null
				: createTimers(timerRings, options.timerOptions ?? {}, log, options.latencyMs ?? 0);
		const auth = createAuth({
			mode: localAuthMode(options),
			openReads: options.openReads === true,
			store: new DeviceStore(store, options.clock),
			logError,
			...(options.failureLimit !== undefined ? { failureLimit: options.failureLimit } : {}),
			...(options.clock ? { now: options.clock } : {})
		});
		// What the store delivers once committed: changes to the streams, revocations to auth.
		if (push) store.feed.onChange((c) => push.deliver(c));
		store.feed.onRevoked((id) => auth.revoked(id));
		const etags = createEtags(options.etag === true);
		const api = createApiRouter(store, etags, push, guards, timers, auth);
		return { store, seeded, api, push, proxyStreams: null, timers, auth };
	} catch (e) {
		await store.close();
		throw e;
	}
}

const isApiPath = (pathname: string): boolean =>
	pathname === '/api' || pathname.startsWith('/api/');

/** Starts the Competition Results Service (or its proxy mode) and resolves once it listens. */
export async function createService(options: ServiceOptions = {}): Promise<Service> {
	const log = options.log ?? ((line: string) => console.log(line));
	const logError = options.logError ?? ((line: string) => console.error(line));
	// Everything that can refuse the options runs before the database is opened.
	checkOptions(options);
	const latency = Math.max(0, options.latencyMs ?? 0);
	const cors = createCors(options.corsOrigins);
	const upstream = options.upstream ? normaliseUpstream(options.upstream) : null;
	const appShell = createAppShell(options.appDir, (error) =>
		logError(
			JSON.stringify({
				ts: new Date().toISOString(),
				msg: 'new app build not taken',
				error: String(error)
			})
		)
	);
	const faults = createFaultInjector(options.faults ?? null, putTarget);
	const hosts = createHostCheck(options.host ?? '127.0.0.1', options.allowHosts);
	// In proxy mode the upstream authenticates (Authorization is forwarded to it).
	const authMode = upstream ? null : localAuthMode(options);
	const putLogOf = (st: Store | null): PutLog =>
		createPutLog(
			st,
			logError,
			options.putLogMaxRows,
			authMode === 'required',
			options.putLogRefusedPerSender
		);
	const { store, seeded, api, push, proxyStreams, timers, auth } = await openBackend(
		options,
		upstream,
		putLogOf,
		options.quiet ? null : log,
		logError
	).catch((e: unknown) => {
		appShell.close();
		throw e;
	});
	const putLog = putLogOf(store);
	const db = store?.sqlite ?? null;

	/**
	 * A write (PUT, POST, DELETE) from a page of another origin (not the service's own, not
	 * listed by `corsOrigins`) is refused with 403 (a PUT is noted in put_log), whatever its CORS
	 * preflight did.
	 */
	function checkWriteOrigin(ex: Exchange): void {
		const origin = ex.req.headers.origin;
		const method = ex.req.method ?? 'GET';
		if (!['PUT', 'POST', 'DELETE'].includes(method) || origin === undefined) return;
		if (isOwnOrigin(ex.req, origin, !upstream) || cors.listed(origin)) return;
		if (store && method === 'PUT') ex.put = withSender(putTarget(ex.pathname), ex.req);
		throw new HttpError(403, `Writes from origin ${origin} are not allowed`);
	}

	/**
	 * An /api request: CORS first, so that every answer (an injected 503 too) carries the CORS
	 * headers of an allowed origin — without them a browser reports a 503 as a network error.
	 * Then the fault of the request, the configured latency, and a preflight answer or the API.
	 *
	 * The latency applies to faulted requests as well: a 503 or a reset crosses the same slow
	 * link as a 200, and a chaos run with latency would otherwise see failures come back faster
	 * than successes (so a client's retries would be tested against an unrealistically fast
	 * service). It is added to a fault's own random delay. Not to 'unreachable', which stands for
	 * no service at all: the connection fails at once, as a refused connection does.
	 */
	async function handleApi(ex: Exchange): Promise<void> {
		const { allowed, preflight } = cors(ex);
		// The caller first, so that every put_log row names its device (auth.ts).
		if (auth) ex.caller = await auth.identify(ex);
		checkWriteOrigin(ex);
		const fault = faults.decide();
		if (latency > 0 && fault.kind !== 'unreachable') await sleep(latency);
		if (await faults.apply(ex, fault)) return;
		if (preflight) {
			answerPreflight(ex, allowed, upstream ? undefined : preflightMethods(ex.pathname));
		} else await api(ex);
	}

	/**
	 * Every request: logged, its Host checked, answered (with faults injected on /api). A PUT of
	 * the local service is noted in put_log (unless logged with its change) before its answer,
	 * or its reset, leaves. The local service builds links on X-Forwarded-Host, so that is
	 * checked too; the proxy ignores a client's X-Forwarded-*.
	 */
	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const ex = newExchange(req, res);
		if (!options.quiet) logWhenClosed(ex, log);
		// Stopping: a request that still arrives (on a connection busy when the stop began) is
		// told to come back, and reaches nothing else (a proxy sends the next one elsewhere).
		ex.holdAnswer = store !== null && req.method === 'PUT';
		try {
			if (server.stopping) {
				if (ex.holdAnswer) ex.put = withSender(putTarget(ex.pathname), req);
				throw stoppingError();
			}
			hosts.check(req, !upstream);
			if (isApiPath(ex.pathname)) await handleApi(ex);
			else appShell.handle(ex);
		} catch (e) {
			if (!answerFailure(ex, e, logError)) return releaseAnswer(ex);
		}
		try {
			await putLog.afterAnswer(ex);
		} finally {
			releaseAnswer(ex);
		}
	}

	// The rings a join link may name (no operation adds or removes rings).
	let ringIds = new Set<number>();
	try {
		if (store) ringIds = await new Repository(store.sql).ringIds();
	} catch (e) {
		timers?.close();
		appShell.close();
		await store?.close();
		throw e;
	}
	let server: Listening;
	try {
		server = await listen(handle, {
			port: options.port ?? 0,
			host: options.host ?? '127.0.0.1',
			onClosed: () => store?.close(),
			...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {})
		});
	} catch (e) {
		// E.g. the port is in use. A server that did not start to listen holds nothing open.
		timers?.close();
		appShell.close();
		await store?.close();
		throw e;
	}
	return {
		url: server.url,
		port: server.port,
		db,
		store,
		engine: store?.engine ?? null,
		async readPutLog(filter = {}) {
			if (!store) return [];
			return store.sql.all<PutLogEntry>(PUT_LOG_SELECT, putLogFilter(filter));
		},
		seeded,
		setFaults(f) {
			faults.set(f);
			// A service that went away drops its open streams too; new ones are dropped on arrival.
			if (f?.unreachable) {
				push?.drop();
				proxyStreams?.dropAll();
				timers?.drop();
			}
		},
		faultCounts: faults.counts,
		timerStatus: () => timers?.status() ?? [],
		authMode,
		createJoinLink(request) {
			if (!auth || !store) {
				throw new Error('No join links in proxy mode: the upstream authenticates');
			}
			const checked = validateJoinLinkRequest({ ...request }, (id) => ringIds.has(id));
			// The row is written before this instance handles a join (DeviceStore.join waits).
			const { saved, ...link } = auth.store.createJoinLink(checked);
			saved.catch((e: unknown) => {
				logError(
					JSON.stringify({ ts: new Date().toISOString(), msg: 'join link', error: String(e) })
				);
			});
			return link;
		},
		async close() {
			// Streams never finish by themselves: they end first, so that the shutdown need not
			// wait for them (clients reconnect to the next start and are told to reset).
			push?.close();
			proxyStreams?.endAll();
			timers?.close();
			appShell.close();
			await server.close();
			await store?.close();
		}
	};
}
