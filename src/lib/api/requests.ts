/**
 * The HAL client's vocabulary ($lib/api/hal-client): its options, what each request takes and
 * gives back, and the entry point, the one URI the client builds.
 */
import type { ContactObserver } from './contact';
import { ApiError } from './errors';
import type { PageInfo, SelfLinks } from './schemas';

const ENTRY_PATH = '/api/v1/competitions';

/** What the client needs of fetch; the global fetch fits. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HalClientOptions {
	/** Base address of the service, e.g. `http://127.0.0.1:4173` or `https://host/results`. */
	serviceUrl: string;
	fetch?: FetchLike;
	/** Per request, body included. Default 15 000. */
	timeoutMs?: number;
	/** Sent as Authorization on every request (a bearer token or basic credentials). */
	authorization?: string;
	/** Told what each request learnt of the service (an answer, or why none came). */
	observe?: ContactObserver;
}

export interface RequestOptions {
	signal?: AbortSignal;
}

export interface PutOptions extends RequestOptions {
	/** Sent as If-Match. */
	ifMatch?: string;
}

export interface GetResult<T> {
	body: T;
	etag?: string;
	/** The document's URL (after same-origin redirects); its relative links are already resolved. */
	url: string;
}

export interface PageResult<T> {
	/** Empty when the list is empty (no `_embedded`). */
	items: T[];
	page: PageInfo;
	/** self, and first/next/last when given. */
	links: SelfLinks;
	url: string;
	etag?: string;
}

export interface PutResult<T> {
	status: number;
	/**
	 * The answer validated against the expected schema; undefined if there is none or it does not
	 * fit.
	 */
	body: T | undefined;
	/** The parsed JSON answer (links resolved), whatever its shape; undefined for an empty answer. */
	raw: unknown;
	etag?: string;
	url: string;
}

/** The documented parameters of the competition list (interface 4.1). */
export interface CompetitionQuery {
	/** YYYY-MM-DD; competitions starting on or after it. */
	dateFrom?: string;
	/** YYYY-MM-DD; competitions ending on or before it. */
	dateTo?: string;
	state?: string;
	/** Zero-based. */
	page?: number;
	size?: number;
}

export const COMPETITION_QUERY_KEYS = ['dateFrom', 'dateTo', 'state', 'page', 'size'] as const;

/**
 * The entry point for a service address: `{origin}{path}/api/v1/competitions`. Only http and https,
 * no credentials, query or fragment; otherwise ApiError 'bad-address'. Repeated and trailing
 * slashes are normalised, and an address pasted with `/api/v1` or `/api/v1/competitions` at the end
 * is accepted.
 */
export function entryPointFor(serviceUrl: string): string {
	let url: URL;
	try {
		url = new URL(serviceUrl.trim());
	} catch {
		throw new ApiError('bad-address', { detail: 'not an absolute URL' });
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new ApiError('bad-address', { detail: `scheme ${url.protocol} is not http or https` });
	}
	if (url.username !== '' || url.password !== '') {
		throw new ApiError('bad-address', { detail: 'credentials in the address' });
	}
	if (url.search !== '' || url.hash !== '') {
		throw new ApiError('bad-address', { detail: 'query or fragment in the address' });
	}
	const path = url.pathname
		.replace(/\/{2,}/g, '/')
		.replace(/\/+$/, '')
		.replace(/\/api\/v1(\/competitions)?$/, '');
	return url.origin + path + ENTRY_PATH;
}
