// The shape of a route of the local API: its path pattern, the resource a PUT on it changes, who
// may call each method, and its handlers with what they are given.
import type { Access, Auth, Caller } from '../auth/auth.ts';
import { found } from '../http/errors.ts';
import type { Exchange } from '../middleware/exchange.ts';
import type { Etags } from '../middleware/etag.ts';
import type { Push } from '../push/push.ts';
import { Repository } from '../store/repository.ts';
import type { Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';
import type { Timers } from '../timer/timer.ts';
import type { ChangeRecorder, RingRef, Writable } from '../changes/commit-change.ts';

export type { RingRef };

/** What a handler is given besides the exchange. */
export interface RouteCall {
	/** The queries of a GET, on one snapshot; elsewhere on the store's connection. */
	repo: Repository;
	/** The data (a change runs in `write`, not in `store.write`). */
	store: Store;
	/**
	 * Runs a change in one transaction (as `store.write`) that first confirms the caller's device
	 * was not revoked meanwhile (401), and in which a PUT's `logApplied` row counts as the PUT's
	 * once committed.
	 */
	write: Store['write'];
	etags: Etags;
	/** The push channel; null when it is off. */
	push: Push | null;
	/** The timer bridge; null when no timer is configured. */
	timers: Timers | null;
	/**
	 * Base of the API (…/api/v1) to build links on: API_BASE (hal.ts), which `etags.send` turns
	 * into the absolute base the client used.
	 */
	api: string;
	/** The path parameters, in the order of the pattern's groups. */
	params: string[];
	query: URLSearchParams;
	/** Who may do what; `caller` is who sent this request. */
	auth: Auth;
	caller: Caller;
	/** Mirror mode: records each accepted change for the upstream (null otherwise). */
	recordChange: ChangeRecorder | null;
}

/**
 * A PUT handler is given the resource id, the JSON object of the body, and `logApplied`, which it
 * calls inside the transaction of its `write` with the summary of what it did: the PUT log row is
 * stored with the change or not at all, and counts as the PUT's row only once `write` committed.
 */
export interface PutCall extends RouteCall {
	id: number;
	json: Record<string, unknown>;
	logApplied: (sql: Sql, summary: string) => Promise<void>;
}

/** A POST is given the JSON object of its body. */
export interface PostCall extends RouteCall {
	json: Record<string, unknown>;
}

/** A DELETE is given the resource id. */
export interface DeleteCall extends RouteCall {
	id: number;
}

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface Route {
	re: RegExp;
	/** The resource a PUT on this route changes (put_log's resource_kind). */
	kind?: 'competitionRun' | 'dogRun' | 'device' | 'publication' | 'checkIn';
	/** The name of the path id in messages (default 'runId'). */
	idName?: string;
	/** Its GET answers a page (`page`, `size`): the read budget expects a page's items. */
	paged?: boolean;
	/**
	 * The versioned resource a PUT on this route changes (a result, a course): the router reads it
	 * once, checks the steward's ring and If-Match against it before the body, and commits the
	 * change (server/changes). Routes that write otherwise (a device) have `put`.
	 */
	writes?: Writable<unknown>;
	/** What each method asks of its caller (default: GET `read`, PUT `write`, others `secretary`). */
	access?: Partial<Record<Method, Access>>;
	get?: (ex: Exchange, call: RouteCall) => Promise<void>;
	put?: (ex: Exchange, call: PutCall) => Promise<void>;
	post?: (ex: Exchange, call: PostCall) => Promise<void>;
	delete?: (ex: Exchange, call: DeleteCall) => Promise<void>;
}

const DEFAULT_ACCESS: Record<Method, Access> = {
	GET: 'read',
	PUT: 'write',
	POST: 'secretary',
	DELETE: 'secretary'
};

/**
 * What a request asks of its caller: its route's access for the method, else the default for
 * the method; for a path without a route, or a method it does not have, `read` (GET, HEAD) or
 * `member` (anything else), so that nobody without a credential learns which paths exist.
 */
export function accessOf(route: Route | null, method: string): Access {
	const m = (method === 'HEAD' ? 'GET' : method) as Method;
	if (route && handles(route, m)) return route.access?.[m] ?? DEFAULT_ACCESS[m];
	return m === 'GET' ? 'read' : 'member';
}

/** Whether the route has a handler for `method`. */
export function handles(route: Route, method: string): boolean {
	switch (method) {
		case 'GET':
			return route.get !== undefined;
		case 'PUT':
			return route.put !== undefined || route.writes !== undefined;
		case 'POST':
			return route.post !== undefined;
		case 'DELETE':
			return route.delete !== undefined;
		default:
			return false;
	}
}

export { found };
