/**
 * Plural forms in the catalogues, the i18next way (JSON v4): a message shown with a count is
 * written once per plural category of its language, as `key_one`, `key_few`, ..., and asked for by
 * its stem `key` with a `count`; i18next picks the form with Intl.PluralRules. English needs one and other;
 * Czech one (1), few (2–4), many (1,5) and other (0, 5, ...).
 */

export const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;
export type PluralCategory = (typeof PLURAL_CATEGORIES)[number];

const PLURAL_SUFFIX = /^(.+)_(zero|one|two|few|many|other)$/;

/**
 * 'sync.conflicts_few' → the stem 'sync.conflicts' and the category 'few', if `keys` (all keys of
 * the catalogue) hold the stem's `_other` form too; null for a plain key, even one that merely ends
 * like a plural form ('capture.err_zero').
 */
export function pluralKey(
	key: string,
	keys: ReadonlySet<string>
): { stem: string; category: PluralCategory } | null {
	const match = PLURAL_SUFFIX.exec(key);
	if (!match || !keys.has(`${match[1]}_other`)) return null;
	return { stem: match[1]!, category: match[2] as PluralCategory };
}

/** The cardinal plural forms a language needs, as Intl.PluralRules (and so i18next) knows them. */
export function pluralCategories(locale: string): PluralCategory[] {
	return new Intl.PluralRules(locale).resolvedOptions().pluralCategories as PluralCategory[];
}

// A plural message always has an `_other` form (every language has that category), which tells
// it from a plain key that merely ends like one (`capture.err_zero`).
type Stem<T, K> = K extends `${infer S}_${PluralCategory}`
	? `${S}_other` extends keyof T
		? S
		: never
	: never;
type Plain<T, K> = [Stem<T, K>] extends [never] ? K : never;
type PluralForms<T, K> =
	Stem<T, K> extends infer S extends string ? `${S}_${PluralCategory}` : never;

/**
 * Another language's catalogue: every plain key of the English one, and for every English plural
 * message the forms of its own language (the catalogue test checks that exactly the needed ones
 * are there).
 */
export type Localised<M> = {
	[S in keyof M]: { [K in keyof M[S] as Plain<M[S], K>]: string } & {
		[K in keyof M[S] as PluralForms<M[S], K>]?: string;
	};
};
