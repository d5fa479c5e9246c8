/**
 * What one request learnt of the service, for whoever keeps track of whether it can be reached
 * ($lib/sync/reachability): the answer's status, or why none came. Reported by the HAL client and
 * the push streams for every request they make; the api layer only reports, it never decides.
 */
import type { ApiErrorCode } from './errors';

export interface Contact {
	/** When the request was sent (ms since the epoch): an old request's failure says little. */
	startedAt: number;
	/** When its outcome was known. */
	at: number;
	/** The HTTP status of the answer; absent when no answer came. */
	status?: number;
	/** From a Retry-After header of the answer, in milliseconds. */
	retryAfterMs?: number;
	/**
	 * Why the answer is not the service's, or why none came: `network`, `timeout`, `foreign-origin`
	 * (a redirect, as a captive portal sends), `not-json` (a page that is not the service's).
	 */
	code?: ApiErrorCode;
}

export type ContactObserver = (contact: Contact) => void;
