/**
 * The one place where a code becomes words a steward can read (as Immich's handle-error): the HAL
 * client's (api/errors.ts), the sync layer's (sync/errors.ts) and the domain's (domain/errors.ts).
 * Each layer's codes map to catalogue keys through a table typed `Record<Code, MessageKey>`, so a
 * new code without words, or words under a key that does not exist, is a type error; the catalogue
 * test checks that every key has words in every language. Whatever the service sends is only ever
 * text in those words, never markup.
 */
import {
	API_ERROR_CODES,
	ApiError,
	needsSignIn,
	type ApiErrorCode,
	type ApiErrorRecord
} from '$lib/api/errors';
import type { ErrorRecord } from '$lib/db/db';
import type { DomainErrorCode, DomainHintCode } from '$lib/domain/errors';
import { SyncError, type SyncErrorCode } from '$lib/sync/errors';
import { TimingError, type TimingErrorCode } from '$lib/timing/errors';
import type { GarbageReason } from '$lib/contract/timing-events';
import type { HeldStop, StopFlag } from '$lib/timing/run-clock';
import type { MessageKey } from '$lib/i18n/en';
import { i18n, t } from '$lib/i18n/i18n.svelte';
import { pageAllowsConnect } from '../browser/csp';

export const API_ERROR_KEYS = {
	network: 'errors.network',
	timeout: 'errors.timeout',
	aborted: 'errors.aborted',
	http: 'errors.http',
	'not-json': 'errors.not-json',
	'invalid-json': 'errors.invalid-json',
	'invalid-shape': 'errors.invalid-shape',
	'missing-link': 'errors.missing-link',
	'foreign-origin': 'errors.foreign-origin',
	'bad-address': 'errors.bad-address'
} as const satisfies Record<ApiErrorCode, MessageKey>;

export const SYNC_ERROR_KEYS = {
	'not-stored': 'syncErrors.not-stored',
	busy: 'syncErrors.busy',
	'not-found': 'syncErrors.not-found',
	'no-conflict': 'syncErrors.no-conflict'
} as const satisfies Record<SyncErrorCode, MessageKey>;

export const DOMAIN_ERROR_KEYS = {
	empty: 'domain.empty',
	invalid: 'domain.invalid',
	negative: 'domain.negative',
	zero: 'domain.zero',
	'too-large': 'domain.too-large',
	'too-many-decimals': 'domain.too-many-decimals',
	'not-integer': 'domain.not-integer',
	'time-with-absent': 'domain.time-with-absent',
	'penalties-with-absent': 'domain.penalties-with-absent',
	'absent-and-disqualified': 'domain.absent-and-disqualified',
	'maximal-below-standard': 'domain.maximal-below-standard'
} as const satisfies Record<DomainErrorCode, MessageKey>;

export const DOMAIN_HINT_KEYS = {
	'third-refusal-eliminates': 'domain.third-refusal-eliminates',
	'over-maximal-time': 'domain.over-maximal-time',
	'no-time': 'domain.no-time',
	'very-fast-course': 'domain.very-fast-course'
} as const satisfies Record<DomainHintCode, MessageKey>;

export const TIMING_ERROR_KEYS = {
	unsupported: 'timing.err_unsupported',
	'no-port-chosen': 'timing.err_no-port-chosen',
	'open-failed': 'timing.err_open-failed',
	'read-failed': 'timing.err_read-failed',
	closed: 'timing.err_closed',
	'stream-refused': 'timing.err_stream-refused',
	'stream-unauthorized': 'timing.err_stream-unauthorized',
	'stream-lost': 'timing.err_stream-lost',
	'chronometer-lost': 'timing.err_chronometer-lost',
	'unknown-stop': 'timing.err_unknown-stop',
	'no-time': 'timing.err_no-time'
} as const satisfies Record<TimingErrorCode, MessageKey>;

