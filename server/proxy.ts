import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

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
}

const DROP_RESPONSE_HEADERS = new Set([
	'connection',
	'keep-alive',
	'transfer-encoding',
	'content-length',
	'content-encoding',
	'proxy-authenticate',
	'trailer',
	'upgrade'
]);

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
	client: { proto: string; host: string; prefix: string; origin: string }
): Promise<ProxyAnswer> {
	const headers: Record<string, string> = {
		'X-Forwarded-Proto': client.proto,
		'X-Forwarded-Host': client.host,
		'X-Forwarded-Prefix': client.prefix
	};
	for (const name of [
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
		response.headers.forEach((value, key) => {
			if (!DROP_RESPONSE_HEADERS.has(key) && !key.startsWith('access-control-')) out[key] = value;
		});
		const ownBase = `${client.origin}${client.prefix}`;
		const ctype = response.headers.get('content-type') ?? '';
		if (isEventStream(ctype) && response.body) {
			// The time-out is about the upstream answering; a stream then lasts as long as it lasts.
			const stream = { body: response.body, abort: () => controller.abort() };
			return { status: response.status, headers: out, body: Buffer.alloc(0), stream };
		}
		let buf: Buffer = Buffer.from(await response.arrayBuffer());
		if (/json/i.test(ctype) && buf.length > 0) {
			buf = Buffer.from(rewriteUpstreamLinks(buf.toString('utf8'), target.upstream, ownBase));
		}
		if (out.location) out.location = rewriteUpstreamLinks(out.location, target.upstream, ownBase);
		return { status: response.status, headers: out, body: buf };
	} catch (e) {
		if (timedOut) {
			throw new HttpError(
				504,
				`Upstream ${target.upstream} did not answer within ${target.timeoutMs} ms`
			);
		}
		const cause = (e as { cause?: { code?: string; message?: string } }).cause;
		throw new HttpError(
			502,
			`Upstream ${target.upstream} is unreachable (${cause?.code ?? cause?.message ?? (e as Error).message})`
		);
	} finally {
		clearTimeout(timer);
	}
}
