import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { profileDir } from './profile.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * The `src/lib` the page is built from: this checkout's, or another tree's given in
 * RINGSIDE_BENCH_LIB (e.g. an older commit's `git archive` of src/), so that two versions of the
 * app's code can be measured alternately with the same bench and on the same machine load.
 */
export const benchLib = (): string =>
	process.env.RINGSIDE_BENCH_LIB
		? resolve(process.env.RINGSIDE_BENCH_LIB)
		: join(ROOT, 'src', 'lib');

/**
 * Bundles the bench page (the app's real src/lib code, `$lib` resolved as Kit does) into `dir`,
 * with an index.html, ready to be served as the service's appDir.
 */
export async function bundleBenchPage(dir: string): Promise<void> {
	mkdirSync(dir, { recursive: true });
	await build({
		entryPoints: [join(ROOT, 'bench', 'pages', 'bench-page.ts')],
		outfile: join(dir, 'bench.js'),
		bundle: true,
		format: 'esm',
		platform: 'browser',
		target: 'es2022',
		// Readable function names in a CPU profile (RINGSIDE_BENCH_PROFILE) when one is asked for.
		minify: !profileDir(),
		alias: { $lib: benchLib() },
		// Packages from this checkout, also for a src/lib outside it.
		nodePaths: [join(ROOT, 'node_modules')],
		// Workbox prints its debug logs unless built for production.
		define: { 'process.env.NODE_ENV': '"production"' },
		logLevel: 'warning'
	});
	writeFileSync(
		join(dir, 'index.html'),
		'<!doctype html><html><head><meta charset="utf-8"><title>Ringside bench</title></head>' +
			'<body><script type="module" src="/bench.js"></script></body></html>\n'
	);
}
