import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http/errors.ts';

export interface ProxyAnswer {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
	/**
	 * An event stream (text/event-stream) is not read here: its body is passed on as it comes,
	 * `body` is then empty. `abort` stops reading it from the upstream.
	 */
	stream?: { body: ReadableStream<Uint8Array>; abort: () => void };
}

/** Whether a Content-Type is an event stream (Server-Sent Events). */
export const isEventStream = (ctype: string): boolean =>
	/^text\/event-stream\s*(;|$)/i.test(ctype.trim());

export interface ProxyTarget {
	/** Upstream base such as `https://results.example.org/base` (no trailing slash needed). */
	upstream: string;
	timeoutMs: number;
	/** Largest upstream answer body passed on (event streams aside); larger ones are a 502. */
	maxBodyBytes: number;
}

/** Default of `maxBodyBytes`. */
export const MAX_UPSTREAM_BODY_BYTES = 8 * 1024 * 1024;

/** Methods forwarded to the upstream; any other is answered 405 here. */
export const FORWARDED_METHODS = ['GET', 'HEAD', 'PUT', 'OPTIONS'];

/** Hop-by-hop headers (RFC 9110 7.6.1), framing headers, and cookies: never passed on. */
const DROP_RESPONSE_HEADERS = new Set([
	'connection',
	'keep-alive',
	'proxy-connection',
	'transfer-encoding',
	'te',
	'content-length',
	'content-encoding',
	'proxy-authenticate',
	'proxy-authorization',
	'trailer',
	'upgrade',
	'set-cookie',
	'set-cookie2'
]);

/**
 * Checks the path of a request to forward: it must be under `/api/v1/` (or be `/api/v1`) and
 * stay there whatever the upstream decodes, so no dot segments (`.`, `..`, encoded or not), no
 * backslashes and no encoded slashes or backslashes. Throws 400; returns the path unchanged.
 */
export function checkForwardPath(pathname: string): string {
	const refuse = (why: string): never => {
		throw new HttpError(400, `Path refused by the proxy: ${why}`);
	};
	if (pathname.includes('\\')) refuse('backslash');
	if (/%(2f|5c)/i.test(pathname)) refuse('encoded slash or backslash');
	if (pathname !== '/api/v1' && !pathname.startsWith('/api/v1/')) refuse('not under /api/v1/');
	for (const segment of pathname.split('/')) {
		let decoded: string;
		try {
			decoded = decodeURIComponent(segment);
		} catch {
			return refuse('malformed percent-encoding');
		}
		if (decoded === '.' || decoded === '..') refuse('dot segment');
		if (/[\\/\0]/.test(decoded)) refuse('encoded separator');
	}
	return pathname;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Trims a trailing slash from an upstream base URL and validates it. */
export function normaliseUpstream(upstream: string): string {
	let url: URL;
	try {
		url = new URL(upstream);
	} catch {
		throw new Error(`Upstream '${upstream}' is not an absolute URL`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new Error(`Upstream '${upstream}' must be http or https`);
	}
	return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Rewrites absolute links to the upstream base (http or https) into the proxy's own base, for
 * upstream services that ignore X-Forwarded-* headers.
 */
export function rewriteUpstreamLinks(text: string, upstream: string, ownBase: string): string {
	const url = new URL(upstream);
	const hostPath = `${url.host}${url.pathname.replace(/\/+$/, '')}`;
	const re = new RegExp(`https?://${escapeRe(hostPath)}(?=[/"?#\\\\]|$)`, 'g');
	return text.replace(re, ownBase);
}

/**
 * Forwards one /api request to the upstream base + path + query. Throws HttpError 502 when the
 * upstream cannot be reached and 504 when it does not answer within the time-out.
 */
export async function forward(
	req: IncomingMessage,
	pathAndQuery: string,
	body: Buffer | null,
	target: ProxyTarget,
	client: { proto: string; host: string; prefix: string; origin: string; address: string }
): Promise<ProxyAnswer> {
	// Set here, never taken from the client (whose own X-Forwarded-* are not forwarded).
	const headers: Record<string, string> = {
		'X-Forwarded-Proto': client.proto,
		'X-Forwarded-Host': client.host,
		'X-Forwarded-Prefix': client.prefix,
		'X-Forwarded-For': client.address
	};
	// Authorization: in proxy mode the upstream authenticates, so the credential goes to it.
	for (const name of [
		'authorization',
		'content-type',
		'accept',
		'if-match',
		'if-none-match',
		'accept-language',
		'last-event-id'
	]) {
		const v = req.headers[name];
		if (typeof v === 'string') headers[name] = v;
	}
	const controller = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort();
	}, target.timeoutMs);
	const method = req.method ?? 'GET';
	try {
		const response = await fetch(`${target.upstream}${pathAndQuery}`, {
			method,
			headers,
			body: body && method !== 'GET' && method !== 'HEAD' ? new Uint8Array(body) : null,
			signal: controller.signal,
			redirect: 'manual'
		});
		const out: Record<string, string> = {};
		// Headers the upstream's Connection names are hop-by-hop too.
		const named = new Set(
			(response.headers.get('connection') ?? '')
				.split(',')
				.map((h) => h.trim().toLowerCase())
				.filter(Boolean)
		);
		response.headers.forEach((value, key) => {
			if (DROP_RESPONSE_HEADERS.has(key) || named.has(key)) return;
			if (!key.startsWith('access-control-')) out[key] = value;
		});
		const ownBase = `${client.origin}${client.prefix}`;
		const ctype = response.headers.get('content-type') ?? '';
		if (isEventStream(ctype) && response.body) {
			// The time-out is about the upstream answering; a stream then lasts as long as it lasts.
			const stream = { body: response.body, abort: () => controller.abort() };
			return { status: response.status, headers: out, body: Buffer.alloc(0), stream };
		}
		let buf = await readCapped(response, target.maxBodyBytes, () => controller.abort());
		if (/json/i.test(ctype) && buf.length > 0) {
			buf = Buffer.from(rewriteUpstreamLinks(buf.toString('utf8'), target.upstream, ownBase));
		}
		if (out.location) out.location = rewriteUpstreamLinks(out.location, target.upstream, ownBase);
		return { status: response.status, headers: out, body: buf };
	} catch (e) {
		// The messages name no upstream address: clients need not learn where it is.
		if (e instanceof HttpError) throw e;
		if (timedOut) {
			throw new HttpError(504, `The upstream service did not answer within ${target.timeoutMs} ms`);
		}
		const cause = (e as { cause?: { code?: string } }).cause;
		const code = typeof cause?.code === 'string' && /^[A-Z_]+$/.test(cause.code) ? cause.code : '';
		throw new HttpError(502, `The upstream service is unreachable${code ? ` (${code})` : ''}`);
	} finally {
		clearTimeout(timer);
	}
}

/** Reads an answer's body, at most `max` bytes; throws 502 (and stops reading) beyond. */
async function readCapped(response: Response, max: number, abort: () => void): Promise<Buffer> {
	const tooLarge = (): HttpError => {
		abort();
		return new HttpError(502, `The upstream answer is larger than ${max} bytes`);
	};
	const declared = Number(response.headers.get('content-length') ?? NaN);
	if (declared > max) throw tooLarge();
	if (!response.body) return Buffer.alloc(0);
	const chunks: Uint8Array[] = [];
	let bytes = 0;
	const reader = response.body.getReader();
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		bytes += value.length;
		if (bytes > max) {
			await reader.cancel().catch(() => undefined);
			throw tooLarge();
		}
		chunks.push(value);
	}
	return Buffer.concat(chunks);
}
