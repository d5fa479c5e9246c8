/**
 * What a failed read or PUT of a replay means for its entry: the one classification of an
 * answer, for the phone's replay (./replay) and the event laptop's publisher (server/mirror) alike.
 * - transient (no answer, a time-out, 5xx, 408, 429, a body that is not the service's, and 412:
 *   the resource changed between the read and the PUT, so read again and decide again): the entry
 *   waits its backoff and tries again, never expiring;
 * - anything else the service answered (4xx): refused, parked with the service's message.
 * A request the replay itself cancelled ('aborted') is not a failure of the entry: null.
 */
// Relative: server/mirror imports this module.
import { ApiError, isRetryable, type ApiErrorRecord } from '../api/errors';
import type { Failure } from '../domain/outbox-entry';
import { nextDelayMs } from './backoff';

export function failureOf(e: ApiError): Failure<ApiErrorRecord> | null {
	if (e.code === 'aborted') return null;
	return {
		transient: isRetryable(e) || isPreconditionFailed(e),
		answered: e.code === 'http',
		status: e.status ?? null,
		detail: e.code === 'http' ? (e.serverMessage ?? e.code) : e.code,
		record: e.toRecord()
	};
}

/** The wait before the next attempt after `attempts` failed ones: the backoff, with Retry-After. */
export function delayAfter(e: ApiError, random: () => number): (attempts: number) => number {
	return (attempts) =>
		nextDelayMs(attempts, {
			random,
			...(e.retryAfterMs !== undefined ? { retryAfterMs: e.retryAfterMs } : {})
		});
}

export function isPreconditionFailed(e: unknown): boolean {
	return e instanceof ApiError && e.code === 'http' && e.status === 412;
}
