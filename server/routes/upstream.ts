// Proxy mode: every /api request is forwarded to the upstream service (see proxy.ts) and its
// answer passed on, with links rewritten to this service's own base. An event stream (the
// `changes` of the push extension) is passed on as it comes, line by line.
import { isEncrypted } from '../http/hal.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { readBody, tooLargeError } from '../middleware/body.ts';
import type { StreamRegistry } from '../middleware/event-stream.ts';
import { answer, clientAddress, resetConnection, type Exchange } from '../middleware/exchange.ts';
import {
	checkForwardPath,
	forward,
	FORWARDED_METHODS,
	rewriteUpstreamLinks,
	type ProxyAnswer,
	type ProxyTarget
} from '../proxy/proxy.ts';

/** Returns the handler of /api requests in proxy mode; `streams` holds the streams passed on. */
export function createUpstreamForwarder(
	target: ProxyTarget,
	streams: StreamRegistry
): (ex: Exchange) => Promise<void> {
	return async (ex) => {
		const { req } = ex;
		const method = req.method ?? 'GET';
		if (!FORWARDED_METHODS.includes(method)) {
			throw methodNotAllowed(method, ex.pathname, FORWARDED_METHODS.join(', '));
		}
		checkForwardPath(ex.pathname);
		const body = method === 'PUT' ? await readBody(req) : null;
		if (body?.tooLarge) throw tooLargeError();
		// The base the client used, from its Host only (checked against the allow-list): a
		// client's own X-Forwarded-* are neither trusted nor passed on.
		const host = req.headers.host ?? `127.0.0.1:${req.socket.localPort ?? 80}`;
		const proto = isEncrypted(req) ? 'https' : 'http';
		const base = { origin: `${proto}://${host}`, prefix: '' };
		const upstreamAnswer = await forward(req, ex.pathname + ex.search, body?.buf ?? null, target, {
			proto,
			host,
			prefix: base.prefix,
			origin: base.origin,
			address: clientAddress(req)
		});
		if (upstreamAnswer.stream) {
			passStream(ex, upstreamAnswer, streams, (text) =>
				rewriteUpstreamLinks(text, target.upstream, `${base.origin}${base.prefix}`)
			);
			return;
		}
		// A 304 or 204 has no body, and no Content-Length that would claim one.
		const noBody = upstreamAnswer.status === 304 || upstreamAnswer.status === 204;
		answer(
			ex,
			upstreamAnswer.status,
			noBody
				? upstreamAnswer.headers
				: { ...upstreamAnswer.headers, 'Content-Length': upstreamAnswer.body.length },
			upstreamAnswer.body
		);
	};
}

/**
 * Passes an upstream event stream on without buffering: each chunk is written as soon as it
 * holds whole lines (links are rewritten line by line, so a link split across chunks is not
 * missed). Ends when the upstream ends, stops reading the upstream when the client goes away.
 */
function passStream(
	ex: Exchange,
	{ status, headers, stream }: ProxyAnswer,
	streams: StreamRegistry,
	rewrite: (text: string) => string
): void {
	if (!stream) return;
	const { req, res } = ex;
	try {
		streams.admit();
	} catch (e) {
		stream.abort();
		throw e;
	}
	if (ex.dropAnswer) {
		stream.abort();
		ex.dropAnswer(status);
		return;
	}
	ex.status = status;
	res.writeHead(status, headers);
	const remove = streams.add({
		end: () => {
			stream.abort();
			res.end();
		},
		drop: () => {
			stream.abort();
			resetConnection(req);
		}
	});
	res.once('close', () => {
		stream.abort();
		remove();
	});
	const pump = async (): Promise<void> => {
		const reader = stream.body.getReader();
		const decoder = new TextDecoder();
		let partial = '';
		try {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) break;
				partial += decoder.decode(value, { stream: true });
				const cut = Math.max(partial.lastIndexOf('\n'), partial.lastIndexOf('\r'));
				if (cut < 0 || res.destroyed) continue;
				res.write(rewrite(partial.slice(0, cut + 1)));
				partial = partial.slice(cut + 1);
			}
			partial += decoder.decode();
			if (partial && !res.destroyed) res.write(rewrite(partial));
		} catch {
			// The upstream went away or the stream was aborted: the client reconnects.
		} finally {
			remove();
			if (!res.writableEnded) res.end();
		}
	};
	void pump();
}
