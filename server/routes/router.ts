// The local API's route table and dispatch: matching a path, OPTIONS and 405 answers, HEAD as
// GET, who may call (auth.ts: 401 and 403 before anything is read), and the reading of a PUT's
// JSON body (noted in put_log) before its resource's handler.
import type { Auth } from '../auth.ts';
import { methodNotAllowed, notFound } from '../errors.ts';
import { API_BASE, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../hal.ts';
import { readBody, requireJsonContentType, tooLargeError } from '../middleware/body.ts';
import type { Etags } from '../middleware/etag.ts';
import { answer, type Exchange, type PutInfo } from '../middleware/exchange.ts';
import { beginPut, type PutLog } from '../middleware/put-log.ts';
import { BudgetRefusal, type ReadBudget, type Settle } from '../middleware/read-budget.ts';
import type { Push } from '../push.ts';
import { Repository } from '../resources.ts';
import type { Store } from '../store/store.ts';
import type { Timers } from '../timer.ts';
import type { Sql } from '../store/sql.ts';
import { checkRequestTarget, parseId, parseJsonObject, storedId, utf8Text } from '../validation.ts';
import { changesRoute } from './changes.ts';
import { competitionRoutes } from './competitions.ts';
import { deviceRoutes } from './devices.ts';
import { dogRunRoutes } from './dog-runs.ts';
import { accessOf, handles, type Method, type Route, type RouteCall } from './route.ts';
import { runRoutes } from './runs.ts';
import { timerRoute } from './timer.ts';

const ROUTES: Route[] = [...competitionRoutes, ...runRoutes, ...dogRunRoutes, ...deviceRoutes];

interface Match {
	route: Route;
	params: string[];
}

function match(pathname: string, routes: Route[] = ROUTES): Match | null {
	for (const route of routes) {
		const m = route.re.exec(pathname);
		if (m) return { route, params: m.slice(1) };
	}
	return null;
}

const METHODS: Method[] = ['GET', 'PUT', 'POST', 'DELETE'];

const methodsOf = (route: Route): string[] => METHODS.filter((m) => handles(route, m));

const allowHeader = (methods: string[]): string =>
	[...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');

/**
 * The methods a CORS preflight allows on a path: those of its route where it has POST or DELETE
 * (the device endpoints), else GET and PUT, as always.
 */
export function preflightMethods(pathname: string): string {
	const found = match(pathname);
	const methods = found ? methodsOf(found.route) : [];
	if (!methods.includes('POST') && !methods.includes('DELETE')) return 'GET, PUT, OPTIONS';
	return [...methods, 'OPTIONS'].join(', ');
}

/** The page size a paged read asks for (its `size`, clamped; the default without one). */
function pageSizeOf(query: URLSearchParams): number {
	const size = Number(query.get('size') ?? DEFAULT_PAGE_SIZE);
	return Number.isInteger(size) && size >= 1 ? Math.min(size, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}

/** Resource kind and id of a PUT path, for put_log rows of requests that are not handled. */
export function putTarget(pathname: string): PutInfo {
	const info: PutInfo = { kind: null, id: null, body: null };
	const found = match(pathname);
	if (!found) return info;
	info.kind = found.route.kind ?? null;
	if (info.kind) info.id = storedId(found.params[0] ?? '');
	return info;
}

/** What the router needs besides the data: the PUT log and the check before each write. */
export interface WriteGuards {
	putLog: PutLog;
	/** Throws (507) when a write must be refused before its body is read. */
	beforeWrite: () => void;
	/** The read budget per client (null: none). */
	readBudget: ReadBudget | null;
}

/**
 * Returns the handler of /api requests answered from the database. The changes streams of the
 * push channel exist only when `push` is given, the timer streams only when `timers` is.
 */
export function createApiRouter(
	store: Store,
	etags: Etags,
	push: Push | null,
	guards: WriteGuards,
	timers: Timers | null,
	auth: Auth
): (ex: Exchange) => Promise<void> {
	const routes = [...ROUTES, ...(push ? [changesRoute] : []), ...(timers ? [timerRoute] : [])];
	const repo = new Repository(store.sql);
	// Qualified by its competition where the name alone is ambiguous.
	const ringName = async (id: number): Promise<string> =>
		(await repo.ringLabel(id)) ?? `ring ${id}`;
	return async (ex) => {
		const method = ex.req.method ?? 'GET';
		const query = new URLSearchParams(ex.search);
		const found = match(ex.pathname, routes);
		const put = method === 'PUT' ? beginPut(ex) : null;
		const caller = (ex.caller ??= await auth.identify(ex));
		// Who may call comes first: without a credential nothing is read, not even a body, and
		// nothing tells which paths exist (OPTIONS included; CORS preflights are answered before).
		auth.authorize(ex, caller, accessOf(found?.route ?? null, method));
		// Text no database stores is bad input, whatever the route (a PUT is logged with its 400).
		checkRequestTarget(ex.pathname, ex.search);
		if (!found) throw notFound(`No resource at ${ex.pathname}`);
		if (method === 'OPTIONS') {
			answer(ex, 204, { Allow: allowHeader(methodsOf(found.route)), 'Content-Length': '0' }, '');
			return;
		}
		const { route, params } = found;
		const methods = methodsOf(route);
		const effective = method === 'HEAD' ? 'GET' : method;
		if (!methods.includes(effective)) {
			throw methodNotAllowed(method, ex.pathname, allowHeader(methods));
		}
		// The row a PUT's change writes with it is its row once its transaction committed.
		let logged: number | null = null;
		const write: Store['write'] = async (fn) => {
			logged = null;
			const result = await store.write(async (sql) => {
				// A device revoked while its request was on its way (a slow upload) writes nothing.
				await auth.confirm(ex, caller, sql);
				return fn(sql);
			});
			if (put && logged !== null) put.loggedRow = logged;
			return result;
		};
		const call: RouteCall = {
			repo,
			store,
			write,
			etags,
			push,
			timers,
			api: API_BASE,
			params,
			query,
			auth,
			caller
		};
		const idOf = (): number => parseId(route.idName ?? 'runId', params[0] ?? '');
		if (effective === 'GET') {
			// Admitted with what it may answer taken from the budget at once (a page: its size), so
			// that concurrent reads of a client each see those admitted before them; settled with
			// what it answered (several instances each keep their own budgets). Event streams are
			// not reads.
			const stream = route === changesRoute || route === timerRoute;
			const budget = stream ? null : guards.readBudget;
			let settle: Settle | undefined;
			try {
				settle = budget?.admit(ex, route.paged ? pageSizeOf(query) : 1);
			} catch (e) {
				// A client that keeps asking while refused waits for its next 429 (no connection held).
				if (budget && e instanceof BudgetRefusal) await budget.refuse(e);
				throw e;
			}
			// A revoked device's streams are closed at once.
			if (stream) auth.watchStream(caller, ex);
			// A conditional read whose cached tag is current and matches: 304, nothing read. The
			// store says which data version is current (another instance may have changed the
			// data); the answer built is tagged with the version of its own snapshot.
			const conditional = !stream && etags.on && ex.req.headers['if-none-match'] !== undefined;
			if (stream) {
				// Not on a snapshot: a stream may wait (push: for its Last-Event-ID), and must not
				// hold a pooled connection meanwhile. Its few reads each take one briefly.
				await route.get?.(ex, call);
			} else {
				try {
					const cached = conditional && etags.answerCached(ex, await store.feed.committedSeq());
					if (!cached) {
						await store.read(async (sql, version) => {
							// The data version of this snapshot (taken by its first statement, in this
							// step): a write committed while the answer is built (a long list takes
							// turns of the event loop) must not be taken as shown in it.
							if (etags.on) ex.dataVersion = version;
							await route.get?.(ex, { ...call, repo: new Repository(sql) });
						});
						// A long list is serialised after its snapshot is released (etag.ts).
						if (ex.answering) await ex.answering;
					}
				} catch (e) {
					settle?.(null);
					throw e;
				}
				settle?.(ex.items ?? 1);
			}
		} else if (effective === 'PUT' && route.put && put) {
			// Before the body is read: a full disk, the resource (and a steward's ring), If-Match.
			put.kind = route.kind ?? null;
			guards.beforeWrite();
			const id = idOf();
			put.id = id;
			const { ringOf } = route;
			if (ringOf) await auth.checkRing(caller, () => ringOf(repo, id), ringName);
			if (etags.on && ex.req.headers['if-match'] !== undefined && route.current) {
				etags.checkIfMatch(ex.req, await route.current(repo, id));
			}
			const logApplied = async (sql: Sql, summary: string): Promise<void> => {
				logged = await guards.putLog.logApplied(sql, ex, summary);
			};
			const json = await readPut(ex, put);
			// The store raises the data version (the tag cache, etag.ts) as the change commits.
			await route.put(ex, { ...call, id, logApplied, json });
		} else if (effective === 'POST' && route.post) {
			guards.beforeWrite();
			await route.post(ex, { ...call, json: await readJson(ex) });
		} else if (effective === 'DELETE' && route.delete) {
			// Not held back by a full disk: revoking a device must always work.
			await route.delete(ex, { ...call, id: idOf() });
		}
	};
}

/** Reads a PUT's body into put_log's row, then checks its type and parses its JSON. */
async function readPut(ex: Exchange, info: PutInfo): Promise<Record<string, unknown>> {
	const body = await readBody(ex.req);
	if (body.tooLarge) {
		info.body = null;
		const declared = Number(ex.req.headers['content-length']);
		info.bodyBytes = Number.isSafeInteger(declared) && declared > 0 ? declared : null;
		throw tooLargeError();
	}
	// The log keeps what it can store of any body (put-log.ts); the body itself must be UTF-8.
	info.body = body.buf.toString('utf8');
	info.bodyBytes = body.buf.length;
	requireJsonContentType(ex.req);
	return parseJsonObject(utf8Text(body.buf));
}

/** Checks a POST's type, then reads and parses its JSON body. */
async function readJson(ex: Exchange): Promise<Record<string, unknown>> {
	requireJsonContentType(ex.req);
	const body = await readBody(ex.req);
	if (body.tooLarge) throw tooLargeError();
	return parseJsonObject(utf8Text(body.buf));
}
