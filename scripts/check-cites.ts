/**
 * Fails when a comment or a document cites a file that does not exist (a renamed or removed
 * module leaves its citations behind: live-updates.ts once cited lines that were gone, and seed.ts
 * a seed-rows module that never was). Run by `npm run lint`.
 *
 * A citation is a path with a slash and a file extension (`src/lib/sync/outbox.ts`,
 * `ui/view/run-view.ts`, `$lib/db/queries`, `docs/service.md`). It counts as found when it names a file
 * relative to the repository, the citing file's folder or one above it, `src/lib` or `server`
 * (`$lib/…` is `src/lib/…`, with or without its extension). Files of other repositories cited on
 * purpose are written with their repository (`immich-app/immich, web/`) or a URL, and skipped, as
 * are the folders the app writes at run time (data/, test-results/) and the workplace's ../shared.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'server', 'tests', 'bench', 'scripts', 'docs', 'README.md', '.ci'];
const SKIP_DIRS = new Set(['node_modules', 'results', '.svelte-kit', 'build']);
const TEXT = /\.(ts|js|mjs|svelte|md|css|html|json|sh)$|^run$/;
const EXTENSIONS = ['', '.ts', '.svelte.ts', '.svelte', '.js', '/index.ts'];

/** A `$lib/` path, or a path with a slash ending in a file extension. */
const CITATION =
	/(\$lib\/[\w./[\]-]+|(?:[\w[\]-]+\/)+[\w.[\]-]+\.(?:ts|js|mjs|svelte|md|json|css|sh|sql)(?![\w]))/g;
/** Folders of what the app and its tests write at run time, and the workplace's shared notes. */
const NOT_SOURCE = /^(data|test-results|tmp|build|_app|shared)\//;

function files(at: string): string[] {
	const path = join(ROOT, at);
	if (!existsSync(path)) return [];
	if (statSync(path).isFile()) return [at];
	return readdirSync(path).flatMap((name) => (SKIP_DIRS.has(name) ? [] : files(join(at, name))));
}

function found(cited: string, from: string): boolean {
	const clean = cited.replace(/[.)]+$/, '').replace(/:\d+(-\d+)?$/, '');
	const bases = clean.startsWith('$lib/')
		? [join(ROOT, 'src/lib', clean.slice('$lib/'.length))]
		: [
				ROOT,
				dirname(join(ROOT, from)),
				dirname(dirname(join(ROOT, from))),
				join(ROOT, 'src/lib'),
				join(ROOT, 'server')
			].map((base) => join(base, clean));
	return bases.some((base) => EXTENSIONS.some((ext) => existsSync(base + ext)));
}

/** A citation of another project's file (a repository named beside it, or a URL). */
function elsewhere(line: string, index: number): boolean {
	const before = line.slice(Math.max(0, index - 80), index);
	return (
		/https?:\/\/\S*$/.test(before) ||
		/[\w-]+\/[\w.-]+(,| \()\s*[\w/.-]*$/.test(before) ||
		/\b(node_modules|rocicorp|sveltejs|immich|actualbudget|GoogleChrome|tldraw)\b/.test(before)
	);
}

const problems: string[] = [];
for (const file of SCANNED.flatMap(files).filter((f) => TEXT.test(f.split('/').pop() ?? ''))) {
	const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
	lines.forEach((line, i) => {
		for (const match of line.matchAll(CITATION)) {
			const cited = match[0].replace(/^\[/, '');
			const at = match.index ?? 0;
			if (cited.includes('*') || cited.startsWith('node_modules/') || NOT_SOURCE.test(cited)) {
				continue;
			}
			// A path inside a URL or an address (`/_app/…`), or beside the repository (`../shared/…`).
			if (at > 0 && '/.'.includes(line[at - 1] ?? '')) continue;
			if (elsewhere(line, at)) continue;
			if (!found(cited, file))
				problems.push(`${file}:${i + 1}: cites ${cited}, which is not there`);
		}
	});
}

if (problems.length > 0) {
	console.error(problems.join('\n'));
	console.error(
		`\n${problems.length} citation(s) of files that do not exist (scripts/check-cites.ts)`
	);
	process.exit(1);
}
console.log('check-cites: every cited file exists');
