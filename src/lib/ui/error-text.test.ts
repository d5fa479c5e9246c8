import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '$lib/api/errors';
import { errorText } from './error-text';

const SELF = 'http://127.0.0.1:4173';

beforeEach(() => {
	// A page built with the default policy: fetches to its own origin only.
	vi.stubGlobal('location', { origin: SELF, href: `${SELF}/settings` });
	vi.stubGlobal('document', {
		querySelector: () => ({ content: "default-src 'self'; connect-src 'self'" })
	});
});

afterEach(() => {
	vi.unstubAllGlobals();
});

describe('errorText', () => {
	it('says an address outside the app’s connect-src is blocked, and what helps', () => {
		const error = new ApiError('network', {
			url: 'https://results.example.org/api/v1/competitions',
			detail: 'TypeError: Failed to fetch'
		});
		const text = errorText(error);
		expect(text).toContain('security policy');
		expect(text).toContain('https://results.example.org');
		expect(text).toContain(SELF);
		expect(text).toContain('RINGSIDE_CONNECT_SRC');
		// the same from the record stored in IndexedDB
		expect(errorText(error.toRecord())).toBe(text);
	});

	it('says an allowed address that does not answer cannot be reached', () => {
		const error = new ApiError('network', { url: `${SELF}/api/v1/competitions` });
		expect(errorText(error)).toMatch(/cannot be reached/);
	});

	it('says cannot be reached when the page has no policy', () => {
		vi.stubGlobal('document', { querySelector: () => null });
		const error = new ApiError('network', { url: 'https://results.example.org/api' });
		expect(errorText(error)).toMatch(/cannot be reached/);
	});
});
