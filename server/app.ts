import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { appendPutLog, openDatabase, readPutLog, type DB, type PutLogEntry } from './db.ts';
import { errorBody, HttpError, newTraceId, notFound, badRequest } from './errors.ts';
import {
	decideFault,
	validateFaults,
	zeroFaultCounts,
	type FaultCounts,
	type FaultDecision,
	type FaultOptions,
	type PutLogFault
} from './faults.ts';
import {
	apiBase,
	HAL_FORMS,
	HAL_JSON,
	pagedEnvelope,
	requestBase,
	stringifyHal,
	stringifyJson
} from './hal.ts';
import { forward, normaliseUpstream } from './proxy.ts';
import {
	competitionResource,
	dogRunResource,
	Repository,
	runResource,
	type DogRunRow,
	type RunRow
} from './resources.ts';
import { localToday, seedDatabase, type SeedSize, type SeedSummary } from './seed.ts';
import { createStaticHandler, type StaticHandler } from './static.ts';
import {
	isCalendarDate,
	parseDateParam,
	parseId,
	parseIdParam,
	parseJsonObject,
	parsePage,
	validateCompetitionRunPatch,
	validateDogRunPatch
} from './validation.ts';

export { readPutLog, type PutLogEntry, type FaultOptions, type FaultCounts };

/** How long a shutdown waits for requests being handled. */
const SHUTDOWN_GRACE_MS = 2_000;

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

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

const SECURITY_HEADERS: Record<string, string> = {
	'X-Content-Type-Options': 'nosniff',
	'X-XSS-Protection': '0',
	'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate',
	Pragma: 'no-cache',
	Expires: '0',
	'X-Frame-Options': 'DENY'
};

interface PutInfo {
	kind: string | null;
	id: number | null;
	body: string | null;
	ifMatch?: string | null;
	client?: string | null;
}

interface RequestContext {
	traceId?: string;
	status?: number;
	summary?: string;
	/** Set for PUT requests of the local service: appended to put_log once answered. */
	put?: PutInfo;
	/** Injected fault that happened to this request (recorded in put_log and the request log). */
	fault?: PutLogFault;
	/** Reset the connection instead of sending the answer (fault 'reset-after'). */
	dropAnswer?: boolean;
	/** The answer was dropped; nothing more is written. */
	dropped?: boolean;
}

interface Route {
	re: RegExp;
	name: string;
	methods: string[];
}

const ROUTES: Route[] = [
	{ re: /^\/api\/v1\/competitions$/, name: 'competitions', methods: ['GET'] },
	{ re: /^\/api\/v1\/competitions\/([^/]+)$/, name: 'competition', methods: ['GET'] },
	{ re: /^\/api\/v1\/competitions\/([^/]+)\/runs$/, name: 'runs', methods: ['GET'] },
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/nextDogRunsForRing\/([^/]+)$/,
		name: 'next',
		methods: ['GET']
	},
	{ re: /^\/api\/v1\/competitionRuns\/([^/]+)$/, name: 'run', methods: ['GET', 'PUT'] },
	{ re: /^\/api\/v1\/competitionRuns\/([^/]+)\/dogRuns$/, name: 'dogRuns', methods: ['GET'] },
	{ re: /^\/api\/v1\/dogRuns\/([^/]+)$/, name: 'dogRun', methods: ['GET', 'PUT'] }
];

