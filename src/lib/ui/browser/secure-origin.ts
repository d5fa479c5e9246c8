/**
 * Where Ringside can be kept, when this page cannot: a phone at the venue opens the ring laptop
 * by its network address over plain HTTP (http://192.168.8.10:4173/), which is no secure context,
 * so there is no service worker (no offline reload, no install), no persistent storage and no
 * Background Sync. The embedded service says where its secure address is, when it knows one, at
 * `/trust/info.json` on the page's own origin; anything else (404, another server's page, a bad
 * shape, no answer) means "no address known", never an error: the screen then says to ask.
 */
import * as v from 'valibot';

export const TRUST_INFO_PATH = '/trust/info.json';
/** The first screen waits no longer for the answer: the warning shows without an address meanwhile. */
const TIMEOUT_MS = 5_000;

export interface SecureAddresses {
	/** Ringside on a secure origin (https://…), to open instead of this page. */
	secureOrigin: string | null;
	/** The page that makes this phone trust the event's certificate, once. */
	trustPage: string | null;
}

const TrustInfoSchema = v.object({
	secureOrigin: v.nullable(v.string()),
	trustPage: v.nullable(v.string())
});

/** Whether this page is a secure context (true outside a browser: nothing to warn of there). */
export function pageIsSecure(): boolean {
	return typeof window === 'undefined' || window.isSecureContext !== false;
}

/**
 * An http(s) address as a link may carry it, normalised (what is shown is where the link goes);
 * null for anything else (javascript:, data:, a relative path, user:password@).
 */
export function webAddress(value: string | null): string | null {
	if (value === null) return null;
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return null;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
	if (url.username !== '' || url.password !== '') return null;
	return url.href;
}

/** An address as the steward reads it: an origin without the lone "/" that would wrap alone. */
export function shownAddress(href: string): string {
	const url = new URL(href);
	return url.pathname === '/' && url.search === '' && url.hash === '' ? url.origin : href;
}

/**
 * The addresses in the service's answer, or null when it names none worth showing. A secure
 * origin that is this page's own origin would send the steward round in a circle: dropped.
 */
export function parseTrustInfo(json: unknown, pageOrigin: string): SecureAddresses | null {
	const parsed = v.safeParse(TrustInfoSchema, json);
	if (!parsed.success) return null;
	let secureOrigin = webAddress(parsed.output.secureOrigin);
	if (secureOrigin !== null && new URL(secureOrigin).origin === pageOrigin) secureOrigin = null;
	const trustPage = webAddress(parsed.output.trustPage);
	return secureOrigin === null && trustPage === null ? null : { secureOrigin, trustPage };
}

/** Reads `/trust/info.json` of `origin`; null whenever it does not name an address. */
export async function fetchTrustInfo(
	origin: string,
	fetcher: typeof fetch = fetch,
	timeoutMs = TIMEOUT_MS
): Promise<SecureAddresses | null> {
	try {
		const response = await fetcher(new URL(TRUST_INFO_PATH, origin).href, {
			headers: { Accept: 'application/json' },
			cache: 'no-store',
			credentials: 'omit',
			// Same origin only: a Wi-Fi login page's redirect names no address of the event.
			redirect: 'error',
			signal: AbortSignal.timeout(timeoutMs)
		});
		if (!response.ok) return null;
		return parseTrustInfo(await response.json(), origin);
	} catch {
		return null;
	}
}

let asked: Promise<SecureAddresses | null> | null = null;

/** This page's answer, asked once per page load (the first screen and the app bar's line share it). */
export function secureAddresses(): Promise<SecureAddresses | null> {
	return (asked ??= fetchTrustInfo(location.origin));
}

/** What the warning tells the steward to do: open the address, or ask for it. */
export type InsecureAdvice =
	| { kind: 'open'; href: string; trustPage: string | null }
	| { kind: 'ask'; trustPage: string | null };

export function insecureAdvice(addresses: SecureAddresses | null): InsecureAdvice {
	const trustPage = addresses?.trustPage ?? null;
	return addresses?.secureOrigin
		? { kind: 'open', href: addresses.secureOrigin, trustPage }
		: { kind: 'ask', trustPage };
}

/** Whether the app itself is kept on this phone, beside a competition's stored data. */
export type KeptState = 'kept' | 'keeping' | 'insecure' | 'no-worker';

/**
 * The app is kept where the page is a secure context and a worker controls it: until the worker
 * takes over (a first visit's first seconds, or a page loaded past it) it is being kept; at an
 * insecure address, or where no worker could be registered, it is not kept at all.
 */
export function keptState(
	secure: boolean,
	worker: { controlled: boolean; failed: boolean }
): KeptState {
	if (!secure) return 'insecure';
	if (worker.failed) return 'no-worker';
	return worker.controlled ? 'kept' : 'keeping';
}

/**
 * The words for a competition whose download completed: "Available offline" only where the app
 * itself is kept; elsewhere the data is stored, and said to be, with why the app is not kept.
 */
export function storedKey(
	state: KeptState
): 'download.available' | 'download.keeping' | 'download.storedOnly' | 'download.storedNoWorker' {
	if (state === 'kept') return 'download.available';
	if (state === 'keeping') return 'download.keeping';
	return state === 'insecure' ? 'download.storedOnly' : 'download.storedNoWorker';
}
