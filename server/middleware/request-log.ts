// The request log: one JSON line per request once its connection is done with it, including
// requests whose connection was dropped (injected faults, client aborts: `error: client-closed`).
// Its status is the one the client was sent (the status line, once it has left, also of a file
// the client stopped reading), else the one the service decided (an answer dropped by a fault),
// else 0 (nothing was answered).
import { clientAddress, type Exchange } from './exchange.ts';

/** Logs `ex` when its answer is finished or its connection closed. */
export function logWhenClosed(ex: Exchange, log: (line: string) => void): void {
	const t0 = performance.now();
	const { req, res } = ex;
	res.once('close', () => {
		const line: Record<string, unknown> = {
			ts: new Date().toISOString(),
			method: req.method,
			path: ex.pathname,
			client: clientAddress(req),
			status: res.headersSent ? res.statusCode : (ex.status ?? 0),
			ms: Math.round((performance.now() - t0) * 10) / 10
		};
		if (ex.traceId) line.traceId = ex.traceId;
		if (ex.fault) line.fault = ex.fault;
		// The client went away before its request had fully arrived (e.g. mid-upload).
		else if (!res.writableFinished && !req.complete) line.error = 'client-closed';
		log(JSON.stringify(line));
	});
}
