import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
const config = {
	preprocess: vitePreprocess(),
	kit: {
		// A static single-page app: every route renders in the browser from IndexedDB, so the
		// same shell (index.html) serves every path and can be precached for offline starts.
		adapter: adapter({ fallback: 'index.html', strict: true }),
		// The service worker is registered through workbox-window (src/lib/pwa), not by Kit.
		serviceWorker: { register: false },
		version: { pollInterval: 0 }
	}
};

export default config;
