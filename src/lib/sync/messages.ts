/** The Background Sync tag and the messages between the page and the service worker. */
import type { ErrorRecord } from '$lib/db/db';

export const SYNC_TAG = 'ringside-replay';

export type ToWorker = { type: 'REPLAY' } | { type: 'SKIP_WAITING' };

export function isToWorker(data: unknown): data is ToWorker {
	const type = (data as { type?: unknown } | null)?.type;
	return type === 'REPLAY' || type === 'SKIP_WAITING';
}

/** A replay in the worker that could not run (storage, a bug): every open page shows it. */
export type FromWorker = { type: 'REPLAY_FAILED'; error: ErrorRecord };

export function isFromWorker(data: unknown): data is FromWorker {
	return (data as { type?: unknown } | null)?.type === 'REPLAY_FAILED';
}
