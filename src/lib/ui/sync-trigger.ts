/**
 * The page's replay scheduler ($lib/sync/scheduler), wired to this page: a replay is asked of the
 * service worker (which holds the replay code), or made in the page where there is no worker.
 * Nobody reports a save: $lib/ui/sync-status feeds it the outbox (whose change is the news) and
 * the page's events.
 */
import { isFromWorker, SYNC_TAG, type ToWorker } from '$lib/sync/messages';
import { ReplayScheduler } from '$lib/sync/scheduler';
import { updateManager } from '$lib/pwa/update-manager.svelte';
import { isRetired } from '$lib/sync/retirement';

interface SyncManagerLike {
	register(tag: string): Promise<void>;
}

let inPage: (() => Promise<unknown>) | undefined;

async function registration(): Promise<ServiceWorkerRegistration | undefined> {
	return 'serviceWorker' in navigator ? navigator.serviceWorker.getRegistration() : undefined;
}

/**
 * Whether the page leaves the worker in charge alone: the steward took an update, in this tab
 * (`updating`) or in another (a recent RETIRE while a version waits, $lib/sync/retirement). That
 * worker is retiring, and a message to it is an event that wakes it or keeps it awake, which holds
 * the switch (Chromium activates the new worker once the old one is idle and stopped). Once the
 * new worker is in charge, the reloaded pages ask it to replay as they start.
 */
export async function updateUnderWay(
	found: Pick<ServiceWorkerRegistration, 'waiting'> | undefined,
	updating: boolean,
	now: number
): Promise<boolean> {
	return updating || isRetired(now, (found?.waiting ?? null) !== null);
}

/** Reported by the scheduler or the worker: shown by the sync status. */
let reportError: (error: unknown) => void = (error) => console.error(error);

/** Replay failures, the page's and the worker's, go to `listener`. */
export function onReplayError(listener: (error: unknown) => void): () => void {
	reportError = listener;
	const fromWorker = (event: MessageEvent) => {
		const data: unknown = event.data;
		if (isFromWorker(data) && data.type === 'REPLAY_FAILED') listener(data.error);
	};
	if ('serviceWorker' in navigator) navigator.serviceWorker.addEventListener('message', fromWorker);
	return () => {
		if ('serviceWorker' in navigator) {
			navigator.serviceWorker.removeEventListener('message', fromWorker);
		}
	};
}

export const scheduler = new ReplayScheduler({
	async replay() {
		const found = await registration();
		if (await updateUnderWay(found, updateManager.updating, Date.now())) return;
		const worker = found?.active;
		if (worker) {
			worker.postMessage({ type: 'REPLAY' } satisfies ToWorker);
			return;
		}
		// Loaded only here: with a worker (the usual case) the page never needs the replay code.
		inPage ??= (await import('$lib/sync/replayer')).replayer(location.origin);
		await inPage();
	},
	async makeDue(which) {
		// The outbox policy is loaded on first use, not with the first screen.
		const { retryNow, retryUnreachable } = await import('$lib/sync/outbox');
		await (which === 'all' ? retryNow() : retryUnreachable());
	},
	async registerBackgroundSync() {
		const sync = ((await registration()) as { sync?: SyncManagerLike } | undefined)?.sync;
		await sync?.register(SYNC_TAG);
	},
	online: () => navigator.onLine,
	onError: (error) => reportError(error),
	clock: {
		now: () => Date.now(),
		setTimeout: (fn, ms) => setTimeout(fn, ms),
		clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
	}
});
