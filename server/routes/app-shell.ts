// Everything outside /api: the built app (static files, single-page fallback) when an app folder
// is configured, else 404.
import { methodNotAllowed, notFound } from '../http/errors.ts';
import { sendError } from '../middleware/error-answer.ts';
import type { Exchange } from '../middleware/exchange.ts';
import { createStaticHandler } from '../static/static.ts';

/**
 * The handler of non-/api requests, and `close` (the app folder is followed for new builds until
 * then); throws at once when `appDir` does not exist.
 */
export function createAppShell(
	appDir: string | undefined,
	onError?: (error: unknown) => void
): { handle: (ex: Exchange) => void; close: () => void } {
	const app = appDir ? createStaticHandler(appDir, { onError }) : null;
	const handle = (ex: Exchange): void => {
		if (!app) throw notFound(`No resource at ${ex.pathname}`);
		const method = ex.req.method ?? 'GET';
		if (method !== 'GET' && method !== 'HEAD') {
			throw methodNotAllowed(method, ex.pathname, 'GET, HEAD');
		}
		app.handle(ex.req, ex.res, () => {
			sendError(ex, 404, `No file at ${ex.pathname}`);
		});
	};
	return { handle, close: () => app?.close() };
}