/** Why a stop waits for the steward; `other-dog`: clean, but it started on another dog. */
export const STOP_REASON_KEYS = {
	'no-start': 'timing.why_no-start',
	'before-start': 'timing.why_before-start',
	'no-time': 'timing.why_no-time',
	'clock-wrapped': 'timing.why_clock-wrapped',
	'second-stop': 'timing.why_second-stop',
	'after-fail': 'timing.why_after-fail',
	'after-disconnect': 'timing.why_after-disconnect',
	'other-dog': 'timing.why_other-dog',
	'no-dog': 'timing.why_no-dog'
} as const satisfies Record<StopFlag | 'other-dog' | 'no-dog', MessageKey>;

export const GARBAGE_KEYS = {
	'unknown-command': 'timing.garbage_unknown-command',
	'bad-argument': 'timing.garbage_bad-argument',
	noise: 'timing.garbage_noise',
	overlong: 'timing.garbage_overlong',
	cut: 'timing.garbage_cut'
} as const satisfies Record<GarbageReason, MessageKey>;

/** The embedded service's codes for refusals (docs/service.md, "Devices and roles"). */
const SERVICE_CODE_KEYS: Partial<Record<string, MessageKey>> = {
	'credential-missing': 'serviceCodes.credential-missing',
	'credential-malformed': 'serviceCodes.credential-unknown',
	'credential-unknown': 'serviceCodes.credential-unknown',
	'credential-revoked': 'serviceCodes.credential-revoked',
	'join-token-unknown': 'serviceCodes.join-token-unknown',
	'join-token-expired': 'serviceCodes.join-token-expired',
	'join-token-used-up': 'serviceCodes.join-token-used-up',
	'join-token-withdrawn': 'serviceCodes.join-token-withdrawn',
	'too-many-failures': 'serviceCodes.too-many-failures',
	'read-only': 'serviceCodes.read-only',
	'ring-not-assigned': 'serviceCodes.ring-not-assigned',
	'secretary-only': 'serviceCodes.secretary-only',
	'last-secretary': 'serviceCodes.last-secretary'
};

/** Codes whose technical detail (a schema path, a link's name) helps whoever reads a report. */
const SHOWS_DETAIL: ReadonlySet<ApiErrorCode> = new Set(['invalid-shape', 'missing-link']);

/**
 * Any error, or a stored record of one, in words: an ApiError (or its ApiErrorRecord, as stored in
 * IndexedDB), a SyncError, a full disk; anything else as "Something went wrong" with its message.
 */
export function errorText(error: unknown): string {
	if (error instanceof ApiError) return apiErrorText(error);
	if (error instanceof SyncError) return t(SYNC_ERROR_KEYS[error.code]);
	if (error instanceof TimingError) return timingErrorText(error.code);
	if (isApiErrorRecord(error)) return apiErrorText(error);
	if (isQuotaExceeded(error)) return t('errors.storage-full');
	if (error === null || error === undefined) return t('errors.unexpected');
	const detail =
		typeof (error as { message?: unknown }).message === 'string'
			? (error as { message: string }).message
			: String(error);
	return detail ? t('errors.unknown', { detail }) : t('errors.unexpected');
}

