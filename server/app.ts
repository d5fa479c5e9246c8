// The Competition Results Service (or its proxy mode): `createService` checks the options
// (options.ts), opens where /api answers come from (backend.ts), and serves every request through
// the pipeline (pipeline.ts) on one HTTP server (http-server.ts), which it closes gracefully.
import type { AuthMode } from './auth/auth.ts';
import { openBackend } from './backend.ts';
import type { JoinLink, JoinLinkRequest } from './devices/devices.ts';
import type { FaultCounts, FaultOptions } from './http/faults.ts';
import { listen, type Listening } from './http/http-server.ts';
import { MAX_BODY_BYTES } from './middleware/body.ts';
import { createCors } from './middleware/cors.ts';
import { MIN_FREE_BYTES } from './middleware/disk-guard.ts';
import { createFaultInjector } from './middleware/fault-injection.ts';
import { createHostCheck } from './middleware/host-check.ts';
import { createPutLog, type PutLog } from './middleware/put-log.ts';
import { READ_BUDGET_DEFAULTS, type ReadBudgetOptions } from './middleware/read-budget.ts';
import { checkOptions, localAuthMode, type ServiceOptions } from './options.ts';
import { createPipeline, createPlainPipeline } from './http/pipeline.ts';
import { createClientAddress } from './http/client-address.ts';
import { normaliseUpstream } from './proxy/proxy.ts';
import type { PushOptions } from './push/push.ts';
import type { Mirror } from './mirror/mirror.ts';
import {
	PUT_LOG_MAX_ROWS,
	PUT_LOG_SELECT,
	putLogFilter,
	readPutLog,
	type PutLogEntry,
	type PutLogFilter
} from './store/put-log-table.ts';
import { Repository } from './store/repository.ts';
import { createAppShell } from './routes/app-shell.ts';
import { putTarget } from './routes/table.ts';
import type { SeedSummary } from './seed/seed.ts';
import type { DB } from './store/sqlite/open.ts';
import type { Engine } from './store/sql.ts';
import type { Store } from './store/store.ts';
import type { TimerOptions, TimerSetting, TimerState } from './timer/timer.ts';
import { validateJoinLinkRequest } from './validation.ts';
import { checkCertFor, readCertPair } from './tls/cert-files.ts';
import { createTrustRoutes } from './tls/trust.ts';
import { openVenueTls, servedNames, type VenueTls } from './tls/venue-tls.ts';

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

export { MIN_FREE_BYTES, type ServiceOptions };

export interface Service {
	/** Base address, e.g. `http://127.0.0.1:4173/` (`https://…` with TLS). */
	url: string;
	port: number;
	/** HTTPS (`--tls local`, `--tls-cert`): the certificate's source and names; null without. */
	tls: Omit<VenueTls, 'context' | 'watch'> | null;
	/** The separate plain-HTTP port (`--http-port`), if any. */
	httpPort: number | null;
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
	/** Mirror mode's publisher and puller (status, decisions); null otherwise. */
	mirror: Mirror | null;
	/** Who may write: `required` or `open`; null in proxy mode (the upstream decides). */
	authMode: AuthMode | null;
	/**
	 * Makes a join link (as `POST …/join-links` does; the start-up's secretary link). Throws in
	 * proxy mode, and with the 400 message on a bad request.
	 */
	createJoinLink(request: JoinLinkRequest): JoinLink;
	close(): Promise<void>;
}

/** Starts the Competition Results Service (or its proxy mode) and resolves once it listens. */
export async function createService(options: ServiceOptions = {}): Promise<Service> {
	const log = options.log ?? ((line: string) => console.log(line));
	const logError = options.logError ?? ((line: string) => console.error(line));
	// Everything that can refuse the options runs before the database is opened.
	checkOptions(options);
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
	const clientAddress = createClientAddress(options.trustProxy);
	// The organiser's certificate is read and checked for its names before the database is
	// opened (a --reset then deletes nothing when it does not fit); its dates once the event's
	// last day is known.
	if (options.tlsCert && options.tlsKey) {
		const { leaf } = readCertPair(options.tlsCert, options.tlsKey);
		checkCertFor(leaf, servedNames(options.host ?? '127.0.0.1', options.allowHosts), new Date());
	}
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
	const { store, seeded, api, push, proxyStreams, timers, auth, mirror } = await openBackend(
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
	let server: Listening | null = null;
	let venue: VenueTls | null = null;
	const trust = createTrustRoutes({
		httpsPort: () => (venue && server ? server.port : null),
		httpPort: () => server?.httpPort ?? server?.port ?? null,
		ca: () => venue?.ca ?? null
	});
	const handle = createPipeline({
		log: options.quiet ? null : log,
		logError,
		local: !upstream,
		putLog,
		putTarget,
		stopping: () => server?.stopping ?? false,
		hosts,
		cors,
		auth,
		faults,
		latencyMs: Math.max(0, options.latencyMs ?? 0),
		appShell,
		api,
		trust,
		clientAddress
	});

	// The rings a join link may name (no operation adds or removes rings).
	let ringIds = new Set<number>();
	try {
		const repository = store ? new Repository(store.sql) : null;
		if (repository) ringIds = await repository.ringIds();
		if (options.tls || options.tlsCert) {
			venue = await openVenueTls(options, endOfDay(await repository?.lastDay()));
		}
	} catch (e) {
		timers?.close();
		await mirror?.close();
		appShell.close();
		await store?.close();
		throw e;
	}
	let listening: Listening;
	try {
		listening = await listen(handle, {
			port: options.port ?? 0,
			host: options.host ?? '127.0.0.1',
			onClosed: () => store?.close(),
			...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
			...(venue
				? {
						tls: {
							context: venue.context,
							plain: createPlainPipeline({
								log: options.quiet ? null : log,
								logError,
								hosts,
								trust,
								clientAddress
							}),
							...(options.httpPort !== undefined ? { httpPort: options.httpPort } : {})
						}
					}
				: {})
		});
		server = listening;
	} catch (e) {
		// E.g. the port is in use. A server that did not start to listen holds nothing open.
		timers?.close();
		await mirror?.close();
		appShell.close();
		await store?.close();
		throw e;
	}
	const stopWatching = venue?.watch(
		(context) => listening.setSecureContext(context),
		(line) => logError(JSON.stringify({ ts: new Date().toISOString(), msg: line }))
	);
	const tlsInfo = venue ? (({ context: _c, watch: _w, ...rest }: VenueTls) => rest)(venue) : null;
	return {
		url: listening.url,
		port: listening.port,
		tls: tlsInfo,
		httpPort: listening.httpPort,
		db,
		store,
		engine: store?.engine ?? null,
		async readPutLog(filter = {}) {
			if (!store) return [];
			return store.sql.all<PutLogEntry>(PUT_LOG_SELECT, putLogFilter(filter));
		},
		seeded,
		mirror,
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
			await mirror?.close();
			timers?.close();
			appShell.close();
			stopWatching?.();
			await listening.close();
			await store?.close();
		}
	};
}

/** The end of a YYYY-MM-DD day in this machine's time zone; now when there is no day. */
function endOfDay(day: string | undefined): Date {
	const m = day ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(day) : null;
	if (!m) return new Date();
	const end = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59);
	return end.getTime() < Date.now() ? new Date() : end;
}