const allowHeader = (methods: string[]): string =>
	[...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Body {
	buf: Buffer;
	tooLarge: boolean;
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads the request body, keeping at most MAX_BODY_BYTES. A body declared (Content-Length) or
 * found to be larger is not read any further: the caller answers 413 with `Connection: close`,
 * so the rest of the upload is never read or buffered.
 */
function readBody(req: IncomingMessage): Promise<Body> {
	return new Promise((resolvePromise, reject) => {
		const declared = Number(req.headers['content-length'] ?? '0');
		if (declared > MAX_BODY_BYTES) {
			resolvePromise({ buf: EMPTY, tooLarge: true });
			return;
		}
		const chunks: Buffer[] = [];
		let bytes = 0;
		let settled = false;
		const cleanup = (): void => {
			settled = true;
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onError);
		};
		const onData = (chunk: Buffer): void => {
			bytes += chunk.length;
			if (bytes > MAX_BODY_BYTES) {
				cleanup();
				req.pause();
				resolvePromise({ buf: EMPTY, tooLarge: true });
				return;
			}
			chunks.push(chunk);
		};
		const onEnd = (): void => {
			if (settled) return;
			cleanup();
			resolvePromise({ buf: Buffer.concat(chunks), tooLarge: false });
		};
		const onError = (e: Error): void => {
			if (settled) return;
			cleanup();
			reject(e);
		};
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onError);
	});
}

