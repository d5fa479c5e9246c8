/** The Background Sync tag and the messages between the page and the service worker. */
import type { ErrorRecord } from '$lib/db/db';

export const SYNC_TAG = 'ringside-replay';

/**
 * REPLAY: replay what is due. SKIP_WAITING (to the waiting worker): take over. RETIRE (to the
 * active worker, just before): the steward accepted an update, so stop replaying and let the new
 * worker take over at once; it resumes the replay at its start.
 */
export type ToWorker = { type: 'REPLAY' } | { type: 'SKIP_WAITING' } | { type: 'RETIRE' };

export function isToWorker(data: unknown): data is ToWorker {
	const type = (data as { type?: unknown } | null)?.type;
	return type === 'REPLAY' || type === 'SKIP_WAITING' || type === 'RETIRE';
}

/** A replay in the worker that could not run (storage, a bug): every open page shows it. */
export type FromWorker = { type: 'REPLAY_FAILED'; error: ErrorRecord };

export function isFromWorker(data: unknown): data is FromWorker {
	return (data as { type?: unknown } | null)?.type === 'REPLAY_FAILED';
}
