// The PUT log: every PUT the local service received (handled, refused or hit by a fault) is
// appended to put_log once answered, with who sent it and on what condition.
import type { IncomingMessage } from 'node:http';
import { appendPutLog, type DB } from '../db.ts';
import type { Exchange, PutInfo } from './exchange.ts';

/** Notes who sent a PUT and on what condition (the same object is filled in as it is handled). */
export function withSender(info: PutInfo, req: IncomingMessage): PutInfo {
	info.ifMatch = req.headers['if-match'] ?? null;
	info.client = req.headers['user-agent'] ?? null;
	return info;
}

/** Starts the put_log row of a PUT about to be handled; its handler fills in the rest. */
export function beginPut(ex: Exchange): PutInfo {
	const info = withSender({ kind: null, id: null, body: null }, ex.req);
	ex.put = info;
	return info;
}

/** Returns the step that appends an answered PUT to put_log (nothing without a database). */
export function createPutLog(
	db: DB | null,
	logError: (line: string) => void
): (ex: Exchange) => void {
	return (ex) => {
		const info = ex.put;
		if (!info || !db?.open) return;
		try {
			appendPutLog(db, {
				at: new Date().toISOString(),
				method: ex.req.method ?? 'GET',
				path: ex.pathname + ex.search,
				resourceKind: info.kind,
				resourceId: info.id,
				requestBody: info.body,
				status: ex.status ?? 0,
				responseSummary: ex.summary ?? null,
				fault: ex.fault ?? null,
				ifMatch: info.ifMatch ?? null,
				client: info.client ?? null
			});
		} catch (e) {
			logError(
				JSON.stringify({
					ts: new Date().toISOString(),
					msg: 'put_log append failed',
					error: String(e)
				})
			);
		}
	};
}
