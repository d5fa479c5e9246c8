/**
 * Errors of the HAL client. They carry a code, never a sentence for users: the UI turns codes into
 * words in one place. `message` is a technical string for logs.
 */
import type { LinkMap } from './links';

export const API_ERROR_CODES = [
	'network',
	'timeout',
	'aborted',
	'http',
	'not-json',
	'invalid-json',
	'invalid-shape',
	'missing-link',
	'foreign-origin',
	'bad-address'
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

export interface ApiErrorDetails {
	/** HTTP status of the answer, for `http` (0 for an opaque redirect). */
	status?: number;
	/** The service's error `message` (section 7 of the interface), when the error body fitted. */
	serverMessage?: string;
	/**
	 * The service's own code for the error (the embedded service's `code`: `credential-revoked`,
	 * `read-only`, …), which the app can word in the steward's language.
	 */
	serverCode?: string;
	/** The service's error `traceId`, when the error body fitted. */
	traceId?: string;
	/** The URL the request was meant for (or the document the problem was found in). */
	url?: string;
	/** From a Retry-After header, in milliseconds from the time the answer was read. */
	retryAfterMs?: number;
	/** Short technical detail, for logs: e.g. the path of the first schema issue. */
	detail?: string;
	/**
	 * Links the service's error object carried (a 401's `join`: where a device gets a credential),
	 * resolved against the request's URL. Kept on the error only, not in its stored record.
	 */
	links?: LinkMap;
}

/**
 * A plain, structured-cloneable copy of an ApiError. Structured clone (IndexedDB, postMessage)
 * keeps only an Error's name and message, so store this instead of the error itself.
 */
export interface ApiErrorRecord extends ApiErrorDetails {
	code: ApiErrorCode;
}

export class ApiError extends Error {
	readonly code: ApiErrorCode;
	readonly status?: number;
	readonly serverMessage?: string;
	readonly serverCode?: string;
	readonly traceId?: string;
	readonly url?: string;
	readonly retryAfterMs?: number;
	readonly detail?: string;
	readonly links?: LinkMap;

	constructor(code: ApiErrorCode, details: ApiErrorDetails = {}, options?: { cause?: unknown }) {
		super(technicalMessage(code, details), options);
		this.name = 'ApiError';
		this.code = code;
		// Only own properties that are set, so toRecord() and logs stay small.
		if (details.status !== undefined) this.status = details.status;
		if (details.serverMessage !== undefined) this.serverMessage = details.serverMessage;
		if (details.serverCode !== undefined) this.serverCode = details.serverCode;
		if (details.traceId !== undefined) this.traceId = details.traceId;
		if (details.url !== undefined) this.url = details.url;
		if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
		if (details.detail !== undefined) this.detail = details.detail;
		if (details.links !== undefined) this.links = details.links;
	}

	toRecord(): ApiErrorRecord {
		const record: ApiErrorRecord = { code: this.code };
		if (this.status !== undefined) record.status = this.status;
		if (this.serverMessage !== undefined) record.serverMessage = this.serverMessage;
		if (this.serverCode !== undefined) record.serverCode = this.serverCode;
		if (this.traceId !== undefined) record.traceId = this.traceId;
		if (this.url !== undefined) record.url = this.url;
		if (this.retryAfterMs !== undefined) record.retryAfterMs = this.retryAfterMs;
		if (this.detail !== undefined) record.detail = this.detail;
		return record;
	}
}

function technicalMessage(code: ApiErrorCode, d: ApiErrorDetails): string {
	let message: string = code;
	if (d.status !== undefined) message += ` ${d.status}`;
	if (d.detail !== undefined) message += `: ${d.detail}`;
	if (d.serverMessage !== undefined) message += ` [server: ${d.serverMessage}]`;
	if (d.url !== undefined) message += ` (${d.url})`;
	return message;
}

function isApiErrorCode(value: unknown): value is ApiErrorCode {
	return typeof value === 'string' && (API_ERROR_CODES as readonly string[]).includes(value);
}

/**
 * Whether sending the same request again later may succeed. Takes an ApiError or an ApiErrorRecord
 * (as stored in the database); anything else is not retryable.
 *
 * - network, timeout: yes.
 * - http: 5xx, 408 and 429 yes; other statuses (4xx, a refused redirect) no.
 * - not-json, invalid-json, invalid-shape: yes. They mean the answer came from something other than
 *   the service (a proxy's or captive portal's HTML page, a cut-off body), which is usually
 *   transient; the caller should still report them, and back off, because a misbehaving service
 *   would repeat them.
 * - missing-link, foreign-origin: yes. A service answering without a link it always gives, or a
 *   proxy redirecting elsewhere, is misbehaving for now; the outbox keeps the edit, reports the
 *   error and backs off, and the replay resumes by itself once the service behaves again (losing
 *   nothing and asking nothing of the steward).
 * - aborted, bad-address: no.
 */
export function isRetryable(e: unknown): boolean {
	if (typeof e !== 'object' || e === null) return false;
	const code: unknown = (e as { code?: unknown }).code;
	if (!isApiErrorCode(code)) return false;
	switch (code) {
		case 'network':
		case 'timeout':
		case 'not-json':
		case 'invalid-json':
		case 'invalid-shape':
		case 'missing-link':
		case 'foreign-origin':
			return true;
		case 'http': {
			const status: unknown = (e as { status?: unknown }).status;
			return typeof status === 'number' && (status >= 500 || status === 408 || status === 429);
		}
		default:
			return false;
	}
}

/** Whether an answer's status asks for (other) credentials: 401, or 403 (not allowed as signed in). */
export function needsSignIn(status: number | undefined | null): boolean {
	return status === 401 || status === 403;
}
