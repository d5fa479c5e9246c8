import { en } from './en';

export const LOCALES = ['en', 'cs'] as const;
export type Locale = (typeof LOCALES)[number];

/**
 * The catalogues in use, the i18next way (JSON v4) without i18next, which was most of the first
 * screen's script: dotted keys into nested objects, `{{name}}` interpolation without escaping
 * (Svelte renders text nodes), plural forms `key_zero` (count 0), `key_<Intl.PluralRules category>`,
 * then `key`, looked up in the chosen language and then in English; a key found nowhere is shown
 * as itself. English is built in; Czech loads when chosen, so the first screen carries one
 * catalogue.
 */
interface Catalogue {
	readonly [key: string]: string | Catalogue;
}
const catalogues: Partial<Record<Locale, Catalogue>> = { en };
const pluralRules: Partial<Record<Locale, Intl.PluralRules>> = {};
const INTERPOLATION = /{{(.+?)}}/g;

function lookup(catalogue: Catalogue | undefined, key: string): string | undefined {
	let node: string | Catalogue | undefined = catalogue;
	for (const part of key.split('.')) {
		if (typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
		node = node[part];
	}
	return typeof node === 'string' ? node : undefined;
}

function resolve(locale: Locale, key: string, count: unknown): string {
	const plural = count !== undefined && typeof count !== 'string';
	for (const code of locale === 'en' ? (['en'] as const) : [locale, 'en' as const]) {
		const catalogue = catalogues[code];
		if (plural) {
			if (count === 0) {
				const zero = lookup(catalogue, `${key}_zero`);
				if (zero !== undefined) return zero;
			}
			const rules = (pluralRules[code] ??= new Intl.PluralRules(code));
			const form = lookup(catalogue, `${key}_${rules.select(Number(count))}`);
			if (form !== undefined) return form;
		}
		const plain = lookup(catalogue, key);
		if (plain !== undefined) return plain;
	}
	return key;
}

/**
 * `{{a}}` and `{{a.b}}` from `values`, as i18next does it: a value given as undefined is left out,
 * a placeholder with no value at all stays as written.
 */
function interpolate(text: string, values: Record<string, unknown> | undefined): string {
	if (!text.includes('{{')) return text;
	return text.replace(INTERPOLATION, (placeholder, name: string) => {
		const path = name.trim();
		let value: unknown = values;
		for (const part of path.split('.')) {
			value =
				typeof value === 'object' && value !== null
					? (value as Record<string, unknown>)[part]
					: undefined;
		}
		if (value === undefined) {
			return values !== undefined && Object.hasOwn(values, path) ? '' : placeholder;
		}
		return value === null ? '' : String(value);
	});
}

/** Picks the first supported language from the device's list. */
export function deviceLocale(languages: readonly string[]): Locale {
	for (const tag of languages) {
		const base = tag.toLowerCase().split('-')[0];
		if (base === 'cs' || base === 'sk') return 'cs';
		if (base === 'en') return 'en';
	}
	return 'en';
}

class I18n {
	locale = $state<Locale>('en');
	/** The words of the screens not on the first screen are in ('./en-later'). */
	laterLoaded = $state(false);
	#later: Promise<void> | null = null;

	#request = 0;

	async set(locale: Locale): Promise<void> {
		const request = ++this.#request;
		if (locale === 'cs' && catalogues.cs === undefined) {
			const { cs } = await import('./cs');
			catalogues.cs = cs;
		}
		// A later choice made while the catalogue loaded wins.
		if (request !== this.#request) return;
		this.locale = locale;
		if (typeof document !== 'undefined') document.documentElement.lang = locale;
	}

	/**
	 * The English words of the screens a first visit does not show (./en-later: a shared address's
	 * progress, the spectators' view, …), loaded by those screens before they speak, so the first
	 * screen carries none of them. Czech has every word in its own catalogue, loaded when chosen.
	 */
	loadLater(): Promise<void> {
		return (this.#later ??= import('./en-later').then(({ enLater }) => {
			catalogues.en = { ...en, ...enLater };
			this.laterLoaded = true;
		}));
	}

	/**
	 * Translate a dotted key; reading `locale` (and whether the later words are in) makes every
	 * caller re-render on a switch.
	 */
	t = (key: string, values?: Record<string, unknown>): string => {
		void this.laterLoaded;
		// Keys are checked by the catalogue test (every key used exists in both languages), so the
		// loosely typed signature is enough here.
		return interpolate(resolve(this.locale, key, values?.count), values);
	};

	date = (iso: string, opts: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }): string => {
		const [y, m, d] = iso.split('-').map(Number);
		if (!y || !m || !d) return iso;
		return new Intl.DateTimeFormat(this.locale, { ...opts, timeZone: 'UTC' }).format(
			new Date(Date.UTC(y, m - 1, d))
		);
	};

	/** A moment on this device's clock, date and time ("22 Nov 2026, 10:42"). */
	dateTime = (at: Date): string =>
		new Intl.DateTimeFormat(this.locale, { dateStyle: 'medium', timeStyle: 'short' }).format(at);

	/** A time of day on this device's clock ("10:42"); with the date when not today. */
	clock = (at: number, now: number = Date.now()): string => {
		const then = new Date(at);
		const sameDay = then.toDateString() === new Date(now).toDateString();
		return new Intl.DateTimeFormat(
			this.locale,
			sameDay ? { timeStyle: 'short' } : { dateStyle: 'short', timeStyle: 'short' }
		).format(then);
	};

	/** "4 min ago" / "před 4 min": the age of stored data. */
	ago = (then: number, now: number): string => {
		const seconds = Math.round((then - now) / 1000);
		if (Math.abs(seconds) < 45) return this.t('download.justNow');
		const format = new Intl.RelativeTimeFormat(this.locale, { numeric: 'auto', style: 'short' });
		const minutes = Math.round(seconds / 60);
		if (Math.abs(minutes) < 60) return format.format(minutes, 'minute');
		const hours = Math.round(minutes / 60);
		if (Math.abs(hours) < 24) return format.format(hours, 'hour');
		return format.format(Math.round(hours / 24), 'day');
	};

	/** A number for an input field: locale decimal separator, no grouping ("38,63" in Czech). */
	decimal = (value: number, fractionDigits = 2): string =>
		numberFormat(this.locale, fractionDigits, false).format(value);

	number = (value: number, fractionDigits = 2): string =>
		numberFormat(this.locale, fractionDigits, true).format(value);
}

/**
 * Number formats are made once per language and precision: making one costs more than formatting
 * with it, and a run screen formats several numbers per visible row on every change.
 */
const numberFormats: Record<string, Intl.NumberFormat> = {};
function numberFormat(
	locale: Locale,
	fractionDigits: number,
	grouping: boolean
): Intl.NumberFormat {
	return (numberFormats[`${locale}/${fractionDigits}/${grouping}`] ??= new Intl.NumberFormat(
		locale,
		{
			minimumFractionDigits: fractionDigits,
			maximumFractionDigits: fractionDigits,
			...(grouping ? {} : { useGrouping: false })
		}
	));
}

export const i18n = new I18n();
export const t = i18n.t;
