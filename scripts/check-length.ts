/**
 * Fails when a source file runs over about 300 lines and its first comment does not say why (the
 * house's rule, as in the codebases it learns from: many small files, each one job; a long one is
 * the exception and says so). Tests, generated files and results are not counted. Run by
 * `npm run lint`.
 *
 * A file says why with a sentence beginning "Long because" in its first comment (a Svelte
 * component's first comment may be inside its script).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
/** "About 300": a file a screen or two past it is not split for the sake of a number. */
export const MAX_LINES = 330;
const SCANNED = ['src', 'server', 'scripts', 'bench'];
const SKIP_DIRS = new Set(['node_modules', '.svelte-kit', 'build']);
/** The bench's figures (generated), not every folder named `results`: a screen may be. */
const SKIP_PATHS = new Set([join('bench', 'results')]);
const SOURCE = /\.(ts|js|mjs|svelte)$/;
const TEST = /\.(test|spec)\.(ts|js)$|\/test-support\.ts$|\/test-pg\//;

function files(at: string): string[] {
	const path = join(ROOT, at);
	if (!existsSync(path)) return [];
	if (statSync(path).isFile()) return [at];
	return readdirSync(path).flatMap((name) =>
		SKIP_DIRS.has(name) || SKIP_PATHS.has(join(at, name)) ? [] : files(join(at, name))
	);
}

/** The first comment of a file: `//` lines or a block, after imports of a Svelte script too. */
function firstComment(text: string): string {
	const body = text.replace(/^\s*<script[^>]*>/, '');
	const block = /\/\*[\s\S]*?\*\//.exec(body);
	const lines = /(?:^|\n)((?:\s*\/\/.*\n)+)/.exec(body);
	const candidates = [block, lines].filter((m): m is RegExpExecArray => m !== null);
	candidates.sort((a, b) => a.index - b.index);
	return candidates[0]?.[0] ?? '';
}

const problems: string[] = [];
for (const file of SCANNED.flatMap(files)) {
	if (!SOURCE.test(file) || TEST.test(file)) continue;
	const text = readFileSync(join(ROOT, file), 'utf8');
	const lines = text.split('\n').length;
	if (lines <= MAX_LINES) continue;
	if (/Long because/.test(firstComment(text))) continue;
	problems.push(
		`${file}: ${lines} lines, and its first comment does not say why ("Long because …")`
	);
}

if (problems.length > 0) {
	console.error(problems.join('\n'));
	console.error(
		`\n${problems.length} file(s) over about 300 lines without a reason (scripts/check-length.ts)`
	);
	process.exit(1);
}
console.log(`check-length: every source file is under ${MAX_LINES} lines or says why`);
