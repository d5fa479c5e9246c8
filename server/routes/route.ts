// The shape of a route of the local API: its path pattern, the resource a PUT on it changes, and
// its GET and PUT handlers with what they are given.
import { notFound } from '../errors.ts';
import type { Exchange } from '../middleware/exchange.ts';
import type { Etags, Versioned } from '../middleware/etag.ts';
import type { Push } from '../push.ts';
import type { Repository } from '../resources.ts';
import type { Timers } from '../timer.ts';

/** What a handler is given besides the exchange. */
export interface RouteCall {
	repo: Repository;
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
}

/**
 * A PUT handler is given the resource id, the JSON object of the body, and `logApplied`, which it
 * calls inside the transaction of the change with the summary of what it did (the PUT log row is
 * stored with the change or not at all).
 */
export interface PutCall extends RouteCall {
	id: number;
	json: Record<string, unknown>;
	logApplied: (summary: string) => void;
}

export interface Route {
	re: RegExp;
	/** The resource a PUT on this route changes (put_log's resource_kind). */
	kind?: 'competitionRun' | 'dogRun';
	/** The stored version a PUT's If-Match is about (throws 404 when there is none). */
	current?: (repo: Repository, id: number) => Versioned;
	get?: (ex: Exchange, call: RouteCall) => void;
	put?: (ex: Exchange, call: PutCall) => void;
}

/** `row`, or a 404 "`what` not found" when there is none. */
export function found<T>(row: T | undefined, what: string): T {
	if (!row) throw notFound(`${what} not found`);
	return row;
}
