import { API_ERROR_CODES, ApiError, type ApiErrorRecord } from '$lib/api/errors';
import { SyncError } from '$lib/sync/outbox';
import { t } from '$lib/i18n/i18n.svelte';

/** The one place where an error's code becomes words a steward can read (as Immich's handle-error). */
export function errorText(error: unknown): string {
	// Errors stored in IndexedDB come back as plain records ({ code, status, ... }).
	if (!(error instanceof ApiError) && isApiErrorRecord(error)) {
		return errorText(new ApiError(error.code, error));
	}
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

/** Why a save on the device failed, in words: storage full is the one a steward can act on. */
export function saveErrorText(error: unknown): string {
	const name = (error as { name?: string; inner?: { name?: string } } | null)?.name;
	const inner = (error as { inner?: { name?: string } } | null)?.inner?.name;
	if (name === 'QuotaExceededError' || inner === 'QuotaExceededError') {
		return t('capture.storageFull');
	}
	if (error instanceof SyncError && error.code === 'not-stored') return t('capture.notStored');
	return t('capture.saveFailed', { reason: errorText(error) });
}

function isApiErrorRecord(value: unknown): value is ApiErrorRecord {
	const code = (value as { code?: unknown } | null)?.code;
	return typeof code === 'string' && (API_ERROR_CODES as readonly string[]).includes(code);
}
