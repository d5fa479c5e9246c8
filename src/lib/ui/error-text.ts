import { ApiError } from '$lib/api/errors';
import { t } from '$lib/i18n/i18n.svelte';

/** The one place where an error's code becomes words a steward can read (as Immich's handle-error). */
export function errorText(error: unknown): string {
	if (error instanceof ApiError) {
		if (error.code === 'http') {
			return error.serverMessage
				? t('errors.httpWithMessage', { message: error.serverMessage, status: error.status })
				: t('errors.http', { status: error.status });
		}
		return t(`errors.${error.code}`, { detail: error.detail ?? '' });
	}
	const detail = error instanceof Error ? error.message : String(error);
	return t('errors.unknown', { detail });
}
