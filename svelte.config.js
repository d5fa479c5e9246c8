import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

// Where the app may connect besides its own origin (the embedded service or a proxy in front of a
// real one). A build for a service on another origin names it: RINGSIDE_CONNECT_SRC="https://x".
const connectSrc = (process.env.RINGSIDE_CONNECT_SRC ?? '').split(/\s+/).filter(Boolean);

/** @type {import('@sveltejs/kit').Config} */
const config = {
	preprocess: vitePreprocess(),
	kit: {
		// A static single-page app: every route renders in the browser from IndexedDB, so the
		// same shell (index.html) serves every path and can be precached for offline starts.
		adapter: adapter({ fallback: 'index.html', strict: true }),
		// The service worker is registered through workbox-window (src/lib/pwa), not by Kit.
		serviceWorker: { register: false },
		version: { pollInterval: 0 },
		// No inline script but Kit's own (hashed), no markup from the service can run, and fetches
		// go only to the app's origin and the configured service.
		csp: {
			mode: 'hash',
			directives: {
				'default-src': ['self'],
				'script-src': ['self'],
				'style-src': ['self', 'unsafe-inline'],
				'img-src': ['self', 'data:'],
				'font-src': ['self'],
				'connect-src': ['self', ...connectSrc],
				'worker-src': ['self'],
				'manifest-src': ['self'],
				'object-src': ['none'],
				'base-uri': ['self'],
				'form-action': ['self']
			}
		}
	}
};

export default config;
