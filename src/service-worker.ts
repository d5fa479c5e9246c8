/// <reference lib="webworker" />
// Wiring only: precache the app shell, answer navigations with it, and hand replays to $lib/sync.
import {
	cleanupOutdatedCaches,
	createHandlerBoundToURL,
	precacheAndRoute
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { errorRecord } from '$lib/sync/errors';
import { isToWorker, SYNC_TAG, type FromWorker } from '$lib/sync/messages';
import { retryUnreachable } from '$lib/sync/outbox';
import { contactKind, reachability } from '$lib/sync/reachability';
import type { ReplaySummary } from '$lib/sync/replay';
import { replayer } from '$lib/sync/replayer';

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

/** The Static Routing API's part of the install event (Chromium 123+); missing from lib.webworker. */
interface RoutingInstallEvent extends ExtendableEvent {
	addRoutes?: (
		rules: { condition: { urlPattern: { pathname: string } }; source: 'network' }[]
	) => Promise<void>;
}

// The service's requests and event streams go to the network without this worker, where the
// browser can route them so: the worker is not started for them, and above all a retiring worker
// is not woken by them. A waiting update activates only once the old worker is idle and stopped;
// the app's API traffic while the steward taps "Reload" kept it awake, and the update stalled at
// "Updating…" (issue 31). Elsewhere the fetch handler below lets them pass untouched.
self.addEventListener('install', (event) => {
	const install = event as RoutingInstallEvent;
	if (typeof install.addRoutes !== 'function') return;
	install.waitUntil(
		install
			.addRoutes([
				// The service at the app's origin, and under a path prefix (/results/api/…). A service on
				// another origin (Settings) is not the worker's to route: its fetch events pass through.
				{ condition: { urlPattern: { pathname: '/api/*' } }, source: 'network' },
				{ condition: { urlPattern: { pathname: '/*/api/*' } }, source: 'network' }
			])
			.catch((e: unknown) => console.warn('Ringside: static routes not taken', e))
	);
});

// Every in-app navigation gets the SPA shell (precached as '/'); API calls never do.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/'), { denylist: [/^\/api\//] }));

// Outcomes go to IndexedDB, where every open page reads them through live queries. When to replay
// is the page's scheduler's decision ($lib/sync/scheduler); here only: the worker's start, the
// page's request, and Background Sync.
// A worker about to be replaced stops replaying: the new worker takes over only once this one is
// idle, and a long replay at a slow ring would keep the steward's "Reload" waiting for it. Should
// the update not happen after all, replays resume after RETIRE_MS.
const RETIRE_MS = 30_000;
let retiring = new AbortController();
let retireTimer: ReturnType<typeof setTimeout> | undefined;
function retire(): void {
	retiring.abort();
	clearTimeout(retireTimer);
	retireTimer = setTimeout(() => (retiring = new AbortController()), RETIRE_MS);
}
function resume(): void {
	clearTimeout(retireTimer);
	if (retiring.signal.aborted) retiring = new AbortController();
}
const replayer_ = replayer(self.location.origin, () => retiring.signal);
/** A replay, unless this worker is retiring (then nothing: the new worker replays at its start). */
const replay = async (): Promise<ReplaySummary | null> => {
	try {
		return await replayer_();
	} catch (e) {
		if (retiring.signal.aborted) return null;
		throw e;
	}
};

/** A replay that could not run (storage, a bug) is told to every open page, which shows it. */
async function reportFailure(error: unknown): Promise<void> {
	console.error('Ringside replay failed', error);
	const message: FromWorker = { type: 'REPLAY_FAILED', error: errorRecord(error) };
	for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage(message);
}

// What the replay's requests find of the service goes to the open pages, whose reachability shows
// it and probes for the service's return: a change of kind at once, the same kind at most once a
// second (a replay of a thousand results sends a few messages, not a thousand).
const RELAY_MS = 1_000;
let relayed: { kind: string | null; at: number } = { kind: null, at: -Infinity };
reachability.onContact((contact) => {
	const kind = contactKind(contact);
	if (kind === relayed.kind && contact.at - relayed.at < RELAY_MS) return;
	relayed = { kind, at: contact.at };
	const message: FromWorker = { type: 'CONTACT', contact };
	void self.clients
		.matchAll({ type: 'window' })
		.then((clients) => clients.forEach((client) => client.postMessage(message)));
});

self.addEventListener('sync', (event) => {
	const sync = event as SyncEvent;
	if (sync.tag !== SYNC_TAG) return;
	// Fired when the network is back (or at once, for a registration made online: the page was
	// hidden with something unsent). Entries that waited for want of a network go now; those the
	// service answered with an error keep their backoff. While something is left unsent the event
	// fails, so the browser fires it again later, app closed or not.
	sync.waitUntil(
		(async () => {
			await retryUnreachable();
			const summary = await replay();
			// Retiring (null, or stopped on the way): what is left is the new worker's; failing
			// keeps the sync registered, so the browser fires it again for the new worker, app
			// closed or not.
			const left = summary === null || summary.aborted || summary.remaining > 0;
			if (left && !sync.lastChance) throw new Error('unsent edits remain');
		})()
	);
});

self.addEventListener('message', (event: ExtendableMessageEvent) => {
	const data: unknown = event.data;
	if (!isToWorker(data)) return;
	if (data.type === 'SKIP_WAITING') void self.skipWaiting();
	// A page loaded past this worker (a hard reload): taken in charge, as on the first install.
	else if (data.type === 'CLAIM') event.waitUntil(self.clients.claim());
	else if (data.type === 'RETIRE') retire();
	else if (data.type === 'RESUME') {
		resume();
		event.waitUntil(replay().then(() => undefined, reportFailure));
	} else event.waitUntil(replay().then(() => undefined, reportFailure));
});

// A "your turn" notification tapped (the follow view shows it through this worker): back to the
// view that gave it, or opened again at its address.
self.addEventListener('notificationclick', (event) => {
	event.notification.close();
	const data: unknown = event.notification.data;
	const url =
		typeof data === 'object' && data !== null && 'url' in data && typeof data.url === 'string'
			? data.url
			: self.registration.scope;
	event.waitUntil(
		(async () => {
			const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
			const view = open.find((client) => client.url === url);
			if (view) await view.focus();
			else await self.clients.openWindow(url);
		})()
	);
});

// The first worker takes charge of the open page at once, so a steward who opened the app once and
// walks out of signal can still open screens not loaded yet (their code is in the precache). An
// update waits for "Reload" (SKIP_WAITING) and then takes over the same way.
self.addEventListener('activate', (event) => {
	event.waitUntil(self.clients.claim());
});

// Every start of the worker (new, updated, or woken up) resumes whatever was left unsent.
void replay().then(() => undefined, reportFailure);
