import { getSetting, setSetting, SETTING_LOCALE, SETTING_THEME } from '$lib/db/settings-store';
import { deviceLocale, i18n, LOCALES, type Locale } from '$lib/i18n/i18n.svelte';

export type Theme = 'auto' | 'light' | 'dark';

export function applyTheme(theme: Theme): void {
	if (theme === 'auto') delete document.documentElement.dataset.theme;
	else document.documentElement.dataset.theme = theme;
}

/** Language and theme: the steward's choice if made, else the device's. */
export async function loadPreferences(): Promise<void> {
	const locale = await getSetting<Locale>(SETTING_LOCALE);
	i18n.set(locale && LOCALES.includes(locale) ? locale : deviceLocale(navigator.languages));
	applyTheme((await getSetting<Theme>(SETTING_THEME)) ?? 'auto');
}

export async function saveLocale(locale: Locale): Promise<void> {
	i18n.set(locale);
	await setSetting(SETTING_LOCALE, locale);
}

export async function saveTheme(theme: Theme): Promise<void> {
	applyTheme(theme);
	await setSetting(SETTING_THEME, theme);
}
