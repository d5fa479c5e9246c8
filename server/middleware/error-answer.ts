// Error answers: the interface's error object (with a fresh trace id) and how a failed request
// is answered — an HttpError as itself, a client that went away not at all, anything else as a
// generic 500 with the stack logged.
import { ClientClosedError, errorBody, HttpError, newTraceId } from '../http/errors.ts';
import { HAL_JSON, stringifyJson } from '../http/hal.ts';
import { send, type Exchange } from './exchange.ts';

/** Answers the error object for `status` and `message`. */
export function sendError(
	ex: Exchange,
	status: number,
	message: string,
	headers: Record<string, string> = {},
	extra: { code?: string | undefined; links?: Record<string, { href: string }> | undefined } = {}
): void {
	ex.traceId = newTraceId();
	ex.summary = message;
	const body = errorBody(status, message, ex.pathname, ex.traceId);
	if (extra.code !== undefined) body.code = extra.code;
	if (extra.links !== undefined) body._links = extra.links;
	send(ex, status, stringifyJson(body), HAL_JSON, headers);
}

/**
 * `Connection: close` for a request refused before its body was read (a bad Host, a full disk,
 * a failed If-Match): the rest of the upload is then never read.
 */
function unreadBody(ex: Exchange): Record<string, string> {
	const { req } = ex;
	const hasBody =
		Number(req.headers['content-length'] ?? 0) > 0 ||
		req.headers['transfer-encoding'] !== undefined;
	return hasBody && !req.complete && req.readableLength === 0 && !req.readableEnded
		? { Connection: 'close' }
		: {};
}

/**
 * Answers a request whose handling threw. Returns false when the answer had already begun: the
 * connection is destroyed and nothing else is recorded.
 */
export function answerFailure(ex: Exchange, e: unknown, logError: (line: string) => void): boolean {
	if (ex.res.headersSent) {
		ex.res.destroy();
		return false;
	}
	if (e instanceof HttpError) {
		sendError(
			ex,
			e.status,
			e.message,
			{ ...unreadBody(ex), ...e.headers },
			{ code: e.code, links: e.links }
		);
		return true;
	}
	if (e instanceof ClientClosedError) {
		// Nobody to answer: noted (status 0) in the request log and put_log, not as a failure.
		ex.status = 0;
		ex.summary = 'The client closed the connection before its request body was complete';
		if (ex.put) ex.put.bodyBytes = e.bytes;
		ex.res.destroy();
		return true;
	}
	sendError(ex, 500, 'Internal server error; see the service log');
	logError(
		JSON.stringify({
			ts: new Date().toISOString(),
			level: 'error',
			method: ex.req.method,
			path: ex.pathname,
			traceId: ex.traceId,
			error: e instanceof Error ? e.stack : String(e)
		})
	);
	return true;
}
