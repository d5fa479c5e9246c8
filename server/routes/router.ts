// The local API's steps of the request pipeline (pipeline.ts), in order: find the route a path
// names (a PUT's put_log row begins), authorize its caller (auth.ts: 401 and 403 before anything
// is read), check the request target (bad bytes, 404, OPTIONS, 405), the read budget of a read,
// and the dispatch to the route's handler (a GET from the tag cache or one snapshot, a PUT after
// the write guards with its JSON body noted in put_log, a POST, a DELETE).
import type { Auth } from '../auth/auth.ts';
import { commitChange, type ChangeRecorder } from '../changes/commit-change.ts';
import { methodNotAllowed, notFound } from '../http/errors.ts';
import { API_BASE, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/hal.ts';
import { readBody, requireJsonContentType, tooLargeError } from '../middleware/body.ts';
import type { Etags } from '../middleware/etag.ts';
import { answer, type Exchange, type PutInfo, type Step } from '../middleware/exchange.ts';
import { beginPut, type PutLog } from '../middleware/put-log.ts';
import { BudgetRefusal, type ReadBudget } from '../middleware/read-budget.ts';
import type { Push } from '../push/push.ts';
import { Repository } from '../store/repository.ts';
import type { Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';
import type { Timers } from '../timer/timer.ts';
import { checkRequestTarget, parseId, parseJsonObject, utf8Text } from '../validation.ts';
import { accessOf, type Route, type RouteCall } from './route.ts';
import { allowHeader, isStream, match, methodsOf, routesOf, type Found } from './table.ts';

/** The page size a paged read asks for (its `size`, clamped; the default without one). */
function pageSizeOf(query: URLSearchParams): number {
	const size = Number(query.get('size') ?? DEFAULT_PAGE_SIZE);
	return Number.isInteger(size) && size >= 1 ? Math.min(size, MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}

/** What the router needs besides the data: the PUT log and the check before each write. */
export interface WriteGuards {
	putLog: PutLog;
	/** Throws (507) when a write must be refused before its body is read. */
	beforeWrite: () => void;
	/** The read budget per client (null: none). */
	readBudget: ReadBudget | null;
}

export interface ApiParts {
	store: Store;
	etags: Etags;
	/** The push channel; its streams exist only when it is given. */
	push: Push | null;
	guards: WriteGuards;
	/** The timer bridge; its streams exist only when it is given. */
	timers: Timers | null;
	auth: Auth;
	/** Mirror mode: its routes (the secretary's Upstream screen) and its outbox's recorder. */
	mirror: { routes: Route[]; recordChange: ChangeRecorder } | null;
}

/** The local API's steps, in the order the pipeline runs them. */
export interface ApiSteps {
	findRoute: Step;
	authorize: Step;
	checkTarget: Step;
	readBudget: Step;
	dispatch: Step;
}

const effectiveMethod = (ex: Exchange): string => {
	const method = ex.req.method ?? 'GET';
	return method === 'HEAD' ? 'GET' : method;
};

/** The route `findRoute` found; the steps after `checkTarget` run only when there is one. */
const foundOf = (ex: Exchange): Found => {
	if (!ex.found) throw new Error(`No route found for ${ex.pathname}`);
	return ex.found;
};

export function createApiSteps(parts: ApiParts): ApiSteps {
	const { store, etags, push, guards, timers, auth, mirror } = parts;
	const routes = [...routesOf(push !== null, timers !== null), ...(mirror?.routes ?? [])];
	const repo = new Repository(store.sql);
	// Qualified by its competition where the name alone is ambiguous.
	const ringName = async (id: number): Promise<string> =>
		(await repo.ringLabel(id)) ?? `ring ${id}`;
	const budget = guards.readBudget;

	return {
		/** The route the path names; a PUT's put_log row begins (whatever is answered). */
		async findRoute(ex, next) {
			ex.found = match(ex.pathname, routes);
			if (ex.req.method === 'PUT') beginPut(ex);
			return next();
		},

		/**
		 * Who may call comes first: without a credential nothing is read, not even a body, and
		 * nothing tells which paths exist (OPTIONS included; CORS preflights are answered before).
		 */
		async authorize(ex, next) {
			ex.caller ??= await auth.identify(ex);
			auth.authorize(ex, ex.caller, accessOf(ex.found?.route ?? null, ex.req.method ?? 'GET'));
			return next();
		},

		/**
		 * Text no database stores is bad input, whatever the route (a PUT is logged with its 400);
		 * then 404 without a route, OPTIONS answered with the route's methods, 405 for another.
		 */
		async checkTarget(ex, next) {
			checkRequestTarget(ex.pathname, ex.search);
			if (!ex.found) throw notFound(`No resource at ${ex.pathname}`);
			const methods = methodsOf(ex.found.route);
			if (ex.req.method === 'OPTIONS') {
				answer(ex, 204, { Allow: allowHeader(methods), 'Content-Length': '0' }, '');
				return;
			}
			if (!methods.includes(effectiveMethod(ex))) {
				throw methodNotAllowed(ex.req.method ?? 'GET', ex.pathname, allowHeader(methods));
			}
			return next();
		},

		/**
		 * A read is admitted with what it may answer taken from the client's budget at once (a page:
		 * its size), so that concurrent reads of a client each see those admitted before them, and
		 * settled with what it answered (several instances each keep their own budgets). Event
		 * streams are not reads.
		 */
		async readBudget(ex, next) {
			const { route } = foundOf(ex);
			if (!budget || effectiveMethod(ex) !== 'GET' || isStream(route)) return next();
			let settle;
			try {
				const query = new URLSearchParams(ex.search);
				settle = budget.admit(ex, route.paged ? pageSizeOf(query) : 1);
			} catch (e) {
				// A client that keeps asking while refused waits for its next 429 (no connection held).
				if (e instanceof BudgetRefusal) await budget.refuse(e);
				throw e;
			}
			try {
				await next();
			} catch (e) {
				settle(null);
				throw e;
			}
			settle(ex.items ?? 1);
		},

		/** The route's handler for the method, given what it needs (RouteCall). */
		async dispatch(ex) {
			const { route, params } = foundOf(ex);
			const method = effectiveMethod(ex);
			const caller = ex.caller!;
			const put = ex.put ?? null;
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
				query: new URLSearchParams(ex.search),
				auth,
				caller,
				recordChange: mirror?.recordChange ?? null
			};
			const idOf = (): number => parseId(route.idName ?? 'runId', params[0] ?? '');
			if (method === 'GET' && isStream(route)) {
				// A revoked device's streams are closed at once. Not on a snapshot: a stream may wait
				// (push: for its Last-Event-ID), and must not hold a pooled connection meanwhile. Its
				// few reads each take one briefly.
				auth.watchStream(caller, ex);
				await route.get?.(ex, call);
			} else if (method === 'GET') {
				// A conditional read whose cached tag is current and matches: 304, nothing read. The
				// store says which data version is current (another instance may have changed the
				// data); the answer built is tagged with the version of its own snapshot.
				const conditional = etags.on && ex.req.headers['if-none-match'] !== undefined;
				if (conditional && etags.answerCached(ex, await store.feed.committedSeq())) return;
				await store.read(async (sql, version) => {
					// The data version of this snapshot (taken by its first statement, in this step):
					// a write committed while the answer is built (a long list takes turns of the
					// event loop) must not be taken as shown in it.
					if (etags.on) ex.dataVersion = version;
					await route.get?.(ex, { ...call, repo: new Repository(sql) });
				});
				// A long list is serialised after its snapshot is released (etag.ts).
				if (ex.answering) await ex.answering;
			} else if (method === 'PUT' && (route.writes || route.put) && put) {
				// Before the body is read: a full disk, the resource (and a steward's ring), If-Match.
				put.kind = route.kind ?? null;
				guards.beforeWrite();
				const id = idOf();
				put.id = id;
				const logApplied = async (sql: Sql, summary: string): Promise<void> => {
					logged = await guards.putLog.logApplied(sql, ex, summary);
				};
				const { writes } = route;
				if (writes) {
					const body: { json?: Record<string, unknown> } = {};
					const change = writes.change(API_BASE, id, () => {
						if (!body.json) throw new Error('a PUT body used before it was read');
						return body.json;
					});
					// One read of the resource, before the body when something is checked against it
					// (a steward's ring, If-Match: 404, 403 and 412 before the upload), else after it
					// (a malformed body is a 400 whether or not the resource exists).
					let current: unknown;
					const read = async () => (current ??= await change.read(repo));
					await auth.checkRing(caller, async () => writes.ringOf(repo, await read()), ringName);
					if (etags.on && ex.req.headers['if-match'] !== undefined) {
						etags.checkIfMatch(ex.req, change.versionOf(await read()));
					}
					body.json = await readPut(ex, put);
					// The store raises the data version (the tag cache, etag.ts) as the change commits.
					await commitChange(ex, { ...call, logApplied }, change, await read());
				} else {
					const json = await readPut(ex, put);
					await route.put?.(ex, { ...call, id, logApplied, json });
				}
			} else if (method === 'POST' && route.post) {
				guards.beforeWrite();
				await route.post(ex, { ...call, json: await readJson(ex) });
			} else if (method === 'DELETE' && route.delete) {
				// Not held back by a full disk: revoking a device must always work.
				await route.delete(ex, { ...call, id: idOf() });
			}
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
