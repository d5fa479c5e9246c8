/// <reference lib="webworker" />
// Wiring only: precache the app shell, answer navigations with it, and hand the rest to $lib.
import {
	cleanupOutdatedCaches,
	createHandlerBoundToURL,
	precacheAndRoute
} from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope & {
	__WB_MANIFEST: Array<{ url: string; revision: string | null } | string>;
};

// The placeholder must stay literally `self.__WB_MANIFEST`: vite-plugin-pwa replaces it at build.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Every in-app navigation gets the SPA shell (precached as '/'); API calls never do.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/'), { denylist: [/^\/api\//] }));

self.addEventListener('message', (event: ExtendableMessageEvent) => {
	const data: unknown = event.data;
	if (data && typeof data === 'object' && (data as { type?: unknown }).type === 'SKIP_WAITING') {
		void self.skipWaiting();
	}
});
