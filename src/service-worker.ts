/// <reference lib="webworker" />
// Wiring only: precache the app shell, answer navigations with it, and hand replays to $lib/sync.
import {
	cleanupOutdatedCaches,
	createHandlerBoundToURL,
	precacheAndRoute
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { isToWorker, SYNC_TAG } from '$lib/sync/messages';
import { retryNow } from '$lib/sync/outbox';
import { replayer } from '$lib/sync/run-replay';

declare const self: ServiceWorkerGlobalScope & {
	__WB_MANIFEST: Array<{ url: string; revision: string | null } | string>;
};

/** Background Sync's event: missing from lib.webworker. */
interface SyncEvent extends ExtendableEvent {
	readonly tag: string;
	readonly lastChance: boolean;
}

// The placeholder must stay literally `self.__WB_MANIFEST`: vite-plugin-pwa replaces it at build.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Every in-app navigation gets the SPA shell (precached as '/'); API calls never do.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/'), { denylist: [/^\/api\//] }));

// Outcomes go to IndexedDB, where every open page reads them through live queries.
const replay = replayer(self.location.origin);

self.addEventListener('sync', (event) => {
	const sync = event as SyncEvent;
	// The browser fires this when the network is back: entries waiting out a backoff go at once.
	// A rejection tells the browser to retry this sync later; the outbox keeps every entry anyway.
	if (sync.tag === SYNC_TAG) sync.waitUntil(retryNow().then(replay));
});

self.addEventListener('message', (event: ExtendableMessageEvent) => {
	const data: unknown = event.data;
	if (!isToWorker(data)) return;
	if (data.type === 'SKIP_WAITING') void self.skipWaiting();
	else event.waitUntil(replay().catch(() => undefined));
});

// The first worker takes charge of the open page at once, so a steward who opened the app once and
// walks out of signal can still open screens not loaded yet (their code is in the precache). An
// update waits for "Reload" (SKIP_WAITING) and then takes over the same way.
self.addEventListener('activate', (event) => {
	event.waitUntil(self.clients.claim());
});

// Every start of the worker (new, updated, or woken up) resumes whatever was left unsent.
void replay().catch(() => undefined);
