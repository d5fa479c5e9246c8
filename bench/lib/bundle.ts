import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

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
		minify: true,
		alias: { $lib: join(ROOT, 'src', 'lib') },
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
