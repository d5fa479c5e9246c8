// Proxy mode: every /api request is forwarded to the upstream service (see proxy.ts) and its
// answer passed on, with links rewritten to this service's own base.
import { requestBase } from '../hal.ts';
import { readBody, tooLargeError } from '../middleware/body.ts';
import { answer, type Exchange } from '../middleware/exchange.ts';
import { forward, type ProxyTarget } from '../proxy.ts';

/** Returns the handler of /api requests in proxy mode. */
export function createUpstreamForwarder(target: ProxyTarget): (ex: Exchange) => Promise<void> {
	return async (ex) => {
		const { req } = ex;
		const method = req.method ?? 'GET';
		const body =
			method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? null : await readBody(req);
		if (body?.tooLarge) throw tooLargeError();
		const base = requestBase(req);
		const url = new URL(base.origin);
		const upstreamAnswer = await forward(req, ex.pathname + ex.search, body?.buf ?? null, target, {
			proto: url.protocol.replace(':', ''),
			host: url.host,
			prefix: base.prefix,
			origin: base.origin
		});
		answer(
			ex,
			upstreamAnswer.status,
			{ ...upstreamAnswer.headers, 'Content-Length': upstreamAnswer.body.length },
			upstreamAnswer.body
		);
	};
}
