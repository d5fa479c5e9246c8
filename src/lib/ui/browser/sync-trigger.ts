/**
 * The page's replay scheduler ($lib/sync/scheduler), wired to this page: a replay is asked of the
 * service worker (which holds the replay code), or made in the page where there is no worker.
 * Nobody reports a save: the scheduler hears the outbox itself ($lib/sync/outbox-watch), whose
 * change is the news; $lib/ui/state/sync-status starts it and hands it the page's events.
 */
import { isFromWorker, SYNC_TAG, type ToWorker } from '$lib/sync/messages';
import { outboxStateOf, watchOutbox } from '$lib/sync/outbox-watch';
import { ReplayScheduler } from '$lib/sync/scheduler';
import { updateManager } from '$lib/pwa/update-manager.svelte';

interface SyncManagerLike {
	register(tag: string): Promise<void>;
}

let inPage: (() => Promise<unknown>) | undefined;

async function registration(): Promise<ServiceWorkerRegistration | undefined> {
	return 'serviceWorker' in navigator ? navigator.serviceWorker.getRegistration() : undefined;
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
		// The steward tapped Reload: nothing goes to the retiring worker (it would wake it and hold
		// the switch); the new worker replays at its start, or this page again if it goes on.
		if (updateManager.updating) return;
		const worker = (await registration())?.active;
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
		if (updateManager.updating) return;
		const sync = ((await registration()) as { sync?: SyncManagerLike } | undefined)?.sync;
		await sync?.register(SYNC_TAG);
	},
	online: () => navigator.onLine,
	watchOutbox: (next) => watchOutbox((summary) => next(outboxStateOf(summary))),
	onError: (error) => reportError(error),
	clock: {
		now: () => Date.now(),
		setTimeout: (fn, ms) => setTimeout(fn, ms),
		clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
	}
});