const tooLargeError = (): HttpError =>
	new HttpError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes`, {
		Connection: 'close'
	});

/** Drops the connection without an answer, with a TCP reset where the platform allows. */
function resetConnection(req: IncomingMessage): void {
	const socket = req.socket;
	if (socket.destroyed) return;
	if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
	else socket.destroy();
}

function isJsonContentType(value: string | undefined): boolean {
	if (!value) return false;
	const media = value.split(';')[0]?.trim().toLowerCase() ?? '';
	return media === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(media);
}

function etagMatches(header: string, current: string): boolean {
	const trimmed = header.trim();
	if (trimmed === '*') return true;
	return trimmed
		.split(',')
		.map((t) => t.trim().replace(/^W\//, ''))
		.some((t) => t === current);
}

/** Starts the Competition Results Service (or its proxy mode) and resolves once it listens. */
export async function createService(options: ServiceOptions = {}): Promise<Service> {
	const log = options.log ?? ((line: string) => console.log(line));
	const logError = options.logError ?? ((line: string) => console.error(line));
	const etagOn = options.etag === true;
	const latency = Math.max(0, options.latencyMs ?? 0);
	const cors = (options.corsOrigins ?? []).map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
	const upstream = options.upstream ? normaliseUpstream(options.upstream) : null;
	const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 15000;
	const staticHandler: StaticHandler | null = options.appDir
		? createStaticHandler(options.appDir)
		: null;

	let db: DB | null = null;
	let repo: Repository | null = null;
	let seeded: SeedSummary | null = null;
	if (!upstream) {
		const file = options.dbFile ?? resolve('data', 'ringside.sqlite');
		const opened = openDatabase(file, options.reset === true);
		db = opened.db;
		if (opened.empty) {
			const seedDate = options.seedDate ?? localToday();
			if (!isCalendarDate(seedDate)) throw new Error(`seedDate '${seedDate}' is not YYYY-MM-DD`);
			seeded = seedDatabase(db, options.seed ?? 'realistic', seedDate);
		}
		repo = new Repository(db);
	}

	// ---- fault injection (off unless configured) --------------------------------------------

	let faults: FaultOptions | null = null;
	const counts = zeroFaultCounts();
	function setFaults(f: FaultOptions | null): void {
		if (f) validateFaults(f);
		faults = f ? { ...f } : null;
	}
	setFaults(options.faults ?? null);

	// ---- response helpers ------------------------------------------------------------------

	/**
	 * Writes an answer, the one place every /api answer passes. With the fault 'reset-after' the
	 * request has been handled (a PUT is applied) and the answer is lost: the connection is reset.
	 */
	function answer(
		res: ServerResponse,
		ctx: RequestContext,
		status: number,
		headers: Record<string, string | number>,
		body: string | Buffer
	): void {
		if (ctx.dropped) return;
		ctx.status = status;
		if (ctx.dropAnswer) {
			ctx.dropped = true;
			counts.resetAfter++;
			ctx.fault = ctx.put && status >= 200 && status < 300 ? 'reset-after-apply' : 'reset-after';
			resetConnection(res.req);
			return;
		}
		res.statusCode = status;
		for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
		res.end(body);
	}

	function send(
		res: ServerResponse,
		ctx: RequestContext,
		status: number,
		body: string,
		contentType: string,
		headers: Record<string, string> = {}
	): void {
		answer(
			res,
			ctx,
			status,
			{
				...SECURITY_HEADERS,
				...headers,
				'Content-Type': contentType,
				'Content-Length': Buffer.byteLength(body)
			},
			body
		);
	}

	function sendHal(
		res: ServerResponse,
		ctx: RequestContext,
		value: unknown,
		headers: Record<string, string> = {}
	): void {
		send(res, ctx, 200, stringifyHal(value), HAL_FORMS, headers);
	}

	function sendError(
		res: ServerResponse,
		ctx: RequestContext,
		path: string,
		status: number,
		message: string,
		headers: Record<string, string> = {}
	): void {
		ctx.traceId = newTraceId();
		ctx.summary = message;
		const body = errorBody(status, message, path, ctx.traceId);
		send(res, ctx, status, stringifyJson(body), HAL_JSON, headers);
	}

	// ---- local API ---------------------------------------------------------------------------

	function requireRepo(): Repository {
		if (!repo) throw new Error('No database in proxy mode');
		return repo;
	}

	function runOrThrow(id: number): RunRow {
		const run = requireRepo().run(id);
		if (!run) throw notFound(`Competition run ${id} not found`);
		return run;
	}

	function dogRunsWithRuns(api: string, rows: DogRunRow[]): unknown[] {
		const cache = new Map<number, RunRow>();
		return rows.map((d) => {
			let run = cache.get(d.competition_run_id);
			if (!run) {
				run = runOrThrow(d.competition_run_id);
				cache.set(run.id, run);
			}
			return dogRunResource(api, d, run);
		});
	}

	const runEtag = (r: RunRow): string => `"competitionRun-${r.id}-${r.version}"`;
	const dogRunEtag = (d: DogRunRow): string => `"dogRun-${d.id}-${d.version}"`;

	function handleGet(
		route: Route,
		params: string[],
		req: IncomingMessage,
		res: ServerResponse,
		ctx: RequestContext,
		query: URLSearchParams
	): void {
		const r = requireRepo();
		const api = apiBase(req);
		const p0 = params[0] ?? '';
		switch (route.name) {
			case 'competitions': {
				const filter = {
					dateFrom: parseDateParam('dateFrom', query.get('dateFrom')) ?? null,
					dateTo: parseDateParam('dateTo', query.get('dateTo')) ?? null,
					state: query.get('state')
				};
				const page = parsePage(query);
				const total = r.countCompetitions(filter);
				const rows = r.competitionPage(filter, page.size, page.page * page.size);
				const items = rows.map((c) => competitionResource(api, c, r.judges(c.id), r.rings(c.id)));
				sendHal(
					res,
					ctx,
					pagedEnvelope({
						href: `${api}/competitions`,
						params: [
							['dateFrom', filter.dateFrom ?? undefined],
							['dateTo', filter.dateTo ?? undefined],
							['state', filter.state ?? undefined]
						],
						page,
						total,
						collection: 'competitions',
						items
					})
				);
				return;
			}
			case 'competition': {
				const id = parseId('competitionId', p0);
				const c = r.competition(id);
				if (!c) throw notFound(`Competition ${id} not found`);
				sendHal(res, ctx, competitionResource(api, c, r.judges(id), r.rings(id)));
				return;
			}
			case 'runs': {
				const cid = parseId('competitionId', p0);
				const judgeId = parseIdParam('judgeId', query.get('judgeId')) ?? null;
				const ringId = parseIdParam('ringId', query.get('ringId')) ?? null;
				const page = parsePage(query);
				if (!r.competition(cid)) throw notFound(`Competition ${cid} not found`);
				const filter = { cid, judgeId, ringId };
				const total = r.countRuns(filter);
				const rows = r.runPage(filter, page.size, page.page * page.size);
				sendHal(
					res,
					ctx,
					pagedEnvelope({
						href: `${api}/competitions/${cid}/runs`,
						params: [
							['judgeId', judgeId === null ? undefined : String(judgeId)],
							['ringId', ringId === null ? undefined : String(ringId)]
						],
						page,
						total,
						collection: 'competitionRuns',
						items: rows.map((row) => runResource(api, row))
					})
				);
				return;
			}
			case 'next': {
				const cid = parseId('competitionId', p0);
				const ringId = parseId('ringId', params[1] ?? '');
				const page = parsePage(query);
				if (!r.competition(cid)) throw notFound(`Competition ${cid} not found`);
				if (!r.ring(cid, ringId)) throw notFound(`Ring ${ringId} not found in competition ${cid}`);
				const total = r.countNext(cid, ringId);
				const rows = r.nextPage(cid, ringId, page.size, page.page * page.size);
				sendHal(
					res,
					ctx,
					pagedEnvelope({
						href: `${api}/competitions/${cid}/nextDogRunsForRing/${ringId}`,
						params: [],
						page,
						total,
						collection: 'dogRuns',
						items: dogRunsWithRuns(api, rows)
					})
				);
				return;
			}
			case 'run': {
				const run = runOrThrow(parseId('runId', p0));
				sendHal(res, ctx, runResource(api, run), etagOn ? { ETag: runEtag(run) } : {});
				return;
			}
			case 'dogRuns': {
				const id = parseId('runId', p0);
				const page = parsePage(query);
				const run = runOrThrow(id);
				const total = r.countDogRuns(id);
				const rows = r.dogRunPage(id, page.size, page.page * page.size);
				sendHal(
					res,
					ctx,
					pagedEnvelope({
						href: `${api}/competitionRuns/${id}/dogRuns`,
						params: [],
						page,
						total,
						collection: 'dogRuns',
						items: rows.map((d) => dogRunResource(api, d, run))
					})
				);
				return;
			}
			case 'dogRun': {
				const id = parseId('runId', p0);
				const d = r.dogRun(id);
				if (!d) throw notFound(`Dog run ${id} not found`);
				const run = runOrThrow(d.competition_run_id);
				sendHal(res, ctx, dogRunResource(api, d, run), etagOn ? { ETag: dogRunEtag(d) } : {});
				return;
			}
		}
		throw notFound('No such resource');
	}

	async function handlePut(
		route: Route,
		params: string[],
		req: IncomingMessage,
		res: ServerResponse,
		ctx: RequestContext,
		info: PutInfo
	): Promise<void> {
		const r = requireRepo();
		const api = apiBase(req);
		info.kind = route.name === 'run' ? 'competitionRun' : 'dogRun';
		const body = await readBody(req);
		if (body.tooLarge) {
			info.body = null;
			throw tooLargeError();
		}
		info.body = body.buf.toString('utf8');
		const id = parseId('runId', params[0] ?? '');
		info.id = id;
		if (!isJsonContentType(req.headers['content-type'])) {
			throw new HttpError(
				415,
				`Content-Type must be application/json, got '${req.headers['content-type'] ?? ''}'`
			);
		}
		const json = parseJsonObject(info.body);
		const ifMatch = req.headers['if-match'];
		const db0 = r.db;
		if (route.name === 'dogRun') {
			const current = r.dogRun(id);
			if (!current) throw notFound(`Dog run ${id} not found`);
			if (etagOn && ifMatch && !etagMatches(ifMatch, dogRunEtag(current))) {
				throw new HttpError(
					412,
					`If-Match ${ifMatch} does not match the current version ${dogRunEtag(current)}`
				);
			}
			const patch = validateDogRunPatch(json);
			const updated = db0.transaction(() => {
				r.updateDogRun(current, patch);
				return r.dogRun(id);
			})();
			if (!updated) throw notFound(`Dog run ${id} not found`);
			const run = runOrThrow(updated.competition_run_id);
			sendHal(
				res,
				ctx,
				dogRunResource(api, updated, run),
				etagOn ? { ETag: dogRunEtag(updated) } : {}
			);
			ctx.summary = `updated dogRun ${id} to version ${updated.version}`;
			return;
		}
		const current = r.run(id);
		if (!current) throw notFound(`Competition run ${id} not found`);
		if (etagOn && ifMatch && !etagMatches(ifMatch, runEtag(current))) {
			throw new HttpError(
				412,
				`If-Match ${ifMatch} does not match the current version ${runEtag(current)}`
			);
		}
		const patch = validateCompetitionRunPatch(json);
		const st = patch.standardTimeMs ?? current.standard_time_ms;
		const mt = patch.maximalTimeMs ?? current.maximal_time_ms;
		if (mt < st) {
			throw badRequest(
				`Field 'maximalTime' (${mt / 1000}) must be greater than or equal to 'standardTime' (${st / 1000})`
			);
		}
		const updated = db0.transaction(() => {
			r.updateRun(current, patch);
			return r.run(id);
		})();
		if (!updated) throw notFound(`Competition run ${id} not found`);
		sendHal(res, ctx, runResource(api, updated), etagOn ? { ETag: runEtag(updated) } : {});
		ctx.summary = `updated competitionRun ${id} to version ${updated.version}`;
	}

	// ---- CORS ---------------------------------------------------------------------------------

	/** Adds CORS headers for an allowed Origin; returns whether the origin is allowed. */
	function applyCors(req: IncomingMessage, res: ServerResponse): boolean {
		const origin = req.headers.origin;
		if (!origin || cors.length === 0) return false;
		if (!cors.includes('*') && !cors.includes(origin)) return false;
		res.setHeader('Access-Control-Allow-Origin', origin);
		res.setHeader('Vary', 'Origin');
		res.setHeader('Access-Control-Expose-Headers', 'ETag');
		return true;
	}

	// ---- dispatch -----------------------------------------------------------------------------

	async function handleApi(
		req: IncomingMessage,
		res: ServerResponse,
		ctx: RequestContext,
		pathname: string,
		search: string
	): Promise<void> {
		const method = req.method ?? 'GET';
		const allowed = applyCors(req, res);
		const isPreflight =
			method === 'OPTIONS' &&
			req.headers.origin !== undefined &&
			req.headers['access-control-request-method'] !== undefined;
		if (latency > 0) await sleep(latency);
		if (isPreflight) {
			if (!allowed) {
				sendError(res, ctx, pathname, 403, `Origin ${req.headers.origin} is not allowed`);
				return;
			}
			answer(
				res,
				ctx,
				204,
				{
					'Access-Control-Allow-Methods': 'GET, PUT, OPTIONS',
					'Access-Control-Allow-Headers': 'Content-Type, If-Match, Accept',
					'Access-Control-Max-Age': '600',
					'Content-Length': '0'
				},
				''
			);
			return;
		}

		if (upstream) {
			const body =
				method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? null : await readBody(req);
			if (body?.tooLarge) throw tooLargeError();
			const base = requestBase(req);
			const url = new URL(base.origin);
			const upstreamAnswer = await forward(
				req,
				pathname + search,
				body?.buf ?? null,
				{ upstream, timeoutMs: upstreamTimeoutMs },
				{
					proto: url.protocol.replace(':', ''),
					host: url.host,
					prefix: base.prefix,
					origin: base.origin
				}
			);
			answer(
				res,
				ctx,
				upstreamAnswer.status,
				{ ...upstreamAnswer.headers, 'Content-Length': upstreamAnswer.body.length },
				upstreamAnswer.body
			);
			return;
		}

		const query = new URLSearchParams(search);
		let route: Route | undefined;
		let match: RegExpExecArray | null = null;
		for (const candidate of ROUTES) {
			match = candidate.re.exec(pathname);
			if (match) {
				route = candidate;
				break;
			}
		}
		const info: PutInfo = { kind: null, id: null, body: null };
		if (method === 'PUT') ctx.put = withSender(info, req);
		if (!route || !match) throw notFound(`No resource at ${pathname}`);
		const params = match.slice(1);
		const allow = allowHeader(route.methods);
		if (method === 'OPTIONS') {
			answer(res, ctx, 204, { Allow: allow, 'Content-Length': '0' }, '');
			return;
		}
		const effective = method === 'HEAD' ? 'GET' : method;
		if (!route.methods.includes(effective)) {
			throw new HttpError(405, `Method ${method} is not allowed on ${pathname}`, { Allow: allow });
		}
		if (effective === 'GET') handleGet(route, params, req, res, ctx, query);
		else await handlePut(route, params, req, res, ctx, info);
	}

	function logPut(ctx: RequestContext, method: string, path: string): void {
		const info = ctx.put;
		if (!info || !db?.open) return;
		try {
			appendPutLog(db, {
				at: new Date().toISOString(),
				method,
				path,
				resourceKind: info.kind,
				resourceId: info.id,
				requestBody: info.body,
				status: ctx.status ?? 0,
				responseSummary: ctx.summary ?? null,
				fault: ctx.fault ?? null,
				ifMatch: info.ifMatch ?? null,
				client: info.client ?? null
			});
		} catch (e) {
			logError(
				JSON.stringify({
					ts: new Date().toISOString(),
					msg: 'put_log append failed',
					error: String(e)
				})
			);
		}
	}

	/** Notes who sent a PUT and on what condition (the same object is filled in as it is handled). */
	function withSender(info: PutInfo, req: IncomingMessage): PutInfo {
		info.ifMatch = req.headers['if-match'] ?? null;
		info.client = req.headers['user-agent'] ?? null;
		return info;
	}

	/** Resource kind and id of a PUT path, for put_log rows of requests that are not handled. */
	function putTarget(pathname: string): PutInfo {
		const info: PutInfo = { kind: null, id: null, body: null };
		for (const route of ROUTES) {
			const m = route.re.exec(pathname);
			if (!m) continue;
			if (route.name === 'run') info.kind = 'competitionRun';
			else if (route.name === 'dogRun') info.kind = 'dogRun';
			const id = m[1] ?? '';
			if (info.kind && /^\d{1,15}$/.test(id)) info.id = Number(id);
			break;
		}
		return info;
	}

	/**
	 * Applies the fault decided for one /api request, before it touches the database. Returns true
	 * when the request is finished (dropped or answered 503); false to handle it normally.
	 */
	async function injectFault(
		req: IncomingMessage,
		res: ServerResponse,
		ctx: RequestContext,
		pathname: string,
		decision: FaultDecision
	): Promise<boolean> {
		if (req.method === 'PUT') ctx.put = withSender(putTarget(pathname), req);
		if (decision.kind === 'unreachable') {
			counts.unreachable++;
			ctx.fault = 'unreachable';
			ctx.status = 0;
			resetConnection(req);
			return true;
		}
		if (decision.delayMs > 0) {
			counts.delayed++;
			await sleep(decision.delayMs);
		}
		if (decision.kind === 'reset-after') {
			ctx.dropAnswer = true;
			return false;
		}
		if (decision.kind === 'none') return false;
		// 503 and reset-before: the PUT body is read for put_log only, never applied.
		let closeAfter = false;
		if (ctx.put) {
			const body = await readBody(req);
			closeAfter = body.tooLarge;
			ctx.put.body = body.tooLarge ? null : body.buf.toString('utf8');
		}
		if (decision.kind === '503') {
			counts.error503++;
			ctx.fault = '503';
			sendError(
				res,
				ctx,
				pathname,
				503,
				'The service is temporarily unavailable (injected fault); retry later',
				closeAfter ? { 'Retry-After': '1', Connection: 'close' } : { 'Retry-After': '1' }
			);
			return true;
		}
		counts.resetBefore++;
		ctx.fault = 'reset-before';
		ctx.status = 0;
		resetConnection(req);
		return true;
	}

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const t0 = performance.now();
		const ctx: RequestContext = {};
		const raw = req.url ?? '/';
		const q = raw.indexOf('?');
		const pathname = q >= 0 ? raw.slice(0, q) : raw;
		const search = q >= 0 ? raw.slice(q) : '';
		if (!options.quiet) {
			// 'close' also fires when the connection was dropped (injected faults, client aborts).
			res.once('close', () => {
				const line: Record<string, unknown> = {
					ts: new Date().toISOString(),
					method: req.method,
					path: pathname,
					status: res.writableFinished ? res.statusCode : (ctx.status ?? 0),
					ms: Math.round((performance.now() - t0) * 10) / 10
				};
				if (ctx.traceId) line.traceId = ctx.traceId;
				if (ctx.fault) line.fault = ctx.fault;
				log(JSON.stringify(line));
			});
		}
		try {
			if (pathname === '/api' || pathname.startsWith('/api/')) {
				const decision = decideFault(faults);
				const finished =
					(decision.kind !== 'none' || decision.delayMs > 0) &&
					(await injectFault(req, res, ctx, pathname, decision));
				if (!finished) await handleApi(req, res, ctx, pathname, search);
			} else if (staticHandler) {
				const method = req.method ?? 'GET';
				if (method !== 'GET' && method !== 'HEAD') {
					throw new HttpError(405, `Method ${method} is not allowed on ${pathname}`, {
						Allow: 'GET, HEAD'
					});
				}
				staticHandler(req, res, () => {
					sendError(res, ctx, pathname, 404, `No file at ${pathname}`);
				});
			} else {
				throw notFound(`No resource at ${pathname}`);
			}
		} catch (e) {
			if (res.headersSent) {
				res.destroy();
				return;
			}
			if (e instanceof HttpError) {
				sendError(res, ctx, pathname, e.status, e.message, e.headers);
			} else {
				sendError(res, ctx, pathname, 500, 'Internal server error; see the service log');
				logError(
					JSON.stringify({
						ts: new Date().toISOString(),
						level: 'error',
						method: req.method,
						path: pathname,
						traceId: ctx.traceId,
						error: e instanceof Error ? e.stack : String(e)
					})
				);
			}
		}
		logPut(ctx, req.method ?? 'GET', pathname + search);
	}

	// Requests being handled: a shutdown lets them finish (up to a limit) before the database closes.
	const inFlight = new Set<Promise<void>>();
	const server: Server = createServer((req, res) => {
		const handling = handle(req, res).finally(() => inFlight.delete(handling));
		inFlight.add(handling);
	});
	server.keepAliveTimeout = 5000;

	const host = options.host ?? '127.0.0.1';
	await new Promise<void>((resolveListen, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolveListen();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const shownHost =
		host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

	let closed = false;
	return {
		url: `http://${shownHost}:${port}/`,
		port,
		db,
		seeded,
		setFaults,
		faultCounts: () => ({ ...counts }),
		async close() {
			if (closed) return;
			closed = true;
			const stopped = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
			server.closeIdleConnections();
			// Let requests already being handled answer (a PUT is applied and answered, or not at all).
			await Promise.race([
				Promise.allSettled([...inFlight]),
				new Promise((resolveWait) => setTimeout(resolveWait, SHUTDOWN_GRACE_MS))
			]);
			server.closeAllConnections();
			await stopped;
			db?.close();
		}
	};
}
