import { sveltekit } from '@sveltejs/kit/vite';
import { SvelteKitPWA } from '@vite-pwa/sveltekit';
import { configDefaults, defineConfig } from 'vitest/config';
import { findPgBin } from './scripts/pg-bin.ts';
import { findNginx } from './scripts/nginx-bin.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service's suites that run a second time against PostgreSQL (project `postgres`, a
 * throw-away cluster): every HTTP suite that reaches the data only through the service. The
 * others reach into SQLite itself (its files, pragmas, triggers), or pin what differs on purpose
 * (push.test.ts: a restarted process starts a new feed, where instances of one PostgreSQL share
 * theirs): server/postgres.test.ts has their PostgreSQL counterparts.
 */
const POSTGRES_SUITES = [
	'server/contract.test.ts',
	'server/conditional.test.ts',
	'server/tag-cache.test.ts',
	'server/properties.test.ts',
	'server/http/faults.test.ts',
	'server/client-abort.test.ts',
	'server/proxy/proxy.test.ts',
	'server/timer/timer.test.ts',
	'server/postgres.test.ts',
	'server/store/store.contract.test.ts',
	'server/concurrency.test.ts',
	'server/bad-bytes.test.ts',
	'server/event-network.test.ts',
	'server/mirror/mirror.test.ts',
	'server/mirror/chaos.test.ts',
	'server/mirror/link.test.ts',
	'server/mirror/shared-rings.test.ts',
	'src/lib/sync/**/*.test.ts'
];

/** RINGSIDE_TEST_PG=1: always (fails without PostgreSQL); 0: never; unset: when initdb is found. */
function postgresTests(): boolean {
	const flag = process.env.RINGSIDE_TEST_PG;
	if (flag === '0') return false;
	if (flag === '1') return true;
	return findPgBin() !== null;
}

/**
 * The suites that run against two instances in separate processes behind nginx (project
 * `topology`, scripts/topology.ts): the contract tests through the proxy (its setup file starts
 * the topology in place of `createService`) and the checks only separate processes show.
 */
const TOPOLOGY_SUITES = ['server/topology.test.ts', 'server/contract.test.ts'];

/** As `postgresTests`, and nginx too (RINGSIDE_TEST_PG=1: fails when either is missing). */
function topologyTests(): boolean {
	if (!postgresTests()) return false;
	return process.env.RINGSIDE_TEST_PG === '1' || findNginx() !== null;
}

/**
 * Route 1's certificate from a real ACME server (server/tls/acme.test.ts): Debian's pebble and
 * lego. RINGSIDE_TEST_ACME=1: always (fails without them, as CI sets it); 0: never; unset: when
 * both are found.
 */
function acmeTests(): boolean {
	const flag = process.env.RINGSIDE_TEST_ACME;
	if (flag === '0') return false;
	if (flag === '1') return true;
	const found = (bin: string) =>
		(process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, bin)));
	return found('pebble') && found('pebble-challtestsrv') && found('lego');
}

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
		environment: 'node',
		setupFiles: ['vitest.setup.ts'],
		testTimeout: 20_000,
		projects: [
			{
				extends: true,
				test: {
					name: 'unit',
					include: ['src/**/*.test.ts', 'server/**/*.test.ts'],
					// Need the clusters of the postgres and topology projects; runes tests run in their own.
					exclude: [
						...configDefaults.exclude,
						'server/postgres.test.ts',
						'server/topology.test.ts',
						'server/tls/acme.test.ts',
						'src/**/*.svelte.test.ts'
					]
				}
			},
			{
				// Svelte state with effects (*.svelte.test.ts): Svelte's client runtime, where effects
				// run ($effect.root, flushSync); the server runtime, which node's environment gets,
				// never runs them.
				extends: true,
				resolve: { conditions: ['browser'] },
				test: {
					name: 'runes',
					include: ['src/**/*.svelte.test.ts'],
					environment: './scripts/vitest/svelte-client-environment.ts',
					// Through Vite, so that `svelte` resolves to the same client runtime as the code.
					server: { deps: { inline: [/svelte/] } }
				}
			},
			...(postgresTests()
				? [
						{
							extends: true as const,
							test: {
								name: 'postgres',
								include: POSTGRES_SUITES,
								globalSetup: ['server/test-pg/global-setup.ts'],
								setupFiles: ['server/test-pg/engine.setup.ts']
							}
						}
					]
				: []),
			...(topologyTests()
				? [
						{
							extends: true as const,
							test: {
								name: 'topology',
								include: TOPOLOGY_SUITES,
								hookTimeout: 120_000,
								testTimeout: 60_000,
								setupFiles: ['server/test-pg/topology.setup.ts']
							}
						}
					]
				: []),
			...(acmeTests()
				? [
						{
							extends: true as const,
							test: { name: 'acme', include: ['server/tls/acme.test.ts'] }
						}
					]
				: [])
		]
	}
});
