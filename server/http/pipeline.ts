// The request pipeline: every request passes these steps, in this order, each doing its part and
// handing on (`next`) or answering. The list is the one place that says what comes before what;
// each step's work is in middleware/ and routes/.
//
//   every request          log it · after what came before it on its connection · answer every failure (a PUT's answer held for its put_log
//                          row) · refuse it while stopping · check its Host · /api or the app
//   /api                   CORS · who calls · refuse other origins' writes · inject faults and
//                          latency · answer a preflight · then either
//     the local service    find the route · authorize · check the target (400, 404, OPTIONS, 405)
//                          · the read budget · the route's handler
//     proxy mode           forward to the upstream
//   /trust                 the trust page and what it offers (tls/trust.ts)
//   anything else          the app (static files, single-page fallback) or 404
//
// With TLS (`--tls`), what arrives as plain HTTP takes a short list of its own (`createPlain`):
// log it · answer every failure · check its Host · /trust, else a redirect to HTTPS.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Auth } from '../auth/auth.ts';
import type { ClientAddressOf } from './client-address.ts';
import type { Backend } from '../backend.ts';
import { HttpError } from './errors.ts';
import { answerPreflight, type Cors } from '../middleware/cors.ts';
import { answerFailure } from '../middleware/error-answer.ts';
import {
	compose,
	newExchange,
	releaseAnswer,
	setClientAddress,
	type Exchange,
	type PutInfo,
	type Step
} from '../middleware/exchange.ts';
import { sleep, type FaultInjector } from '../middleware/fault-injection.ts';
import { isOwnOrigin, type HostCheck } from '../middleware/host-check.ts';
import { withSender, type PutLog } from '../middleware/put-log.ts';
import { logWhenClosed } from '../middleware/request-log.ts';
import { preflightMethods } from '../routes/table.ts';
import type { TrustRoutes } from '../tls/trust.ts';
import { isEncrypted } from './hal.ts';

export interface PipelineParts {
	/** Where request log lines go; null: none (`quiet`). */
	log: ((line: string) => void) | null;
	logError: (line: string) => void;
	/** The local service (its own data); false in proxy mode. */
	local: boolean;
	putLog: PutLog;
	/** Resource kind and id of a PUT path (routes/table.ts), for the put_log rows of refusals. */
	putTarget: (pathname: string) => PutInfo;
	/** True once the service is stopping. */
	stopping: () => boolean;
	hosts: HostCheck;
	cors: Cors;
	/** Who may do what; null in proxy mode. */
	auth: Auth | null;
	faults: FaultInjector;
	/** Delay added before each /api answer, in ms. */
	latencyMs: number;
	/** The app (routes/app-shell.ts). */
	appShell: { handle: (ex: Exchange) => void };
	/** What answers /api after the common steps (backend.ts). */
	api: Backend['api'];
	/** /trust (tls/trust.ts). */
	trust: TrustRoutes;
	/** Who a request comes from (client-address.ts: `--trust-proxy`). */
	clientAddress: ClientAddressOf;
}

/** The handler of every request: the steps in order. */
export function createPipeline(
	p: PipelineParts
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
	const api = compose([
		checkCors(p.cors),
		...(p.auth ? [identifyCaller(p.auth)] : []),
		refuseOtherOriginsWrites(p),
		injectFaults(p.faults, p.latencyMs),
		answerPreflights(p.local),
		...('forward' in p.api
			? [p.api.forward]
			: [p.api.findRoute, p.api.authorize, p.api.checkTarget, p.api.readBudget, p.api.dispatch])
	]);
	const run = compose([
		...(p.log ? [logRequest(p.log)] : []),
		inConnectionOrder(),
		answerEveryRequest(p),
		refuseWhileStopping(p),
		checkHost(p.hosts, p.local),
		apiOrApp(api, p.appShell, p.trust)
	]);
	return (req, res) => {
		setClientAddress(req, p.clientAddress(req));
		return run(newExchange(req, res));
	};
}

/** The handler of what arrives as plain HTTP while the service serves HTTPS. */
export function createPlainPipeline(
	p: Pick<PipelineParts, 'log' | 'logError' | 'hosts' | 'trust' | 'clientAddress'>
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
	const run = compose([
		...(p.log ? [logRequest(p.log)] : []),
		async (ex, next) => {
			try {
				await next();
			} catch (e) {
				answerFailure(ex, e, p.logError);
			}
		},
		checkHost(p.hosts, false),
		(ex) => {
			if (!p.trust.handle(ex, false)) p.trust.redirect(ex);
			return Promise.resolve();
		}
	]);
	return (req, res) => {
		setClientAddress(req, p.clientAddress(req));
		return run(newExchange(req, res));
	};
}

// ---- every request ------------------------------------------------------------------------

/** One JSON line once its connection is done with it (middleware/request-log.ts). */
const logRequest =
	(log: (line: string) => void): Step =>
	(ex, next) => {
		logWhenClosed(ex, log);
		return next();
	};

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Pipelined requests are worked on as if they came one after the other (RFC 9112 §9.3.2: in
 * parallel only when all are safe). Node hands the service every request of a connection as soon
 * as it is parsed, so without this a GET pipelined after a PUT could read the value before it, and
 * of two pipelined revocations the second could take the write lock first. A request waits for the
 * unsafe ones before it on its connection; an unsafe one waits for all before it. A push stream
 * (an unending GET) is safe, so nothing waits for it.
 */
