import { afterEach, describe, expect, it, vi } from 'vitest';
import { cs } from '$lib/i18n/cs';
import { en } from '$lib/i18n/en';
import {
	fetchTrustInfo,
	insecureAdvice,
	pageIsSecure,
	parseTrustInfo,
	shownAddress,
	keptState,
	storedKey,
	TRUST_INFO_PATH,
	webAddress
} from './secure-origin';

const PAGE = 'http://192.168.8.10:4173';
const SECURE = 'https://192.168.8.10:4173';
const TRUST = 'http://192.168.8.10:4173/trust';

afterEach(() => vi.unstubAllGlobals());

describe('webAddress', () => {
	it.each([
		[SECURE, 'https://192.168.8.10:4173/'],
		['https://ring.example/app?x=1', 'https://ring.example/app?x=1'],
		[TRUST, TRUST]
	])('keeps the http(s) address %s', (value, href) => {
		expect(webAddress(value)).toBe(href);
	});

	it.each([
		['javascript:alert(1)'],
		['data:text/html,<b>x</b>'],
		['/trust'],
		['ftp://192.168.8.10/'],
		['https://user:secret@192.168.8.10/'],
		['not an address'],
		['']
	])('refuses %s', (value) => {
		expect(webAddress(value)).toBeNull();
	});
});

describe('shownAddress', () => {
	it('shows an origin without its lone slash, and any other address as it is', () => {
		expect(shownAddress(`${SECURE}/`)).toBe(SECURE);
		expect(shownAddress(TRUST)).toBe(TRUST);
		expect(shownAddress(`${SECURE}/?x=1`)).toBe(`${SECURE}/?x=1`);
	});
});

describe('parseTrustInfo', () => {
	it('reads both addresses', () => {
		expect(parseTrustInfo({ secureOrigin: SECURE, trustPage: TRUST }, PAGE)).toEqual({
			secureOrigin: `${SECURE}/`,
			trustPage: TRUST
		});
	});

	it('takes a secure origin without a trust page, and leaves extra fields', () => {
		expect(parseTrustInfo({ secureOrigin: SECURE, trustPage: null, v: 2 }, PAGE)).toEqual({
			secureOrigin: `${SECURE}/`,
			trustPage: null
		});
	});

	it('names nothing when the service knows no address', () => {
		expect(parseTrustInfo({ secureOrigin: null, trustPage: null }, PAGE)).toBeNull();
	});

	it.each([
		['a missing field', { secureOrigin: SECURE }],
		['a number', { secureOrigin: 443, trustPage: null }],
		['an array', [SECURE]],
		['a string', SECURE],
		['null', null]
	])('names nothing for %s', (_name, json) => {
		expect(parseTrustInfo(json, PAGE)).toBeNull();
	});

	it('drops an address that is not http(s), keeping the other', () => {
		expect(parseTrustInfo({ secureOrigin: 'javascript:alert(1)', trustPage: TRUST }, PAGE)).toEqual(
			{ secureOrigin: null, trustPage: TRUST }
		);
	});

	it('drops a "secure origin" that is this page’s own (it would lead round in a circle)', () => {
		expect(parseTrustInfo({ secureOrigin: `${PAGE}/`, trustPage: null }, PAGE)).toBeNull();
	});
});

describe('fetchTrustInfo', () => {
	const answering = (response: Response | Error) =>
		vi.fn<typeof fetch>(async () => {
			if (response instanceof Error) throw response;
			return response;
		});

	it('asks the page’s own origin, same origin only', async () => {
		const fetcher = answering(Response.json({ secureOrigin: SECURE, trustPage: TRUST }));
		expect(await fetchTrustInfo(PAGE, fetcher)).toEqual({
			secureOrigin: `${SECURE}/`,
			trustPage: TRUST
		});
		const [url, init] = fetcher.mock.calls[0]!;
		expect(url).toBe(`${PAGE}${TRUST_INFO_PATH}`);
		expect(init).toMatchObject({ redirect: 'error', credentials: 'omit' });
	});

	it.each([
		['a 404 (the service knows no address)', new Response('Not found', { status: 404 })],
		['a 500', new Response('{}', { status: 500 })],
		[
			'another server’s page (an SPA fallback)',
			new Response('<!doctype html><title>Ringside</title>', {
				headers: { 'Content-Type': 'text/html' }
			})
		],
		['a bad shape', Response.json({ secureOrigin: true })],
		['no answer', new TypeError('Failed to fetch')]
	])('names nothing for %s', async (_name, answer) => {
		expect(await fetchTrustInfo(PAGE, answering(answer))).toBeNull();
	});

	it('gives up after its time-out', async () => {
		const hanging = vi.fn<typeof fetch>(
			(_url, init) =>
				new Promise((_resolve, reject) =>
					init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))
				)
		);
		expect(await fetchTrustInfo(PAGE, hanging, 20)).toBeNull();
	});
});

describe('insecureAdvice', () => {
	it('says to open the secure address, with the trust page when there is one', () => {
		expect(insecureAdvice({ secureOrigin: `${SECURE}/`, trustPage: TRUST })).toEqual({
			kind: 'open',
			href: `${SECURE}/`,
			trustPage: TRUST
		});
	});

	it('says to ask for the address when the service names none', () => {
		expect(insecureAdvice(null)).toEqual({ kind: 'ask', trustPage: null });
		expect(insecureAdvice({ secureOrigin: null, trustPage: TRUST })).toEqual({
			kind: 'ask',
			trustPage: TRUST
		});
	});
});

describe('the words for a stored competition', () => {
	it('claims "Available offline" only in a secure context under the app\'s worker', () => {
		const worker = (controlled: boolean, failed = false) => ({ controlled, failed });
		expect(storedKey(keptState(true, worker(true)))).toBe('download.available');
		expect(storedKey(keptState(true, worker(false)))).toBe('download.keeping');
		expect(storedKey(keptState(true, worker(false, true)))).toBe('download.storedNoWorker');
		expect(storedKey(keptState(false, worker(true)))).toBe('download.storedOnly');
		for (const key of ['keeping', 'storedNoWorker'] as const) {
			expect(en.download[key]).not.toMatch(/available offline/i);
			expect(cs.download[key]).not.toMatch(/dostupné offline/i);
		}
		expect(en.download.available).toBe('Available offline');
		expect(en.download.storedOnly).not.toMatch(/available offline/i);
		expect(cs.download.storedOnly).not.toBe(cs.download.available);
	});
});

describe('pageIsSecure', () => {
	it('follows the browser’s isSecureContext', () => {
		vi.stubGlobal('window', { isSecureContext: false });
		expect(pageIsSecure()).toBe(false);
		vi.stubGlobal('window', { isSecureContext: true });
		expect(pageIsSecure()).toBe(true);
	});

	it('has nothing to warn of outside a browser', () => {
		expect(pageIsSecure()).toBe(true);
	});
});
