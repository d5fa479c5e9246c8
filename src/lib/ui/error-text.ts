import { API_ERROR_CODES, ApiError, type ApiErrorRecord } from '$lib/api/errors';
import { SyncError } from '$lib/sync/errors';
import { t } from '$lib/i18n/i18n.svelte';
import { pageAllowsConnect } from './csp';

/** The one place where an error's code becomes words a steward can read (as Immich's handle-error). */
export function errorText(error: unknown): string {
	// Errors stored in IndexedDB come back as plain records ({ code, status, ... }).
	if (!(error instanceof ApiError) && isApiErrorRecord(error)) {
		return errorText(new ApiError(error.code, error));
	}
	if (error instanceof ApiError) {
		// The browser refuses an address outside the app's connect-src with the same bare network
		// error as a service that is down; only the first has a cure in the build.
		if (error.code === 'network' && error.url && !pageAllowsConnect(error.url)) {
			return blockedText(error.url);
		}
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

/** An address the app's Content-Security-Policy does not let it connect to, and what helps. */
export function blockedText(url: string): string {
	let address = url;
	try {
		address = new URL(url).origin;
	} catch {
		// shown as given
	}
	const origin = typeof location === 'undefined' ? '' : location.origin;
	return t('errors.blocked-by-policy', { url: address, origin });
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
