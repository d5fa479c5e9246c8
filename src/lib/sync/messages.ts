/** The Background Sync tag and the messages between the page and the service worker. */
export const SYNC_TAG = 'ringside-replay';

export type ToWorker = { type: 'REPLAY' } | { type: 'SKIP_WAITING' };
export type FromWorker = { type: 'REPLAYED'; remaining: number };

export function isToWorker(data: unknown): data is ToWorker {
	const type = (data as { type?: unknown } | null)?.type;
	return type === 'REPLAY' || type === 'SKIP_WAITING';
}
