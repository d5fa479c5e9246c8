import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';

/**
 * The house's map (README, "How it fits together"), kept by the linter: each layer imports only
 * the layers under it. Data flows one way: UI → sync/domain → db/api; contract and domain are pure.
 *
 *   contract   nothing of the app (fields, limits and PUT schemas with valibot, the chronometer's
 *              protocol; the app and the service share it)
 *   domain     contract
 *   api        contract
 *   db         api, domain, contract
 *   timing     api, contract, domain
 *   sync       api, db, domain, contract (no DOM, no Svelte: the page and the worker share it)
 *   worker     sync, db, api, domain, contract (never $app, never ui)
 *   ui, routes everything below, but the database only through db/queries, db/keys and the
 *              settings store (named reads), observed live through db/observe (never Dexie);
 *              live updates are stored by sync/live-store
 *   ui/view    what a screen shows, as plain functions: no components, no state, no Svelte
 *   i18n       nothing of the app (the catalogues, i18next, Intl; Svelte for its state)
 *   pwa        sync/messages only (it registers the worker and talks to it)
 *   server     the app's contract only (its timer bridge parses lines with the app's parser)
 *   server/store    the SQL and the engines, under routes, changes and mirror
 *   server/changes  neither routes nor mirror: both apply a change through it
 *   server/mirror  also the app's api (the HAL client reads the upstream by links, as a phone
 *              does), domain (the outbox's state machine) and sync (the scheduler, reachability,
 *              prober, hung requests, failure classification): a client of the upstream service
 *              on the phone's sync core
 * A relative import is checked like its `$lib` form.
 */
/**
 * A layer's forbidden imports, each `$lib/x/*` also as the relative `../x/*` a file of a sibling
 * layer would write (a relative import is checked like a `$lib` one).
 */