const inConnectionOrder = (): Step => {
	const queues = new WeakMap<object, { all: Promise<void>; unsafe: Promise<void> }>();
	return async (ex, next) => {
		const socket = ex.req.socket;
		const queue = queues.get(socket) ?? { all: Promise.resolve(), unsafe: Promise.resolve() };
		const safe = SAFE.has(ex.req.method ?? '');
		const before = safe ? queue.unsafe : queue.all;
		let finished!: () => void;
		const done = new Promise<void>((resolve) => (finished = resolve));
		const mine = before.then(() => done);
		queue.all = Promise.all([queue.all, mine]).then(() => undefined);
		if (!safe) queue.unsafe = mine;
		queues.set(socket, queue);
		try {
			await before;
			await next();
		} finally {
			finished();
		}
	};
};

/**
 * Every failure answered (middleware/error-answer.ts: an HttpError as itself, a client gone not
 * at all, anything else a 500 with its stack logged). A PUT of the local service is noted in
 * put_log (unless logged with its change) before its answer, or its reset, leaves: a client that
 * has seen the answer finds the row, and one client's rows stay in the order it sent them.
 */
const answerEveryRequest =
	({ local, putLog, logError }: PipelineParts): Step =>
	async (ex, next) => {
		ex.holdAnswer = local && ex.req.method === 'PUT';
		try {
			await next();
		} catch (e) {
			if (!answerFailure(ex, e, logError)) return releaseAnswer(ex);
		}
		try {
			await putLog.afterAnswer(ex);
		} finally {
			releaseAnswer(ex);
		}
	};

/** The answer to a request that arrives while the service stops. */
const stoppingError = (): HttpError =>
	new HttpError(503, 'The service is stopping; send the request again', {
		'Retry-After': '2',
		Connection: 'close'
	});

/**
 * A request that still arrives while the service stops (on a connection busy when the stop
 * began) is told to come back, and reaches nothing else (a proxy sends the next one elsewhere).
 */
const refuseWhileStopping =
	({ stopping, putTarget }: PipelineParts): Step =>
	(ex, next) => {
		if (!stopping()) return next();
		if (ex.holdAnswer) ex.put = withSender(putTarget(ex.pathname), ex.req);
		throw stoppingError();
	};

/**
 * 400 for a Host that names none of the service's addresses (DNS rebinding). The local service
 * builds links on X-Forwarded-Host, so that is checked too; the proxy ignores a client's.
 */
const checkHost =
	(hosts: HostCheck, local: boolean): Step =>
	(ex, next) => {
		hosts.check(ex.req, local);
		return next();
	};

const isApiPath = (pathname: string): boolean =>
	pathname === '/api' || pathname.startsWith('/api/');

/** /api requests go on to the API's steps; /trust to its page; anything else is the app's (or a 404). */
const apiOrApp =
	(
		api: (ex: Exchange) => Promise<void>,
		app: PipelineParts['appShell'],
		trust: TrustRoutes
	): Step =>
	async (ex) => {
		if (isApiPath(ex.pathname)) await api(ex);
		else if (!trust.handle(ex, isEncrypted(ex.req))) app.handle(ex);
	};

// ---- /api ---------------------------------------------------------------------------------

/**
 * CORS first, so that every answer (an injected 503 too) carries the CORS headers of an allowed
 * origin: without them a browser reports a 503 as a network error.
 */
const checkCors =
	(cors: Cors): Step =>
	(ex, next) => {
		ex.cors = cors(ex);
		return next();
	};

/** The caller next, so that every put_log row names its device (auth.ts). */
const identifyCaller =
	(auth: Auth): Step =>
	async (ex, next) => {
		ex.caller = await auth.identify(ex);
		return next();
	};

const WRITES = new Set(['PUT', 'POST', 'DELETE']);

/**
 * A write (PUT, POST, DELETE) from a page of another origin (not the service's own, not listed
 * by `corsOrigins`) is refused with 403 (a PUT is noted in put_log), whatever its CORS preflight
 * did.
 */
const refuseOtherOriginsWrites =
	({ cors, local, putTarget }: PipelineParts): Step =>
	(ex, next) => {
		const origin = ex.req.headers.origin;
		const method = ex.req.method ?? 'GET';
		if (!WRITES.has(method) || origin === undefined) return next();
		if (isOwnOrigin(ex.req, origin, local) || cors.listed(origin)) return next();
		if (local && method === 'PUT') ex.put = withSender(putTarget(ex.pathname), ex.req);
		throw new HttpError(403, `Writes from origin ${origin} are not allowed`);
	};

/**
 * The fault of the request (chaos tests; none unless configured) and the configured latency.
 * The latency applies to faulted requests as well: a 503 or a reset crosses the same slow link
 * as a 200, and a chaos run with latency would otherwise see failures come back faster than
 * successes (so a client's retries would be tested against an unrealistically fast service). It
 * is added to a fault's own random delay. Not to 'unreachable', which stands for no service at
 * all: the connection fails at once, as a refused connection does.
 */
const injectFaults =
	(faults: FaultInjector, latencyMs: number): Step =>
	async (ex, next) => {
		const fault = faults.decide();
		if (latencyMs > 0 && fault.kind !== 'unreachable') await sleep(latencyMs);
		if (await faults.apply(ex, fault)) return;
		return next();
	};

/**
 * A CORS preflight is answered here: 204 with the methods of its path (the local service's
 * routes; the usual ones in proxy mode), or 403 for an origin not allowed.
 */
const answerPreflights =
	(local: boolean): Step =>
	(ex, next) => {
		if (!ex.cors?.preflight) return next();
		answerPreflight(ex, ex.cors.allowed, local ? preflightMethods(ex.pathname) : undefined);
		return Promise.resolve();
	};
