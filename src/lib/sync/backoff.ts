/**
 * When to try an unsent edit again. Pure: the clock and the random source are the caller's.
 *
 * Exponential backoff with full jitter (a random delay between 0 and the ceiling), so phones that
 * regain signal together do not hammer the service together. A Retry-After from the service is a
 * floor: the delay is never shorter than it asks for (within reason).
 */

/** Ceiling of the first retry. */
export const BASE_DELAY_MS = 2_000;
/** Largest ceiling of the exponential part. */
export const MAX_DELAY_MS = 5 * 60_000;
/** Largest Retry-After honoured: a longer one would park a steward's results for too long. */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

export interface BackoffOptions {
	/** The service's Retry-After, in milliseconds. */
	retryAfterMs?: number;
	/** A number in [0, 1), like Math.random. */
	random: () => number;
}

/**
 * Delay before the next attempt, after `attempts` failed ones (1 for the first failure; 0 counts as
 * 1). Ceiling: 2 s, 4 s, 8 s, … up to 5 min; the delay is random in [0, ceiling). With a
 * Retry-After, at least that (capped at 15 min).
 */
export function nextDelayMs(attempts: number, opts: BackoffOptions): number {
	const failed = Number.isFinite(attempts) ? Math.floor(attempts) : 1;
	const exponent = Math.min(Math.max(failed - 1, 0), 30);
	const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** exponent);
	const r = opts.random();
	const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
	const jittered = Math.floor(unit * ceiling);
	const retryAfter = opts.retryAfterMs;
	if (retryAfter === undefined || !Number.isFinite(retryAfter) || retryAfter <= 0) return jittered;
	return Math.max(jittered, Math.min(Math.ceil(retryAfter), MAX_RETRY_AFTER_MS));
}
