// One request being handled (the Exchange), the shape of the pipeline's steps, and the writers
// every /api and error answer passes through: security headers, Content-Length, and the injected
// fault that drops an answer.
import { socketAddress } from '../http/client-address.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../auth/auth.ts';
import type { PutLogFault } from '../http/faults.ts';
import { HAL_FORMS, stringifyHal } from '../http/hal.ts';
import type { Found } from '../routes/table.ts';
import type { CorsCheck } from './cors.ts';

/** What put_log records of one PUT; filled in as the PUT is handled. */
export interface PutInfo {
	kind: string | null;
	id: number | null;
	body: string | null;
	/** Size of the body read, in bytes (of a refused PUT only the start of `body` is kept). */
	bodyBytes?: number | null;
	ifMatch?: string | null;
	client?: string | null;
	/** The sender's address (see `clientAddress`). */
	remoteAddress?: string | null;
	/** The row written with the change, in its transaction (an injected fault is noted on it). */
	loggedRow?: number;
}

/** One request and what its handlers found out; read by the request log and put_log. */
export interface Exchange {
	req: IncomingMessage;
	res: ServerResponse;
	/** Path without the query. */
	pathname: string;
	/** The query including its '?', or ''. */
	search: string;
	traceId?: string;
	status?: number;
	summary?: string;
	/**
	 * The data version of the snapshot a GET was read in, which its tag is kept under in the tag
	 * cache (with ETags on).
	 */
	dataVersion?: number;
	/** Items the answer carried (a list page's items), charged to the client's read budget. */
	items?: number;
	/**
	 * A long list's answer being serialised in steps after its read (etag.ts `sendList`): the
	 * router waits for it once the snapshot is released.
	 */
	answering?: Promise<void>;
	/** Set for PUT requests of the local service: appended to put_log once answered. */
	put?: PutInfo;
	/** Who sent it, as its device credential says (the local service; see auth.ts). */
	caller?: Caller;
	/** What the CORS check found (an allowed origin, a preflight). */
	cors?: CorsCheck;
	/** The route of the local API the path names, and its parameters; null: none. */
	found?: Found | null;
	/** Injected fault that happened to this request (recorded in put_log and the request log). */
	fault?: PutLogFault;
	/** Set by the fault 'reset-after': called instead of sending the answer (which is lost). */
	dropAnswer?: (status: number) => void;
	/** The answer was dropped; nothing more is written. */
	dropped?: boolean;
	/**
	 * Set for a PUT whose put_log row is written before its answer leaves (see `finish`): a
	 * client that has seen the answer, or the reset, finds the row, and the rows of one client's
	 * PUTs stay in the order it sent them.
	 */
	holdAnswer?: boolean;
	/** The held answer (or reset), sent by `releaseAnswer`. */
	heldAnswer?: () => void;
}

const resolvedAddresses = new WeakMap<IncomingMessage, string>();

/** Notes who `req` comes from (the pipeline, as it takes the request: client-address.ts). */
export function setClientAddress(req: IncomingMessage, address: string): void {
	resolvedAddresses.set(req, address);
}

/**
 * The client's IP address, as the pipeline found it (behind a trusted proxy, the client the proxy
 * names: client-address.ts); the socket's until then. IPv4-mapped IPv6 addresses shown as IPv4.
 */
export function clientAddress(req: IncomingMessage): string {
	return resolvedAddresses.get(req) ?? socketAddress(req);
}

/**
 * One step of the request pipeline (pipeline.ts): it does its part and calls `next` for the
 * steps after it, or answers (or throws) and does not.
 */
export type Step = (ex: Exchange, next: () => Promise<void>) => Promise<void>;

/** The steps as one: each runs in order, as far as they call `next`. */
export function compose(steps: readonly Step[]): (ex: Exchange) => Promise<void> {
	const from = (i: number, ex: Exchange): Promise<void> => {
		const step = steps[i];
		return step ? step(ex, () => from(i + 1, ex)) : Promise.resolve();
	};
	return (ex) => from(0, ex);
}

/** Splits the request target into path and query. */
export function newExchange(req: IncomingMessage, res: ServerResponse): Exchange {
	const raw = req.url ?? '/';
	const q = raw.indexOf('?');
	return {
		req,
		res,
		pathname: q >= 0 ? raw.slice(0, q) : raw,
		search: q >= 0 ? raw.slice(q) : ''
	};
}

const SECURITY_HEADERS: Record<string, string> = {
	'X-Content-Type-Options': 'nosniff',
	'X-XSS-Protection': '0',
	'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate',
	Pragma: 'no-cache',
	Expires: '0',
	'X-Frame-Options': 'DENY',
	'Referrer-Policy': 'no-referrer'
};

/** Drops the connection without an answer, with a TCP reset where the platform allows. */
export function resetConnection(req: IncomingMessage): void {
	const socket = req.socket;
	if (socket.destroyed) return;
	if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
	else socket.destroy();
}

/** Sends the last thing of a request (its answer or a reset) now, or holds it (`holdAnswer`). */
export function finish(ex: Exchange, last: () => void): void {
	if (ex.holdAnswer) ex.heldAnswer = last;
	else last();
}

/** Sends a held answer, if any; later answers go out at once. */
export function releaseAnswer(ex: Exchange): void {
	const last = ex.heldAnswer;
	ex.holdAnswer = false;
	ex.heldAnswer = undefined;
	last?.();
}

/**
 * Writes an answer, the one place every /api answer passes. With the fault 'reset-after' the
 * request has been handled (a PUT is applied) and the answer is lost: the connection is reset.
 * A request has one answer: once one is held, a later one (an error thrown after it) is ignored.
 */
export function answer(
	ex: Exchange,
	status: number,
	headers: Record<string, string | number>,
	body: string | Buffer
): void {
	if (ex.dropped || ex.heldAnswer) return;
	ex.status = status;
	if (ex.dropAnswer) {
		ex.dropped = true;
		ex.dropAnswer(status);
		return;
	}
	const res = ex.res;
	finish(ex, () => {
		res.statusCode = status;
		for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
		res.end(body);
	});
}

/** Answers `body` with the security headers. */
export function send(
	ex: Exchange,
	status: number,
	body: string,
	contentType: string,
	headers: Record<string, string> = {}
): void {
	answer(
		ex,
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

/** Answers 200 with a HAL-FORMS document. */
export function sendHal(ex: Exchange, value: unknown, headers: Record<string, string> = {}): void {
	send(ex, 200, stringifyHal(value), HAL_FORMS, headers);
}

/** Answers 200 with the text of a HAL-FORMS document. */
export function sendHalText(
	ex: Exchange,
	text: string,
	headers: Record<string, string> = {}
): void {
	send(ex, 200, text, HAL_FORMS, headers);
}

/** Answers 204 No Content with the security headers (no body, no Content-Type). */
export function sendNoContent(ex: Exchange): void {
	answer(ex, 204, { ...SECURITY_HEADERS }, '');
}

/**
 * Answers 304 Not Modified: no body, no Content-Type or Content-Length, but the headers a 200
 * would carry that a client's copy keeps (ETag, Cache-Control and the other security headers).
 */
export function sendNotModified(ex: Exchange, headers: Record<string, string>): void {
	answer(ex, 304, { ...SECURITY_HEADERS, ...headers }, '');
}
