// The PUT log: every PUT the local service received (handled, refused or hit by a fault), with
// who sent it (client address, User-Agent) and on what condition. An applied change writes its
// row in the change's own transaction (`logApplied`); every other PUT is appended before its
// answer leaves (app.ts holds it), keeping only the start of its body. The log keeps the newest
// `maxRows` accepted changes whatever else arrives, and of the PUTs that changed nothing at most
// `refusedPerSender` per device (or address) among its newest `maxRows` rows. Each row names the
// device whose credential came with the PUT and the role it acted with (auth.ts). When auth is
// required, a PUT without a valid credential leaves no row: anyone on the network could otherwise
// push the real rows out of the capped log (the request log still has it).
import type { IncomingMessage } from 'node:http';
import {
	PUT_LOG_INSERT_ACCEPTED,
	PUT_LOG_INSERT_RETURNING_ID,
	PUT_LOG_MAX_ROWS,
	PUT_LOG_REFUSED_PER_SENDER,
	PUT_LOG_SET_FAULT,
	PUT_LOG_TRIM_ACCEPTED,
	PUT_LOG_TRIM_ADDRESS,
	PUT_LOG_TRIM_DEVICE,
	PUT_LOG_TRIM_REFUSED,
	putLogParams,
	type NewPutLogEntry
} from '../store/put-log-table.ts';
import type { Sql } from '../store/sql.ts';
import { storableText } from '../validation.ts';
import type { Store } from '../store/store.ts';
import { clientAddress, type Exchange, type PutInfo } from './exchange.ts';

/** How much of the body of a PUT that was not applied is kept. */
export const REFUSED_BODY_BYTES = 256;

/** Notes who sent a PUT and on what condition (the same object is filled in as it is handled). */
export function withSender(info: PutInfo, req: IncomingMessage): PutInfo {
	info.ifMatch = req.headers['if-match'] ?? null;
	info.client = req.headers['user-agent'] ?? null;
	info.remoteAddress = clientAddress(req);
	return info;
}

/** Starts the put_log row of a PUT about to be handled; its handler fills in the rest. */
export function beginPut(ex: Exchange): PutInfo {
	const info = withSender({ kind: null, id: null, body: null }, ex.req);
	ex.put = info;
	return info;
}

/** At most the first `max` bytes of `text`, cut at a character boundary. */
export function firstBytes(text: string, max = REFUSED_BODY_BYTES): string {
	if (Buffer.byteLength(text) <= max) return text;
	let cut = Buffer.from(text).subarray(0, max).toString('utf8');
	while (Buffer.byteLength(cut) > max || cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
	return cut;
}

export interface PutLog {
	/**
	 * Writes the row of an applied change (status 200, the whole body) in the change's
	 * transaction `sql`: a failure here rolls the change back. Returns the row's id (null: no
	 * row is kept), which becomes the PUT's `loggedRow` only once that transaction committed (a
	 * rolled-back row is no row: the PUT is then logged with its answer).
	 */
	logApplied(sql: Sql, ex: Exchange, summary: string): Promise<number | null>;
	/**
	 * Appends the row of a PUT that was not logged with its change, or notes an injected fault on
	 * the row of one that was; called once the PUT is handled, before its answer is released.
	 */
	afterAnswer(ex: Exchange): Promise<void>;
}

/**
 * Appends the row of an accepted change, numbered among the accepted ones, then deletes the
 * accepted rows older than the newest `maxRows` of them (a range on an index: nothing to do in
 * the common case). Rows of PUTs that changed nothing never push one out. Returns the row's id.
 */
export async function appendAcceptedRow(
	sql: Sql,
	entry: NewPutLogEntry,
	maxRows = PUT_LOG_MAX_ROWS
): Promise<number> {
	const row = await sql.get<{ id: number; seq: number }>(
		PUT_LOG_INSERT_ACCEPTED,
		putLogParams(entry)
	);
	await sql.run(PUT_LOG_TRIM_ACCEPTED, { below: Number(row?.seq) - maxRows });
	return Number(row?.id);
}

/**
 * Appends the row of a PUT that changed nothing (refused, failed, faulted), then keeps at most
 * `perSender` such rows of its device (without one, of its address) and none older than the
 * newest `maxRows` rows of the log: a sender that keeps being refused fills only its own share.
 */
export async function appendRefusedRow(
	sql: Sql,
	entry: NewPutLogEntry,
	maxRows = PUT_LOG_MAX_ROWS,
	perSender = PUT_LOG_REFUSED_PER_SENDER
): Promise<number> {
	const row = await sql.get<{ id: number }>(PUT_LOG_INSERT_RETURNING_ID, putLogParams(entry));
	const id = Number(row?.id);
	await sql.run(PUT_LOG_TRIM_REFUSED, { below: id - maxRows });
	if (entry.device) {
		await sql.run(PUT_LOG_TRIM_DEVICE, { device: entry.device, keep: perSender });
	} else if (entry.remoteAddress) {
		await sql.run(PUT_LOG_TRIM_ADDRESS, { address: entry.remoteAddress, keep: perSender });
	}
	return id;
}

/**
 * The PUT log of `store` (does nothing without a store, as in proxy mode). `devicesOnly`: keep
 * no row of a PUT that came without a valid device credential (auth required).
 */
export function createPutLog(
	store: Store | null,
	logError: (line: string) => void,
	maxRows = PUT_LOG_MAX_ROWS,
	devicesOnly = false,
	refusedPerSender = PUT_LOG_REFUSED_PER_SENDER
): PutLog {
	// Every text as it can be stored (a PUT holding NUL is refused, and still logged).
	const text = (t: string | null): string | null => (t === null ? null : storableText(t));
	const row = (ex: Exchange, info: PutInfo, status: number, summary: string | null) => ({
		at: new Date().toISOString(),
		method: ex.req.method ?? 'GET',
		path: storableText(ex.pathname + ex.search),
		resourceKind: info.kind,
		resourceId: info.id,
		requestBody: text(
			info.body === null || (status >= 200 && status < 300) ? info.body : firstBytes(info.body)
		),
		bodyBytes: info.bodyBytes ?? null,
		status,
		responseSummary: text(summary),
		fault: ex.fault ?? null,
		ifMatch: text(info.ifMatch ?? null),
		client: text(info.client ?? null),
		remoteAddress: info.remoteAddress ?? null,
		device: ex.caller?.device ? String(ex.caller.device.id) : null,
		role: ex.caller?.role ?? null
	});
	return {
		async logApplied(sql, ex, summary) {
			const info = ex.put;
			if (!info || !store) return null;
			return appendAcceptedRow(sql, row(ex, info, 200, summary), maxRows);
		},
		async afterAnswer(ex) {
			const info = ex.put;
			if (!info || !store?.open) return;
			if (devicesOnly && !ex.caller?.device) return;
			try {
				if (info.loggedRow !== undefined) {
					// Logged with its change; only an injected fault on its answer is left to note.
					if (ex.fault) {
						await store.sql.run(PUT_LOG_SET_FAULT, { fault: ex.fault, id: info.loggedRow });
					}
					return;
				}
				await appendRefusedRow(
					store.sql,
					row(ex, info, ex.status ?? 0, ex.summary ?? null),
					maxRows,
					refusedPerSender
				);
			} catch (e) {
				logError(
					JSON.stringify({
						ts: new Date().toISOString(),
						msg: 'put_log append failed',
						error: String(e)
					})
				);
			}
		}
	};
}
