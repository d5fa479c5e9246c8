// The options of the service (createService, and the command line in main.ts) and the check
// that refuses those that cannot work before anything is opened.
import {
	checkAuthOptions,
	defaultAuthMode,
	type AuthMode,
	type FailureLimitOptions
} from './auth/auth.ts';
import type { FaultOptions } from './http/faults.ts';
import { checkReadBudget, type ReadBudgetOptions } from './middleware/read-budget.ts';
import { checkPushOptions, type PushOptions } from './push/push.ts';
import { SEED_SIZES, type SeedSize } from './seed/seed.ts';
import { isPostgresUrl } from './store/open.ts';
import {
	checkTimerOptions,
	parseTimerSettings,
	type TimerOptions,
	type TimerSetting
} from './timer/timer.ts';
import { isCalendarDate } from './validation.ts';
import { checkTlsOptions, type TlsOptions } from './tls/venue-tls.ts';
import { parseTrustedProxies } from './http/client-address.ts';

export interface ServiceOptions extends TlsOptions {
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
	/**
	 * Anchor date YYYY-MM-DD of the seed (default: today's local date). In mirror mode: the
	 * event's day, whose runs are read again most often.
	 */
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
	/**
	 * Mirror mode: the laptop's database is a copy of the competitions picked from this upstream
	 * service (read by links into an empty database at the first start), every change accepted
	 * here is published to it, and what changes there comes down (server/mirror/).
	 */
	mirror?: string;
	/** Mirror mode: the competitions to copy (default: every one not over yet). */
	mirrorCompetitions?: number[];
	/** Mirror mode: how often the upstream's lists are read again, ms (default 5000). */
	mirrorPullMs?: number;
	/**
	 * Mirror mode: the Authorization header of every request to the upstream (the interface shows
	 * none; a federation's service may want one). From RINGSIDE_MIRROR_AUTHORIZATION on the
	 * command line, never an argument (others on the laptop would see it).
	 */
	mirrorAuthorization?: string;
	/** Mirror mode: the laptop → upstream link (default: fetch); tests cut it here. */
	mirrorFetch?: (input: string, init: RequestInit) => Promise<Response>;
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
	/**
	 * `--trust-proxy`: addresses or CIDRs of reverse proxies in front. A request from one is from
	 * the client its X-Forwarded-For names (client-address.ts); from anyone else that header is
	 * ignored. None: every request is from its connection's address.
	 */
	trustProxy?: string[];
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

/**
 * Throws on options that cannot work, before anything is opened (a reset would otherwise delete
 * the data of a start that then fails). Faults, upstream and app folder are checked where they
 * are taken in, also before the database is opened.
 */
export function checkOptions(options: ServiceOptions): void {
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
	if (options.mirror && options.upstream) {
		throw new Error(
			'mirror and upstream exclude each other: mirror keeps a copy, upstream forwards'
		);
	}
	if (options.mirror) {
		try {
			const u = new URL(options.mirror);
			if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(u.protocol);
		} catch {
			throw new Error(`mirror must be an http(s) address, got ${options.mirror}`);
		}
	}
	if (options.upstream && timers.length > 0) {
		throw new Error('timer is not available in proxy mode: the rings are the upstream’s');
	}
	if (options.timerOptions) checkTimerOptions(options.timerOptions);
	checkAuthOptions(options);
	checkTlsOptions(options);
	if (typeof options.readBudget === 'object') checkReadBudget(options.readBudget);
	if (options.trustProxy) parseTrustedProxies(options.trustProxy);
	const positive = (name: string, v: number | undefined, min: number): void => {
		if (v !== undefined && (!Number.isSafeInteger(v) || v < min)) {
			throw new Error(`${name} must be an integer >= ${min}, got ${String(v)}`);
		}
	};
	positive('putLogMaxRows', options.putLogMaxRows, 1);
	positive('mirrorPullMs', options.mirrorPullMs, 1);
	positive('putLogRefusedPerSender', options.putLogRefusedPerSender, 1);
	positive('minFreeBytes', options.minFreeBytes, 0);
	positive('upstreamMaxBytes', options.upstreamMaxBytes, 1);
	positive('poolSize', options.poolSize, 1);
	positive('requestTimeoutMs', options.requestTimeoutMs, 1);
	if (
		options.httpPort !== undefined &&
		(!Number.isInteger(options.httpPort) || options.httpPort < 0 || options.httpPort > 65535)
	) {
		throw new Error(`httpPort must be an integer 0..65535, got ${String(options.httpPort)}`);
	}
	if (options.databaseUrl !== undefined) {
		if (!isPostgresUrl(options.databaseUrl)) {
			throw new Error(`databaseUrl must be a postgres:// or postgresql:// URL`);
		}
		if (options.upstream) throw new Error('databaseUrl has no effect in proxy mode');
		if (options.dbFile !== undefined) throw new Error('give dbFile or databaseUrl, not both');
	}
}

/** The auth mode of the local service: as given, else open on loopback only (auth.ts). */
export const localAuthMode = (options: ServiceOptions): AuthMode =>
	options.auth ?? defaultAuthMode(options.host ?? '127.0.0.1', options.allowHosts);
