import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, ApiError, isRetryable } from './errors';

describe('ApiError', () => {
	it('carries its code and details, and a technical message for logs', () => {
		const e = new ApiError('http', {
			status: 400,
			serverMessage: 'Invalid dateFrom',
			traceId: 'abc',
			url: 'http://127.0.0.1:4173/api/v1/competitions',
			detail: 'x'
		});
		expect(e).toBeInstanceOf(Error);
		expect(e.name).toBe('ApiError');
		expect(e.code).toBe('http');
		expect(e.status).toBe(400);
		expect(e.serverMessage).toBe('Invalid dateFrom');
		expect(e.traceId).toBe('abc');
		expect(e.message).toBe(
			'http 400: x [server: Invalid dateFrom] (http://127.0.0.1:4173/api/v1/competitions)'
		);
	});

	it('turns into a plain record that survives structured clone', () => {
		const e = new ApiError('http', { status: 503, retryAfterMs: 2000 }, { cause: new Error('x') });
		const record = structuredClone(e.toRecord());
		expect(record).toEqual({ code: 'http', status: 503, retryAfterMs: 2000 });
		expect(isRetryable(record)).toBe(true);
	});

	it('keeps the cause', () => {
		const cause = new TypeError('fetch failed');
		expect(new ApiError('network', {}, { cause }).cause).toBe(cause);
	});
});

describe('isRetryable', () => {
	it.each([
		['network', undefined, true],
		['timeout', undefined, true],
		['not-json', 200, true],
		['invalid-json', 200, true],
		['invalid-shape', undefined, true],
		['http', 500, true],
		['http', 502, true],
		['http', 503, true],
		['http', 504, true],
		['http', 408, true],
		['http', 429, true],
		['http', 400, false],
		['http', 401, false],
		['http', 403, false],
		['http', 404, false],
		['http', 409, false],
		['http', 412, false],
		['http', 422, false],
		['http', 302, false],
		['http', 0, false],
		['http', undefined, false],
		['missing-link', undefined, true],
		['aborted', undefined, false],
		['foreign-origin', undefined, true],
		['bad-address', undefined, false]
	] as const)('%s %s → %s', (code, status, expected) => {
		expect(isRetryable(new ApiError(code, status === undefined ? {} : { status }))).toBe(expected);
	});

	it('says no for anything that is not an API error', () => {
		expect(isRetryable(new TypeError('fetch failed'))).toBe(false);
		expect(isRetryable({ code: 'ECONNRESET' })).toBe(false);
		expect(isRetryable(null)).toBe(false);
		expect(isRetryable('network')).toBe(false);
		fc.assert(
			fc.property(fc.anything(), (value) => {
				expect(typeof isRetryable(value)).toBe('boolean');
			})
		);
	});

	it('has an answer for every code', () => {
		for (const code of API_ERROR_CODES) {
			expect(typeof isRetryable(new ApiError(code))).toBe('boolean');
		}
	});
});
