// Conditional requests (on with the `etag` option): the ETag of every GET answer of the local API,
// If-None-Match (304) on GET and HEAD, and If-Match (412) on PUT.
//
// A tag is computed on the answer's template (hal.ts: its links on BASE_MARK), so it changes
// whenever anything shown changes (a run's derived `progress`, the run embedded in a dog run, a
// list's items and paging) and is the same through every address of the service. The tag of a
// dog run or a competition run also names its stored version, which If-Match is about.
//
// The tag cache makes a 304 cheap: each tag answered to a GET or HEAD is kept under its request
// key (see `cacheKeyOf`) with the data version of the snapshot it was built from (`ex.dataVersion`,
// the store's: every accepted change raises it), so a conditional read whose entry is current and
// whose If-None-Match matches is answered 304 before the database is read (`answerCached`). Small GET
// answers are kept with their tag: after a change, the first poller's read builds the new answer
// and every other poller (an older tag in If-None-Match) gets the kept one, not another build.
//
// Long because the tag, the list template (a long list tagged without building it twice) and the
// tag cache with its bounds are one mechanism: a 304 is right only when the three agree.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http/errors.ts';
import { apiBase, renderBase, stringifyHal } from '../http/hal.ts';
import { sendHalText, sendNotModified, type Exchange } from './exchange.ts';

/** A resource that PUT changes, at its stored version (raised by every accepted PUT). */
export interface Versioned {
	kind: 'dogRun' | 'competitionRun' | 'publication';
	id: number;
	version: number;
}

/** Decimal digits of the representation hash at the end of a versioned tag. */
const HASH_DIGITS = 12;

function hashDigits(text: string): string {
	const n = createHash('sha256').update(text).digest().readUIntBE(0, 6);
	return String(n % 10 ** HASH_DIGITS).padStart(HASH_DIGITS, '0');
}

/**
 * `"dogRun-<id>-<version><12 hash digits>"` for a versioned resource (digits only after the id,
 * so clients that expect `"dogRun-<id>-<n>"` keep working), `"h-<hash>"` for anything else.
 */
export function etagOf(template: string, versioned?: Versioned): string {
	if (versioned) {
		const { kind, id, version } = versioned;
		return `"${kind}-${id}-${version}${hashDigits(template)}"`;
	}
	return `"h-${createHash('sha256').update(template).digest('base64url').slice(0, 27)}"`;
}

/** Items of a list serialised in one step; a longer list takes a turn of the event loop after each. */
export const LIST_CHUNK_ITEMS = 200;

/** Stands for a list's items in its envelope's text while they are serialised in steps. */
const ITEMS_MARK = `@@items${randomBytes(4).toString('hex')}@@`;

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * The template of a paged envelope (as `stringifyHal(value)` gives it, character for character),
 * serialised a chunk of LIST_CHUNK_ITEMS items at a time with a turn of the event loop between
 * chunks (a 2,000-row list is several milliseconds of JSON: a steward's PUT must not wait behind
 * it), and its `"h-…"` tag hashed as it goes. Null when the value is not a list of that many.
 */
export async function listTemplate(
	value: unknown
): Promise<{ parts: string[]; tag: string } | null> {
	const embedded = (value as { _embedded?: Record<string, unknown> } | null)?._embedded;
	if (typeof embedded !== 'object' || embedded === null) return null;
	const keys = Object.keys(embedded);
	const items = keys.length === 1 ? embedded[keys[0]!] : undefined;
	if (!Array.isArray(items) || items.length <= LIST_CHUNK_ITEMS) return null;
	const envelope = stringifyHal({
		...(value as object),
		_embedded: { [keys[0]!]: ITEMS_MARK }
	});
	const at = envelope.indexOf(`"${ITEMS_MARK}"`);
	const hash = createHash('sha256');
	const parts: string[] = [];
	const add = (part: string): void => {
		hash.update(part);
		parts.push(part);
	};
	add(envelope.slice(0, at) + '[');
	for (let i = 0; i < items.length; i += LIST_CHUNK_ITEMS) {
		await nextTurn();
		const chunk = stringifyHal(items.slice(i, i + LIST_CHUNK_ITEMS));
		add((i === 0 ? '' : ',') + chunk.slice(1, -1));
	}
	add(']' + envelope.slice(at + ITEMS_MARK.length + 2));
	return { parts, tag: `"h-${hash.digest('base64url').slice(0, 27)}"` };
}

/**
 * The entity-tags of an If-Match or If-None-Match field (`*` as itself); a weak tag keeps its
 * `W/` unless `weak` comparison drops it.
 */
