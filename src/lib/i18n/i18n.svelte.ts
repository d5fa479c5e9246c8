import i18next from 'i18next';
import { en } from './en';

export const LOCALES = ['en', 'cs'] as const;
export type Locale = (typeof LOCALES)[number];

const instance = i18next.createInstance();
void instance.init({
	// English is built in; Czech loads when chosen, so the first screen carries one catalogue.
	resources: { en: { translation: en } },
	partialBundledLanguages: true,
	lng: 'en',
	fallbackLng: 'en',
	initAsync: false,
	// Svelte renders text nodes, never HTML: escaping here would double-escape.
	interpolation: { escapeValue: false },
	returnNull: false,
	// i18next 25 prints an advertisement on every start unless told not to.
	showSupportNotice: false
});

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

	#request = 0;

	async set(locale: Locale): Promise<void> {
		const request = ++this.#request;
		if (locale === 'cs' && !instance.hasResourceBundle('cs', 'translation')) {
			const { cs } = await import('./cs');
			instance.addResourceBundle('cs', 'translation', cs);
		}
		// A later choice made while the catalogue loaded wins.
		if (request !== this.#request) return;
		this.locale = locale;
		await instance.changeLanguage(locale);
		if (typeof document !== 'undefined') document.documentElement.lang = locale;
	}

	/** Translate a dotted key; reading `locale` makes every caller re-render on a switch. */
	t = (key: string, values?: Record<string, unknown>): string => {
		// Keys are checked by the catalogue test (every key used exists in both languages), so the
		// loosely typed signature is enough here.
		const translate = instance.t as unknown as (k: string, o: Record<string, unknown>) => string;
		return translate(key, { ...values, lng: this.locale });
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
		new Intl.NumberFormat(this.locale, {
			minimumFractionDigits: fractionDigits,
			maximumFractionDigits: fractionDigits,
			useGrouping: false
		}).format(value);

	number = (value: number, fractionDigits = 2): string =>
		new Intl.NumberFormat(this.locale, {
			minimumFractionDigits: fractionDigits,
			maximumFractionDigits: fractionDigits
		}).format(value);
}

export const i18n = new I18n();
export const t = i18n.t;
