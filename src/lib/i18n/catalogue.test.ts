import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cs } from './cs';
import { en } from './en';

type Tree = { [key: string]: string | Tree };

function keys(tree: Tree, prefix = ''): string[] {
	return Object.entries(tree).flatMap(([k, v]) =>
		typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)
	);
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return /\.(svelte|ts)$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
	});
}

describe('message catalogues', () => {
	it('has every English key in Czech and no Czech key English lacks', () => {
		expect(keys(cs).sort()).toEqual(keys(en).sort());
	});

	it('has no empty message', () => {
		for (const tree of [en, cs]) {
			for (const key of keys(tree)) {
				const value = key.split('.').reduce<string | Tree>((t, k) => (t as Tree)[k]!, tree);
				expect(value, key).not.toBe('');
			}
		}
	});

	it('knows every literal key the screens ask for', () => {
		const known = new Set(keys(en));
		const used = new Set<string>();
		for (const file of sourceFiles('src')) {
			for (const match of readFileSync(file, 'utf8').matchAll(/\bt\('([a-zA-Z0-9_.-]+)'/g)) {
				used.add(match[1]!);
			}
		}
		expect(used.size).toBeGreaterThan(5);
		expect([...used].filter((k) => !known.has(k))).toEqual([]);
	});
});
