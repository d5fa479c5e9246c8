/** The Background Sync tag and the messages between the page and the service worker. */
import type { Contact } from '$lib/api/contact';
import type { ErrorRecord } from '$lib/db/db';

export const SYNC_TAG = 'ringside-replay';

/**
 * REPLAY: replay what is due. SKIP_WAITING (to the waiting worker): take over. RETIRE (to the
 * active worker, just before): the steward accepted an update, so stop replaying and let the new
 * worker take over at once; it resumes the replay at its start. RESUME (to the active worker):
 * the switch did not come and the steward goes on with this version: replay again at once. CLAIM
 * (to the active worker): a page loaded past it (a hard reload) asks to be taken in charge.
 */
export type ToWorker =
	| { type: 'REPLAY' }
	| { type: 'SKIP_WAITING' }
	| { type: 'RETIRE' }
	| { type: 'RESUME' }
	| { type: 'CLAIM' };

export function isToWorker(data: unknown): data is ToWorker {
	const type = (data as { type?: unknown } | null)?.type;
	return (
		type === 'REPLAY' ||
		type === 'SKIP_WAITING' ||
		type === 'RETIRE' ||
		type === 'RESUME' ||
		type === 'CLAIM'
	);
}

/**
 * REPLAY_FAILED: a replay in the worker that could not run (storage, a bug): every open page shows
 * it. CONTACT: what one of the worker's requests found of the service (an answer, or none), for
 * the pages' reachability ($lib/sync/reachability).
 */
export type FromWorker =
	{ type: 'REPLAY_FAILED'; error: ErrorRecord } | { type: 'CONTACT'; contact: Contact };

export function isFromWorker(data: unknown): data is FromWorker {
	const type = (data as { type?: unknown } | null)?.type;
	if (type === 'REPLAY_FAILED') return true;
	const contact = (data as { contact?: Partial<Contact> } | null)?.contact;
	return (
		type === 'CONTACT' && typeof contact?.startedAt === 'number' && typeof contact.at === 'number'
	);
}
