import { describe, expect, it } from 'vitest';
import { MAX_DELAY_MS, MAX_RETRY_AFTER_MS, nextDelayMs } from './backoff';

const top = () => 0.999999;
const bottom = () => 0;
const half = () => 0.5;

describe('nextDelayMs', () => {
	it.each([
		[1, 1_999],
		[2, 3_999],
		[3, 7_999],
		[4, 15_999],
		[8, 255_999],
		[9, 299_999],
		[50, 299_999]
	])('after %i failed attempts the ceiling doubles from 2 s up to 5 min (%i ms)', (n, ms) => {
		expect(nextDelayMs(n, { random: top })).toBe(ms);
	});

	it.each([
		[1, 1_000],
		[3, 4_000],
		[20, 150_000]
	])('full jitter: half of the ceiling for random 0.5 (attempt %i → %i ms)', (n, ms) => {
		expect(nextDelayMs(n, { random: half })).toBe(ms);
	});

	it('may retry at once with full jitter', () => {
		expect(nextDelayMs(5, { random: bottom })).toBe(0);
	});

	it('treats 0, negative and non-finite attempts as the first failure', () => {
		for (const n of [0, -3, Number.NaN, Number.POSITIVE_INFINITY]) {
			expect(nextDelayMs(n, { random: top })).toBeLessThan(2_000);
		}
	});

	it('never leaves [0, 5 min] for a misbehaving random source', () => {
		expect(nextDelayMs(30, { random: () => 7 })).toBe(MAX_DELAY_MS);
		expect(nextDelayMs(2, { random: () => -1 })).toBe(0);
		expect(nextDelayMs(2, { random: () => Number.NaN })).toBe(0);
	});

	it.each([
		// attempts, retryAfterMs, random, expected
		[1, 30_000, bottom, 30_000],
		[1, 30_000, top, 30_000],
		[9, 10_000, top, 299_999],
		[9, 10_000, bottom, 10_000],
		[1, 3_600_000, bottom, MAX_RETRY_AFTER_MS],
		[1, 0, half, 1_000],
		[1, 1_500.2, bottom, 1_501]
	])(
		'honours Retry-After as a floor capped at 15 min (attempt %i, %i ms)',
		(n, retryAfterMs, random, ms) => {
			expect(nextDelayMs(n, { retryAfterMs, random })).toBe(ms);
		}
	);
});
