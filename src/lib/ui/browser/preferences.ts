import { getSetting, setSetting, SETTING_LOCALE, SETTING_THEME } from '$lib/db/settings-store';
import { deviceLocale, i18n, LOCALES, type Locale } from '$lib/i18n/i18n.svelte';

export type Theme = 'auto' | 'light' | 'dark';

/** Set when the steward picks a language or theme: a slower start-up read must not undo it. */
let chosen = { locale: false, theme: false };

export function applyTheme(theme: Theme): void {
	if (theme === 'auto') delete document.documentElement.dataset.theme;
	else document.documentElement.dataset.theme = theme;
}

/** Language and theme: the steward's choice if made, else the device's. */
export async function loadPreferences(): Promise<void> {
	const device = i18n.set(deviceLocale(navigator.languages));
	const [locale, theme] = await Promise.all([
		getSetting<Locale>(SETTING_LOCALE),
		getSetting<Theme>(SETTING_THEME)
	]);
	await device;
	if (!chosen.locale && locale && LOCALES.includes(locale)) await i18n.set(locale);
	if (!chosen.theme) applyTheme(theme ?? 'auto');
}

export async function saveLocale(locale: Locale): Promise<void> {
	chosen = { ...chosen, locale: true };
	await i18n.set(locale);
	await setSetting(SETTING_LOCALE, locale);
}

export async function saveTheme(theme: Theme): Promise<void> {
	chosen = { ...chosen, theme: true };
	applyTheme(theme);
	await setSetting(SETTING_THEME, theme);
}
