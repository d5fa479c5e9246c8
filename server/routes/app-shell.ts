// Everything outside /api: the built app (static files, single-page fallback) when an app folder
// is configured, else 404.
import { methodNotAllowed, notFound } from '../errors.ts';
import { sendError } from '../middleware/error-answer.ts';
import type { Exchange } from '../middleware/exchange.ts';
import { createStaticHandler } from '../static.ts';

/** Returns the handler of non-/api requests; throws at once when `appDir` does not exist. */
export function createAppShell(appDir: string | undefined): (ex: Exchange) => void {
	const staticHandler = appDir ? createStaticHandler(appDir) : null;
	return (ex) => {
		if (!staticHandler) throw notFound(`No resource at ${ex.pathname}`);
		const method = ex.req.method ?? 'GET';
		if (method !== 'GET' && method !== 'HEAD') {
			throw methodNotAllowed(method, ex.pathname, 'GET, HEAD');
		}
		staticHandler(ex.req, ex.res, () => {
			sendError(ex, 404, `No file at ${ex.pathname}`);
		});
	};
}