const layer = (group, message) => ({
	group: [
		...new Set(group.flatMap((g) => (/^\$lib\/[\w-]+\//.test(g) ? [g, `../${g.slice(5)}`] : [g])))
	],
	message
});
const UPWARD_FROM_CORE = [
	'$lib/api/*',
	'$lib/db/*',
	'$lib/sync/*',
	'$lib/ui/*',
	'$lib/timing/*',
	'$lib/pwa/*'
];
const UI_AND_APP = ['$lib/ui/*', '$lib/pwa/*', '$app/*', 'svelte', 'svelte/*'];
/** What every screen and ui module keeps to (a later rule for the same files replaces it: include it). */
const SCREENS = [
	layer(['dexie'], 'Screens read the database through named queries ($lib/db/queries).'),
	{
		group: ['$lib/db/db'],
		allowTypeImports: true,
		message: 'Screens read the database through named queries ($lib/db/queries); types are fine.'
	},
	layer(
		['$lib/db/outbox-store', '$lib/db/snapshot-store'],
		'Screens write through the steward’s commands ($lib/ui/state/steward) and read by $lib/db/queries.'
	)
];
/** What the service shares with the app (server/changes adds its own rule to it). */
const SERVICE = [
	layer(
		[
			'**/src/lib/api/**',
			'**/src/lib/db/**',
			'**/src/lib/domain/**',
			'**/src/lib/sync/**',
			'**/src/lib/pwa/**',
			'**/src/lib/ui/**',
			'**/src/lib/timing/**',
			'**/src/lib/i18n/**',
			'$lib/*'
		],
		'The service shares only src/lib/contract with the app (the mirror, a client of the upstream, more: see there).'
	)
];
const boundaries = (files, patterns, extra = {}) => ({
	files,
	ignores: extra.ignores ?? [],
	rules: { 'no-restricted-imports': ['error', { patterns }] }
});

export default ts.config(
	{
		ignores: [
			'build/',
			'.svelte-kit/',
			'node_modules/',
			'data/',
			'test-results/',
			'playwright-report/',
			'bench/results/'
		]
	},
	js.configs.recommended,
	...ts.configs.recommended,
	...svelte.configs.recommended,
	prettier,
	...svelte.configs.prettier,
	{
		languageOptions: { globals: { ...globals.browser, ...globals.node } },
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
			],
			// Playwright fixtures take `({}, use)`: an empty pattern is how they declare no dependency.
			'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }],
			// Links come from the service (HAL), not from the app's routes.
			'svelte/no-navigation-without-resolve': 'off'
		}
	},
	boundaries(
		['src/lib/contract/**'],
		[
			layer(
				['$lib/*', '../*', 'svelte', 'dexie'],
				'contract/ imports nothing of the app (valibot for its schemas): the app and the service both build on it.'
			)
		]
	),
	boundaries(
		['src/lib/domain/**'],
		[
			layer(
				[...UPWARD_FROM_CORE, '$lib/i18n/*', 'dexie', ...UI_AND_APP],
				'domain/ is pure: it imports only domain/ and contract/ (no I/O, no words).'
			)
		]
	),
	boundaries(
		['src/lib/api/**'],
		[
			layer(
				[
					'$lib/db/*',
					'$lib/sync/*',
					'$lib/ui/*',
					'$lib/timing/*',
					'$lib/domain/*',
					'dexie',
					...UI_AND_APP
				],
				'api/ is the HAL client: it imports only api/ and contract/.'
			)
		]
	),
	boundaries(
		['src/lib/db/**'],
		[layer(['$lib/sync/*', '$lib/timing/*', ...UI_AND_APP], 'db/ never imports upward (sync, ui).')]
	),
	boundaries(
		['src/lib/timing/**'],
		[layer(['$lib/sync/*', '$lib/db/*', ...UI_AND_APP], 'timing/ is below ui and beside sync.')]
	),
	boundaries(
		['src/lib/sync/**'],
		[
			layer(
				['$lib/timing/*', '$lib/i18n/*', ...UI_AND_APP],
				'sync/ has no DOM and no Svelte: the page and the service worker share it.'
			)
		]
	),
	boundaries(
		['src/lib/i18n/**'],
		[
			layer(
				[...UPWARD_FROM_CORE, '$lib/domain/*', 'dexie', '$lib/ui/*', '$app/*'],
				'i18n/ is the words and their formats (i18next, Intl): it imports nothing of the app.'
			)
		]
	),
	boundaries(
		['src/lib/pwa/**'],
		[
			layer(
				['$lib/ui/*', '$lib/db/*', '$lib/timing/*', '$lib/api/*', 'dexie'],
				'pwa/ registers the worker and talks to it: it imports only sync/messages.'
			)
		]
	),
	boundaries(
		['src/service-worker.ts', 'src/service-worker/**'],
		[
			layer(
				['$lib/timing/*', '$lib/i18n/*', ...UI_AND_APP],
				'The worker is wiring only: sync/, db/, api/.'
			)
		]
	),
	boundaries(['src/routes/**', 'src/lib/ui/**'], SCREENS, {
		// The screens' tests, which arrange what the device holds before the screen reads it.
		ignores: ['src/lib/ui/**/*.test.ts']
	}),
	boundaries(
		['src/lib/ui/view/**'],
		[
			...SCREENS,
			layer(
				['$lib/ui/components/*', '$lib/ui/state/*', '$lib/pwa/*', '$app/*', 'svelte', 'svelte/*'],
				'ui/view/ is plain functions of the device\u2019s data: no components, no state, no Svelte.'
			),
			layer(['../components/*', '../state/*'], 'ui/view/ imports no components and no state.')
		],
		{ ignores: ['src/lib/ui/**/*.test.ts'] }
	),
	boundaries(
		['server/**'],
		SERVICE,
		// The mirror (below); the service's tests, which drive it with the app's own client.
		{ ignores: ['server/mirror/**', 'server/**/*.test.ts', 'server/test-support.ts'] }
	),
	boundaries(
		['server/mirror/**'],
		[
			layer(
				[
					'**/src/lib/db/**',
					'**/src/lib/ui/**',
					'**/src/lib/timing/**',
					'**/src/lib/i18n/**',
					'$lib/*'
				],
				'The mirror is a client of the upstream on the app\u2019s sync core (api, domain, sync), nothing with a DOM.'
			),
			layer(
				['../routes/*', '**/server/routes/**'],
				'The mirror changes results through server/changes, as the routes do; the routes call the mirror, not the other way.'
			)
		]
	),
	boundaries(
		['server/store/**'],
		[
			...SERVICE,
			layer(
				[
					'../routes/*',
					'**/server/routes/**',
					'../mirror/*',
					'**/server/mirror/**',
					'../changes/*',
					'**/server/changes/**'
				],
				'server/store holds the SQL and the engines: the routes, the changes and the mirror call it, never the other way.'
			)
		],
		{ ignores: ['server/**/*.test.ts'] }
	),
	boundaries(
		['server/changes/**'],
		[
			...SERVICE,
			layer(
				['../routes/*', '**/server/routes/**', '../mirror/*', '**/server/mirror/**'],
				'A change is applied the same for a PUT and for the mirror\u2019s pull: server/changes knows neither.'
			)
		]
	),
	{
		files: ['**/*.svelte', '**/*.svelte.ts', '**/*.svelte.js'],
		languageOptions: {
			parserOptions: {
				projectService: true,
				extraFileExtensions: ['.svelte'],
				parser: ts.parser,
				svelteConfig
			}
		}
	}
);
