/** The Background Sync tag and the messages the page sends the service worker. */
export const SYNC_TAG = 'ringside-replay';

export type ToWorker = { type: 'REPLAY' } | { type: 'SKIP_WAITING' };

export function isToWorker(data: unknown): data is ToWorker {
	const type = (data as { type?: unknown } | null)?.type;
	return type === 'REPLAY' || type === 'SKIP_WAITING';
}
