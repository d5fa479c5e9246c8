import { i18n, t } from '$lib/i18n/i18n.svelte';

/**
 * A field's value as the Sync screen shows it (an edit waiting, the three values of a conflict):
 * counts as whole numbers, a track length in metres, times with two decimals in the steward's
 * locale, yes or no, or "none".
 */
export function fieldValueText(field: string, value: unknown): string {
	if (value === null || value === undefined) return t('sync.none');
	if (typeof value === 'boolean') return value ? t('sync.yes') : t('sync.no');
	if (typeof value === 'number') {
		return field === 'faults' || field === 'refusals'
			? String(value)
			: i18n.number(value, field === 'trackLength' ? 0 : 2);
	}
	return String(value);
}