function apiErrorText(error: ApiErrorRecord): string {
	// The browser refuses an address outside the app's connect-src with the same bare network
	// error as a service that is down; only the first has a cure in the build.
	if (error.code === 'network' && error.url && !pageAllowsConnect(error.url)) {
		return blockedText(error.url);
	}
	if (error.code === 'http') {
		if (needsSignIn(error.status)) {
			// The embedded service's codes, in the steward's language.
			const known = error.serverCode ? SERVICE_CODE_KEYS[error.serverCode] : undefined;
			if (known) {
				// A join link's problem is the link's, nothing waits for it.
				return error.serverCode?.startsWith('join-token')
					? t(known)
					: t('errors.refused', { message: t(known) });
			}
			// A generic "Unauthorized" says nothing; another service that explains is worth quoting.
			const message = error.serverMessage?.trim();
			if (!message || /^(unauthori[sz]ed|forbidden|access denied)\.?$/i.test(message)) {
				return t('errors.signIn');
			}
			return error.status === 403
				? t('errors.forbidden', { message })
				: t('errors.signInWithMessage', { message });
		}
		return error.serverMessage
			? t('errors.httpWithMessage', { message: error.serverMessage, status: error.status })
			: t('errors.http', { status: error.status });
	}
	const message = t(API_ERROR_KEYS[error.code]);
	return error.detail && SHOWS_DETAIL.has(error.code)
		? t('errors.withDetail', { message, detail: error.detail })
		: message;
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

/**
 * Why the service refused an entry, after words that already say it refused: the service's own
 * message when it sent one, else the error in words.
 */
export function refusalText(error: ApiErrorRecord): string {
	if (needsSignIn(error.status)) return errorText(error);
	return error.serverMessage ?? errorText(error);
}

/** Why a save on the device failed, in words: storage full is the one a steward can act on. */
export function saveErrorText(error: unknown): string {
	if (isQuotaExceeded(error)) return t('capture.storageFull');
	return t('capture.saveFailed', { reason: errorText(error) });
}

/**
 * What is wrong with a value or an entry. `decimals`: how many fraction digits the field takes
 * (for 'too-many-decimals'; a time takes hundredths, a course time thousandths).
 */
export function domainErrorText(code: DomainErrorCode, field: { decimals: number }): string {
	return t(DOMAIN_ERROR_KEYS[code], { decimals: field.decimals });
}

/** A rule the domain applies or states. `maximalTime`: the course's, for 'over-maximal-time'. */
export function domainHintText(
	code: DomainHintCode,
	course: { maximalTime: number } | null = null
): string {
	return t(DOMAIN_HINT_KEYS[code], {
		mct: course ? i18n.decimal(course.maximalTime, 2) : ''
	});
}

/** Why a download failed, as stored with it (null: none stored, e.g. by an older version). */
export function downloadErrorText(error: ErrorRecord | null | undefined): string {
	return t('download.failed', { reason: errorText(error) });
}

/**
 * The detail of a sync log row in words: its error record (a retry, a refusal) as any other error,
 * the service's own message first. Rows of older versions carry only `detail`, an ApiError's code
 * (worded like any other error of its kind) or the service's message (shown as text).
 */
export function syncLogDetailText(row: {
	detail: string | null;
	status: number | null;
	error?: ApiErrorRecord;
}): string {
	if (row.error) return refusalText(row.error);
	if (!row.detail) return '';
	if (isApiErrorCode(row.detail)) {
		return apiErrorText({
			code: row.detail,
			...(row.status === null ? {} : { status: row.status })
		});
	}
	return row.detail;
}

function isApiErrorCode(value: unknown): value is ApiErrorCode {
	return typeof value === 'string' && (API_ERROR_CODES as readonly string[]).includes(value);
}

function isApiErrorRecord(value: unknown): value is ApiErrorRecord {
	return isApiErrorCode((value as { code?: unknown } | null)?.code);
}

/** A full disk: the browser's QuotaExceededError, bare, wrapped by Dexie, or as a stored record. */
function isQuotaExceeded(error: unknown): boolean {
	const e = error as { name?: unknown; inner?: { name?: unknown } } | null;
	return e?.name === 'QuotaExceededError' || e?.inner?.name === 'QuotaExceededError';
}

/** A problem of the timing (the gates, a USB chronometer) in words. */
export function timingErrorText(code: TimingErrorCode): string {
	return t(TIMING_ERROR_KEYS[code]);
}

/**
 * Why a held stop was not put on a dog, in words: its first doubt, else that no dog was on screen
 * when its run started, else that another dog was.
 */
export function stopReasonText(stop: Pick<HeldStop, 'flags' | 'startedFor'>): string {
	return t(STOP_REASON_KEYS[stop.flags[0] ?? (stop.startedFor === null ? 'no-dog' : 'other-dog')]);
}

/** A line of the chronometer that was not the protocol, quoted (as text) with why. */
export function garbageText(garbage: { line: string; reason: GarbageReason }): string {
	// Control characters (noise) would show as nothing or as boxes: as visible escapes instead.
	const line = [...garbage.line]
		.map((c) => {
			const code = c.charCodeAt(0);
			return code < 0x20 || (code >= 0x7f && code <= 0x9f)
				? `\\x${code.toString(16).padStart(2, '0')}`
				: c;
		})
		.join('');
	return t('timing.garbage', { line: line.slice(0, 60), why: t(GARBAGE_KEYS[garbage.reason]) });
}
