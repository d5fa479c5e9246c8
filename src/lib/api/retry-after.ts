/** The Retry-After header, read the one way every request of the app reads it. */

/**
 * Retry-After as milliseconds from `nowMs`: delay-seconds or an HTTP date (a date in the past gives
 * 0). Undefined when absent or unreadable.
 */
export function parseRetryAfter(
	value: string | null,
	nowMs: number = Date.now()
): number | undefined {
	if (value === null) return undefined;
	const text = value.trim();
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	// All three HTTP-date forms start with a day name; Date.parse alone would accept "1.5".
	if (!/^[A-Za-z]{3}/.test(text)) return undefined;
	const at = Date.parse(text);
	return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