function tagsOf(field: string, weak: boolean): string[] {
	if (field.trim() === '*') return ['*'];
	return [...field.matchAll(/(W\/)?("[^"]*")/g)].map((m) =>
		weak ? (m[2] ?? '') : `${m[1] ?? ''}${m[2] ?? ''}`
	);
}

/**
 * If-None-Match per RFC 9110 13.1.2, weak comparison: true when it matches the current tag
 * (or is `*`, as the resource exists), so that a GET or HEAD is answered 304.
 */
export function noneMatchHits(field: string | undefined, current: string): boolean {
	if (field === undefined) return false;
	return tagsOf(field, true).some((t) => t === '*' || t === current);
}

/**
 * If-Match: true when a tag names the current stored version of the resource, whatever its
 * representation hash. A dog run's representation embeds its run, whose `progress` changes with
 * every result of the run; a strict comparison would make each result a conflict for every other
 * dog of that run, though none of the fields a PUT writes changed. Strong comparison (RFC 9110
 * 13.1.1): a weak `W/` tag never matches.
 */
export function matchHits(field: string, current: Versioned): boolean {
	const prefix = `"${current.kind}-${current.id}-${current.version}`;
	const rest = new RegExp(`^\\d{${HASH_DIGITS}}"$`);
	return tagsOf(field, false).some(
		(t) => t === '*' || (t.startsWith(prefix) && rest.test(t.slice(prefix.length)))
	);
}

/** How many items a representation carries: those of its `_embedded` lists, else 1. */
function itemsOf(value: unknown): number {
	const embedded = (value as { _embedded?: unknown } | null)?._embedded;
	if (typeof embedded !== 'object' || embedded === null) return 1;
	let n = 0;
	for (const list of Object.values(embedded)) if (Array.isArray(list)) n += list.length;
	return Math.max(1, n);
}

/** Request keys whose tags the cache keeps (least recently used ones are dropped first). */
export const TAG_CACHE_MAX_KEYS = 10_000;
/** Longer request keys (a huge query) are not cached, so the cache's memory stays bounded. */
const MAX_KEY_LENGTH = 2048;

/** Answers at most this long are kept with their tag (a list page of 20 is a few KB). */
export const BODY_CACHE_MAX_BYTES = 256 * 1024;
/** All kept answers together. */
export const BODY_CACHE_TOTAL_BYTES = 16 * 1024 * 1024;

interface CachedTag {
	/** The data version the tag was computed at (of the snapshot its answer was read in). */
	version: number;
	tag: string;
	/** Items of the answer, charged to the read budget as for a built one. */
	items: number;
	/**
	 * The answer as sent (links rendered on the key's base), kept while it is small enough and
	 * the total allows: a conditional read with an older tag gets it without a database read.
	 */
	body?: string;
}

const isRead = (method: string | undefined): boolean => method === 'GET' || method === 'HEAD';

/**
 * What a representation depends on besides the data: the method, the full request target (path
 * and query), the absolute API base its links are rendered on (Host, X-Forwarded-Proto, -Host
 * and -Prefix; the socket's address without a Host), and the caller's role (the root links the
 * secretary to the devices). Accept is not negotiated. Null when the key is too long to keep.
 */
function cacheKeyOf(ex: Exchange): string | null {
	const role = ex.caller?.role ?? '-';
	const key = `${ex.req.method ?? ''} ${role} ${apiBase(ex.req)} ${ex.req.url ?? ''}`;
	return key.length <= MAX_KEY_LENGTH ? key : null;
}

export interface Etags {
	readonly on: boolean;
	/**
	 * Answers `value` (a representation built on API_BASE) with 200 and its ETag, or with 304 to
	 * a GET or HEAD whose If-None-Match matches. Returns the text built on API_BASE. The tag of a
	 * GET or HEAD read at a data version (`ex.dataVersion`) is kept in the tag cache. `template`:
	 * the value's text on API_BASE when the caller has it already (`stringifyHal(value)`).
	 */
	send(ex: Exchange, value: unknown, versioned?: Versioned, template?: string): string;
	/**
	 * Answers a paged envelope as `send` does; a long one is serialised in steps after the
	 * handler's read (`ex.answering`, which the router awaits once the snapshot is released), so
	 * that neither the database nor the event loop is held by it for long.
	 */
	sendList(ex: Exchange, value: unknown): void;
	/**
	 * Answers a conditional GET or HEAD from the cache entry of its request key, when that entry
	 * was built at the current data version (`current`, the store's): 304 when If-None-Match
	 * names its tag, else 200 with the kept answer (a GET's, when it was small enough to keep).
	 * True when it answered (nothing read or serialised, `ex.items` set as the built answer had
	 * it). False: build the answer as usual.
	 */
	answerCached(ex: Exchange, current: number): boolean;
	/** Throws 412 when ETags are on and the request's If-Match does not name `current`. */
	checkIfMatch(req: IncomingMessage, current: Versioned): void;
}

export function createEtags(on: boolean, maxKeys = TAG_CACHE_MAX_KEYS): Etags {
	// A Map iterates in insertion order: a hit is moved to the end, the first key is the oldest.
	const cache = new Map<string, CachedTag>();
	let bodyBytes = 0;
	const drop = (key: string): void => {
		const old = cache.get(key);
		if (old?.body !== undefined) bodyBytes -= old.body.length;
		cache.delete(key);
	};
	const remember = (ex: Exchange, tag: string, body: string): void => {
		const key = cacheKeyOf(ex);
		const version = ex.dataVersion;
		if (key === null || maxKeys <= 0 || version === undefined) return;
		drop(key);
		const entry: CachedTag = { version, tag, items: ex.items ?? 1 };
		// Only GET answers carry a body (a HEAD's key is its own); `length` counts UTF-16 units,
		// which bounds the memory as well as bytes would.
		const keep = ex.req.method === 'GET' && body.length <= BODY_CACHE_MAX_BYTES;
		if (keep) {
			// Room by dropping the least recently used answers (their tags stay): stale ones are
			// only dropped when their key is asked again, and must not fill the cache for good.
			for (const old of cache.values()) {
				if (bodyBytes + body.length <= BODY_CACHE_TOTAL_BYTES) break;
				if (old.body === undefined) continue;
				bodyBytes -= old.body.length;
				delete old.body;
			}
			entry.body = body;
			bodyBytes += body.length;
		}
		cache.set(key, entry);
		if (cache.size > maxKeys) {
			const oldest = cache.keys().next();
			if (!oldest.done) drop(oldest.value);
		}
	};
	return {
		on,
		send(ex, value, versioned, template = stringifyHal(value)) {
			ex.items = itemsOf(value);
			const headers: Record<string, string> = {};
			const body = renderBase(template, apiBase(ex.req));
			if (on) {
				const tag = etagOf(template, versioned);
				const read = isRead(ex.req.method);
				// Built and kept in the same synchronous step as the read of the data.
				if (read) remember(ex, tag, body);
				if (read && noneMatchHits(ex.req.headers['if-none-match'], tag)) {
					sendNotModified(ex, { ETag: tag });
					return template;
				}
				headers.ETag = tag;
			}
			sendHalText(ex, body, headers);
			return template;
		},
		sendList(ex, value) {
			if (ex.req.method !== 'GET' && ex.req.method !== 'HEAD') {
				this.send(ex, value);
				return;
			}
			const embedded = (value as { _embedded?: Record<string, unknown> } | null)?._embedded;
			const list = embedded ? Object.values(embedded)[0] : undefined;
			if (!Array.isArray(list) || list.length <= LIST_CHUNK_ITEMS) {
				this.send(ex, value);
				return;
			}
			ex.items = itemsOf(value);
			ex.answering = (async () => {
				const built = (await listTemplate(value))!;
				const api = apiBase(ex.req);
				const body: string[] = [];
				for (const part of built.parts) body.push(renderBase(part, api));
				const text = body.join('');
				if (on) {
					remember(ex, built.tag, text);
					if (noneMatchHits(ex.req.headers['if-none-match'], built.tag)) {
						sendNotModified(ex, { ETag: built.tag });
						return;
					}
				}
				sendHalText(ex, text, on ? { ETag: built.tag } : {});
			})();
		},
		answerCached(ex, current) {
			const field = ex.req.headers['if-none-match'];
			if (!on || field === undefined || !isRead(ex.req.method)) return false;
			const key = cacheKeyOf(ex);
			const hit = key === null ? undefined : cache.get(key);
			if (key === null || !hit) return false;
			if (hit.version !== current) {
				drop(key);
				return false;
			}
			const matched = noneMatchHits(field, hit.tag);
			// An older tag (the data changed since this client's last read): the kept answer, as
			// built for the first client that asked after the change.
			if (!matched && hit.body === undefined) return false;
			cache.delete(key);
			cache.set(key, hit);
			ex.items = hit.items;
			if (matched) sendNotModified(ex, { ETag: hit.tag });
			else sendHalText(ex, hit.body!, { ETag: hit.tag });
			return true;
		},
		checkIfMatch(req, current) {
			const ifMatch = req.headers['if-match'];
			// An empty If-Match lists no tag, so it matches nothing (RFC 9110 13.1.1).
			if (on && ifMatch !== undefined && !matchHits(ifMatch, current)) {
				const named = ifMatch.trim() === '' ? 'An empty If-Match' : `If-Match ${ifMatch}`;
				throw new HttpError(
					412,
					`${named} does not name the current version (${current.version}) of ${current.kind} ${current.id}`
				);
			}
		}
	};
}
