import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_ERROR_CODES, ApiError } from '$lib/api/errors';
import { DOMAIN_ERROR_CODES, DOMAIN_HINT_CODES } from '$lib/domain/errors';
import { cs } from '$lib/i18n/cs';
import { en } from '$lib/i18n/en';
import { i18n, LOCALES, t, type Locale } from '$lib/i18n/i18n.svelte';
import { SYNC_ERROR_CODES, SyncError } from '$lib/sync/errors';
import { TIMING_ERROR_CODES, TimingError } from '$lib/timing/errors';
import {
	API_ERROR_KEYS,
	DOMAIN_ERROR_KEYS,
	DOMAIN_HINT_KEYS,
	domainErrorText,
	domainHintText,
	downloadErrorText,
	errorText,
	refusalText,
	saveErrorText,
	SYNC_ERROR_KEYS,
	GARBAGE_KEYS,
	garbageText,
	STOP_REASON_KEYS,
	stopReasonText,
	syncLogDetailText,
	TIMING_ERROR_KEYS
} from './error-text';

const SELF = 'http://127.0.0.1:4173';

beforeEach(() => {
	// A page built with the default policy: fetches to its own origin only.
	vi.stubGlobal('location', { origin: SELF, href: `${SELF}/settings` });
	vi.stubGlobal('document', {
		querySelector: () => ({ content: "default-src 'self'; connect-src 'self'" }),
		documentElement: {}
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

type Tree = { [key: string]: string | Tree };
const catalogues = { en, cs } as unknown as Record<Locale, Tree>;
const message = (tree: Tree, key: string): unknown =>
	key.split('.').reduce<unknown>((node, k) => (node as Tree | undefined)?.[k], tree);

/** Every code of every layer, with the catalogue key the one table gives it. */
const EVERY_CODE: [layer: string, code: string, key: string][] = [
	...API_ERROR_CODES.map((c) => ['api', c, API_ERROR_KEYS[c]] as [string, string, string]),
	...SYNC_ERROR_CODES.map((c) => ['sync', c, SYNC_ERROR_KEYS[c]] as [string, string, string]),
	...DOMAIN_ERROR_CODES.map((c) => ['domain', c, DOMAIN_ERROR_KEYS[c]] as [string, string, string]),
	...DOMAIN_HINT_CODES.map((c) => ['domain', c, DOMAIN_HINT_KEYS[c]] as [string, string, string]),
	...TIMING_ERROR_CODES.map((c) => ['timing', c, TIMING_ERROR_KEYS[c]] as [string, string, string]),
	...Object.entries(STOP_REASON_KEYS).map(
		([c, key]) => ['stop', c, key] as [string, string, string]
	),
	...Object.entries(GARBAGE_KEYS).map(([c, key]) => ['garbage', c, key] as [string, string, string])
];

/** What a steward reads for each code, as the screens ask for it. */
function screenTexts(): [code: string, text: string][] {
	return [
		...API_ERROR_CODES.map(
			(c) => [c, errorText(new ApiError(c, { status: 503, detail: 'x' }))] as [string, string]
		),
		...SYNC_ERROR_CODES.map(
			(c) => [c, errorText(new SyncError(c, { key: 'dogRun:12' }))] as [string, string]
		),
		...DOMAIN_ERROR_CODES.map((c) => [c, domainErrorText(c, { decimals: 2 })] as [string, string]),
		...DOMAIN_HINT_CODES.map(
			(c) => [c, domainHintText(c, { maximalTime: 52 })] as [string, string]
		),
		// Keyed by layer: 'no-time' is a domain hint and a timing error, with different words.
		...TIMING_ERROR_CODES.map(
			(c) => [`timing ${c}`, errorText(new TimingError(c))] as [string, string]
		),
		...Object.keys(STOP_REASON_KEYS).map(
			(c) =>
				[
					`stop ${c}`,
					stopReasonText({
						flags: c === 'other-dog' || c === 'no-dog' ? [] : [c as 'no-start'],
						startedFor: c === 'no-dog' ? null : 7
					})
				] as [string, string]
		)
	];
}

describe('words for every code', () => {
	it('lists codes of all three layers, each once per layer', () => {
		expect(API_ERROR_CODES.length).toBeGreaterThan(5);
		expect(SYNC_ERROR_CODES).toContain('busy');
		expect(DOMAIN_ERROR_CODES).toContain('too-many-decimals');
		expect(DOMAIN_ERROR_CODES).toContain('maximal-below-standard');
		expect(DOMAIN_HINT_CODES).toContain('very-fast-course');
		expect(new Set(DOMAIN_ERROR_CODES).size).toBe(DOMAIN_ERROR_CODES.length);
	});

	it('has a message in English and in Czech for every code, and not the code itself', () => {
		for (const locale of LOCALES) {
			for (const [layer, code, key] of EVERY_CODE) {
				const words = message(catalogues[locale], key);
				expect(typeof words, `${locale}: ${layer} ${code} (${key})`).toBe('string');
				expect((words as string).trim(), `${locale}: ${layer} ${code}`).not.toBe('');
				expect((words as string).trim(), `${locale}: ${layer} ${code}`).not.toBe(code);
			}
		}
	});

	it('shows words on screen for every code in both languages: no code, no placeholder, no fallback', async () => {
		const seen = new Map<string, string>();
		try {
			for (const locale of LOCALES) {
				await i18n.set(locale);
				for (const [code, text] of screenTexts()) {
					// Czech words are Czech: no code falls back to the English message.
					expect(seen.get(code), `${locale}: ${code} as in another language`).not.toBe(text);
					seen.set(code, text);
					const where = `${locale}: ${code} → ${text}`;
					expect(text.trim(), where).not.toBe('');
					expect(text, where).not.toBe(code);
					expect(text, where).not.toMatch(/\{\{|undefined|dogRun:12/);
					expect(text, where).not.toContain(t('errors.unknown', { detail: '' }).trim());
				}
			}
		} finally {
			await i18n.set('en');
		}
	});

	it('words a SyncError other than not-stored, not as "Something went wrong"', () => {
		const text = errorText(new SyncError('busy', { key: 'dogRun:12' }));
		expect(text).toBe('This result is being sent right now; try again in a moment.');
		expect(saveErrorText(new SyncError('not-stored'))).toMatch(/^Not saved: .*not on this device/);
	});

	it('says how many decimals a field takes', () => {
		expect(domainErrorText('too-many-decimals', { decimals: 2 })).toContain('2');
		expect(domainErrorText('too-many-decimals', { decimals: 3 })).toContain('3');
		expect(domainHintText('over-maximal-time', { maximalTime: 52.5 })).toContain('52.50');
	});

	it('adds the technical detail only where it helps, and words a record as its error', () => {
		const shape = new ApiError('invalid-shape', { detail: 'id: expected number' });
		expect(errorText(shape)).toBe(
			'The service sent data Ringside does not understand. Detail: id: expected number'
		);
		expect(errorText(new ApiError('invalid-shape'))).toBe(
			'The service sent data Ringside does not understand.'
		);
		expect(errorText(shape.toRecord())).toBe(errorText(shape));
		expect(errorText(new ApiError('timeout', { detail: 'after 15000 ms' }))).toBe(
			'The results service did not answer in time.'
		);
	});

	it('says a full disk is full, bare, wrapped by Dexie, or stored', () => {
		const full = 'The device storage is full.';
		expect(errorText({ name: 'QuotaExceededError', message: 'quota' })).toContain(full);
		expect(errorText({ name: 'AbortError', inner: { name: 'QuotaExceededError' } })).toContain(
			full
		);
		expect(errorText({ code: 'other', name: 'QuotaExceededError', message: 'quota' })).toContain(
			full
		);
		expect(errorText(new Error('boom'))).toBe('Something went wrong: boom');
		expect(errorText(undefined)).toBe('Something went wrong.');
	});
});

describe('a download’s stored error', () => {
	it('is worded as the error it was', () => {
		const error = new ApiError('http', { status: 502, serverMessage: 'Upstream <b>down</b>' });
		expect(downloadErrorText(error.toRecord())).toBe(
			'Download failed: The results service refused: Upstream <b>down</b> (502)'
		);
		expect(downloadErrorText({ code: 'other', name: 'Error', message: 'boom' })).toBe(
			'Download failed: Something went wrong: boom'
		);
		expect(downloadErrorText(null)).toBe('Download failed: Something went wrong.');
	});
});

describe('a sync log row’s detail', () => {
	it('words a known ApiError code, with the row’s status', () => {
		expect(syncLogDetailText({ detail: 'timeout', status: null })).toBe(
			'The results service did not answer in time.'
		);
		expect(syncLogDetailText({ detail: 'http', status: 503 })).toBe(
			'The results service answered with an error (503).'
		);
	});

	it('words the row’s error record first: the service’s message, else the error', () => {
		const refused = { code: 'http' as const, status: 400, serverMessage: 'time must be positive' };
		expect(syncLogDetailText({ detail: 'x', status: 400, error: refused })).toBe(
			'time must be positive'
		);
		expect(syncLogDetailText({ detail: 'network', status: null, error: { code: 'network' } })).toBe(
			syncLogDetailText({ detail: 'network', status: null })
		);
	});

	it('shows anything else as the service’s text, as it came', () => {
		expect(
			syncLogDetailText({ detail: 'time: the timer shows <i>hundredths</i>', status: 400 })
		).toBe('time: the timer shows <i>hundredths</i>');
		expect(syncLogDetailText({ detail: null, status: 200 })).toBe('');
	});
});

describe('a service that asks to sign in', () => {
	it('401 and 403 say to sign in when the service only says "Unauthorized"', () => {
		for (const status of [401, 403]) {
			for (const serverMessage of ['Unauthorized', 'Forbidden', undefined]) {
				const error = {
					code: 'http' as const,
					status,
					...(serverMessage ? { serverMessage } : {})
				};
				expect(errorText(error)).toMatch(/sign in: scan the join QR code/);
				expect(refusalText(error)).toMatch(/sign in: scan the join QR code/);
			}
		}
	});

	it("words the embedded service's codes in the steward's language, never its English", async () => {
		const removed = {
			code: 'http' as const,
			status: 401,
			serverCode: 'credential-revoked',
			serverMessage: 'This device was removed by the ring secretary; join again with a new link'
		};
		expect(refusalText(removed)).toBe(
			'This phone was removed by the ring secretary: join again with a new link. Nothing is lost: the results wait on this phone.'
		);
		const expired = {
			code: 'http' as const,
			status: 401,
			serverCode: 'join-token-expired',
			serverMessage: 'x'
		};
		expect(errorText(expired)).toBe(
			'This join link has expired: ask the ring secretary for a new one'
		);
		try {
			await i18n.set('cs');
			expect(refusalText({ ...removed, serverCode: 'read-only', status: 403 })).toMatch(
				/^Tento telefon je divák/
			);
		} finally {
			await i18n.set('en');
		}
	});

	it('quotes a service that says why: a removed device signs in again, a viewer may not record', () => {
		const removed = {
			code: 'http' as const,
			status: 401,
			serverMessage: 'This device was removed by the ring secretary; join again with a new link'
		};
		expect(refusalText(removed)).toMatch(/asks this phone to sign in: “This device was removed/);
		const viewer = {
			code: 'http' as const,
			status: 403,
			serverMessage: 'This device is a viewer: it may read results but not record them'
		};
		expect(refusalText(viewer)).toMatch(
			/does not let this phone do that: “This device is a viewer/
		);
		expect(refusalText(viewer)).toMatch(/Nothing is lost/);
	});
});

describe('a refusal of the capture screen', () => {
	it('is the service’s message when it sent one, else the error in words', () => {
		expect(refusalText({ code: 'http', status: 400, serverMessage: 'no' })).toBe('no');
		expect(refusalText({ code: 'http', status: 400 })).toBe(
			'The results service answered with an error (400).'
		);
	});
});

describe('a line of the chronometer that is not the protocol', () => {
	it('is quoted as text, control characters made visible, with why', () => {
		const text = garbageText({ line: 'STOP 38\u0007?30', reason: 'noise' });
		expect(text).toContain('“STOP 38\\x07?30”');
		expect(text).toMatch(/check the cable/);
	});
});
