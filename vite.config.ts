import { sveltekit } from '@sveltejs/kit/vite';
import { SvelteKitPWA } from '@vite-pwa/sveltekit';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	plugins: [
		sveltekit(),
		SvelteKitPWA({
			strategies: 'injectManifest',
			srcDir: 'src',
			filename: 'service-worker.ts',
			registerType: 'prompt',
			injectRegister: false,
			manifest: false,
			injectManifest: {
				globPatterns: ['client/**/*.{js,css,ico,png,svg,webp,woff,woff2,webmanifest}']
			},
			kit: {
				adapterFallback: 'index.html',
				// The SPA shell is served for '/', the one navigation URL the worker answers with.
				spa: { fallbackMapping: '/' }
			},
			devOptions: { enabled: false }
		})
	],
	test: {
		include: ['src/**/*.test.ts', 'server/**/*.test.ts'],
		environment: 'node',
		setupFiles: ['vitest.setup.ts'],
		testTimeout: 20_000
	}
});
