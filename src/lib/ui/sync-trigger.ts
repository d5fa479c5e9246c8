import { SYNC_TAG, type ToWorker } from '$lib/sync/messages';

interface SyncManagerLike {
	register(tag: string): Promise<void>;
}

let inPage: (() => Promise<unknown>) | undefined;

/**
 * Asks for the outbox to be replayed now: registers a Background Sync (the browser fires it when
 * the network is back, even with the app closed) and tells the worker to replay at once, since
 * Chromium retries a failed sync only after minutes. Without a worker, the page replays itself.
 */
export async function requestSync(): Promise<void> {
	const registration =
		'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration() : undefined;
	const worker = registration?.active;
	if (registration && worker) {
		const sync = (registration as ServiceWorkerRegistration & { sync?: SyncManagerLike }).sync;
		await sync?.register(SYNC_TAG).catch(() => undefined);
		worker.postMessage({ type: 'REPLAY' } satisfies ToWorker);
		return;
	}
	// Loaded only here: with a worker (the usual case) the page never needs the replay code.
	inPage ??= (await import('$lib/sync/run-replay')).replayer(location.origin);
	await inPage().catch(() => undefined);
}
