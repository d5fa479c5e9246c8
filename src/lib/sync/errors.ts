/**
 * Errors of the sync layer (outbox and replay). They carry a code, never a sentence: the UI words
 * codes in one place ($lib/ui/view/error-text). Loaded by the first screen: keep it small.
 */
import { ApiError } from '$lib/api/errors';
import type { ErrorRecord } from '$lib/db/db';

export const SYNC_ERROR_CODES = ['not-stored', 'busy', 'not-found', 'no-conflict'] as const;

/**
 * - not-stored: the resource is not downloaded, there is no server value to start from;
 * - busy: the entry is being sent and cannot be changed that way until the attempt ends;
 * - not-found: no outbox entry under that key;
 * - no-conflict: the entry holds no open conflict.
 */
export type SyncErrorCode = (typeof SYNC_ERROR_CODES)[number];

/** An outbox error with a code; the UI turns codes into words. `message` is for logs only. */
export class SyncError extends Error {
	readonly code: SyncErrorCode;
	readonly key?: string;

	constructor(code: SyncErrorCode, details: { key?: string } = {}) {
		super(details.key === undefined ? code : `${code} (${details.key})`);
		this.name = 'SyncError';
		this.code = code;
		if (details.key !== undefined) this.key = details.key;
	}
}

/**
 * Any error as it can be stored or posted: structured clone keeps only an Error's name and message,
 * so an ApiError becomes its record, anything else its name and message.
 */
export function errorRecord(error: unknown): ErrorRecord {
	if (error instanceof ApiError) return error.toRecord();
	// Dexie wraps the browser's error (a full disk is a QuotaExceededError inside an AbortError).
	const e = error as { name?: unknown; message?: unknown; inner?: { name?: unknown } } | null;
	const inner = e?.inner?.name === 'QuotaExceededError' ? 'QuotaExceededError' : null;
	return {
		code: 'other',
		name: inner ?? (typeof e?.name === 'string' ? e.name : 'Error'),
		message: typeof e?.message === 'string' ? e.message : String(error)
	};
}
