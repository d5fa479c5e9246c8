import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cs } from './cs';
import { en as first } from './en';
import { enLater } from './en-later';
import { pluralCategories, pluralKey } from './plural';

/** Every English message: the first screens' and the later screens'. */
const en = { ...first, ...enLater };

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

/** Messages as the screens ask for them: a plural one by its stem ('sync.conflicts_one' → 'sync.conflicts'). */
function messages(tree: Tree): string[] {
	const all = new Set(keys(tree));
	return [...new Set([...all].map((key) => pluralKey(key, all)?.stem ?? key))].sort();
}

/** Plural stem → the categories a catalogue writes for it. */
function pluralForms(tree: Tree): Map<string, string[]> {
	const all = new Set(keys(tree));
	const forms = new Map<string, string[]>();
	for (const key of all) {
		const plural = pluralKey(key, all);
		if (plural) forms.set(plural.stem, [...(forms.get(plural.stem) ?? []), plural.category]);
	}
	return forms;
}

interface Use {
	key: string;
	withCount: boolean;
	file: string;
}

/** Every `t('literal.key', ...)` in the sources, and whether it passes a `count`. */
function uses(): Use[] {
	const found: Use[] = [];
	for (const file of sourceFiles('src')) {
		const text = readFileSync(file, 'utf8');
		for (const match of text.matchAll(/\bt\(\s*'([a-zA-Z0-9_.-]+)'/g)) {
			found.push({
				key: match[1]!,
				withCount: passesCount(text, match.index + match[0].length),
				file
			});
		}
	}
	return found;
}

/** Whether the arguments after the key (up to the call's closing parenthesis) name a `count`. */
function passesCount(text: string, from: number): boolean {
	let depth = 0;
	let end = from;
	for (; end < text.length; end++) {
		const ch = text[end];
		if (ch === '(') depth++;
		else if (ch === ')' && depth-- === 0) break;
	}
	return /(?<![.\w])count\s*[:,}]/.test(text.slice(from, end));
}

describe('message catalogues', () => {
	it('has every English message in Czech and no Czech message English lacks', () => {
		expect(messages(cs)).toEqual(messages(en));
		// A message is plural in both languages or in neither.
		expect([...pluralForms(cs).keys()].sort()).toEqual([...pluralForms(en).keys()].sort());
	});

	it('keeps the later screens’ words in sections of their own (merged whole when loaded)', () => {
		expect(Object.keys(enLater).filter((section) => Object.hasOwn(first, section))).toEqual([]);
	});

	it('writes every plural message in exactly the forms its language needs', () => {
		for (const [locale, tree] of [
			['en', en],
			['cs', cs]
		] as const) {
			const needed = pluralCategories(locale).sort();
			for (const [key, forms] of pluralForms(tree)) {
				expect(forms.sort(), `${locale}: ${key}`).toEqual(needed);
			}
		}
		expect(pluralCategories('cs').sort()).toEqual(['few', 'many', 'one', 'other']);
	});

	it('has no empty message', () => {
		for (const tree of [en, cs]) {
			for (const key of keys(tree)) {
				const value = key.split('.').reduce<string | Tree>((t, k) => (t as Tree)[k]!, tree);
				expect(value, key).not.toBe('');
			}
		}
	});

	it('knows every literal key the screens ask for, in both languages', () => {
		const used = new Set(uses().map((u) => u.key));
		expect(used.size).toBeGreaterThan(5);
		for (const tree of [en, cs]) {
			const known = new Set(messages(tree));
			expect([...used].filter((k) => !known.has(k))).toEqual([]);
		}
	});

	it('asks for a plural message always with a count, and for a count only with a plural message', () => {
		const plural = pluralForms(en);
		const wrong = uses()
			.filter((u) => u.withCount !== plural.has(u.key))
			.map((u) => `${u.file}: ${u.key}`);
		expect(wrong).toEqual([]);
		// The screens do count things: the check above is not vacuous.
		expect(uses().filter((u) => u.withCount).length).toBeGreaterThan(5);
	});

	it('finds a count among a call’s arguments, and only there', () => {
		const at = (text: string) => passesCount(text, text.indexOf("'", text.indexOf("'") + 1) + 1);
		expect(at("t('a.b', { count: n })")).toBe(true);
		expect(at("t('a.b', { count })")).toBe(true);
		expect(at("t('a.b', {\n\tname: f(x),\n\tcount: n\n})")).toBe(true);
		expect(at("t('a.b', { n: s.counts.conflict })")).toBe(false);
		expect(at("t('a.b', { n: e.count })")).toBe(false);
		expect(at("t('a.b') + g({ count: 1 })")).toBe(false);
	});
});

describe('plural keys', () => {
	it('tells a plural form from a key that only ends like one', () => {
		const all = new Set(['sync.conflicts_one', 'sync.conflicts_other', 'capture.err_zero']);
		expect(pluralKey('sync.conflicts_one', all)).toEqual({
			stem: 'sync.conflicts',
			category: 'one'
		});
		expect(pluralKey('capture.err_zero', all)).toBeNull();
		expect(pluralKey('sync.title', all)).toBeNull();
	});
});
