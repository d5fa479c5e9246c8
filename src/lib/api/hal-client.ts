/**
 * HAL client of the competition results service. Runs in the page and in the service worker: fetch,
 * URL, Headers and AbortSignal only.
 *
 * The only URI it builds is the entry point (`{service}/api/v1/competitions`, with the documented
 * list parameters); everything else is a link taken from a document. Every answer is validated;
 * every failure is an ApiError with a code.
 */
import * as v from 'valibot';
import type { Contact, ContactObserver } from './contact';
import { ApiError, type ApiErrorDetails } from './errors';
import { parseRetryAfter } from './retry-after';

export { parseRetryAfter };
import { expandLink, findLink, resolveLinks } from './links';
import {
	CompetitionSchema,
	ErrorBodySchema,
	LinksSchema,
	pagedList,
	type Competition,
	type PagedList,
	type PageInfo,
	type SelfLinks
} from './schemas';

export const ACCEPT =
	'application/prs.hal-forms+json, application/hal+json;q=0.9, application/json;q=0.8';
export const DEFAULT_TIMEOUT_MS = 15_000;
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

interface SendOptions extends PutOptions {
	body?: string;
	/** Sent as If-None-Match: a 304 answer is then not an error. */
	ifNoneMatch?: string;
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

const COMPETITION_QUERY_KEYS = ['dateFrom', 'dateTo', 'state', 'page', 'size'] as const;

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

/** application/json or any `+json` type (hal+json, prs.hal-forms+json), parameters ignored. */
export function isJsonContentType(contentType: string | null): boolean {
	if (contentType === null) return false;
	const type = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
	return (
		type === 'application/json' || (/^[\w.+-]+\/[\w.+-]+$/.test(type) && type.endsWith('+json'))
	);
}

interface Answer {
	response: Response;
	text: string;
	url: string;
	etag?: string;
}

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

export class HalClient {
	readonly entryPoint: string;
	readonly origin: string;
	readonly timeoutMs: number;
	readonly #fetch: FetchLike;
	readonly #authorization: string | undefined;
	readonly #observe: ContactObserver | undefined;

	/** Throws ApiError 'bad-address' for an unusable service address. */
	constructor(options: HalClientOptions) {
		this.entryPoint = entryPointFor(options.serviceUrl);
		this.origin = new URL(this.entryPoint).origin;
		const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
		if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
			throw new RangeError(`timeoutMs must be a positive number, got ${timeoutMs}`);
		}
		this.timeoutMs = timeoutMs;
		this.#authorization = options.authorization;
		this.#observe = options.observe;
		// Looked up at call time, and called unbound-safe (fetch must be called on the global).
		this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
	}

	/** The entry point with the documented list parameters (undefined ones left out). */
	competitionsUrl(query: CompetitionQuery = {}): string {
		const url = new URL(this.entryPoint);
		for (const key of COMPETITION_QUERY_KEYS) {
			const value = query[key];
			if (value !== undefined) url.searchParams.set(key, String(value));
		}
		return url.href;
	}

	/** One page of the competition list. For all pages: `pages(competitionsUrl(query), ...)`. */
	listCompetitions(
		query: CompetitionQuery = {},
		opts: RequestOptions = {}
	): Promise<PageResult<Competition>> {
		return this.getPage(this.competitionsUrl(query), 'competitions', CompetitionSchema, opts);
	}

	/**
	 * GET a document and validate it. `href` must be expanded; a relative one resolves against the
	 * entry point.
	 */
	async get<T>(
		href: string,
		schema: v.GenericSchema<unknown, T>,
		opts: RequestOptions = {}
	): Promise<GetResult<T>> {
		const answer = await this.#send('GET', href, opts);
		const data = parseJson(answer);
		if (data === undefined)
			throw new ApiError('invalid-json', { url: answer.url, detail: 'empty body' });
		return { body: validate(schema, data, answer.url), etag: answer.etag, url: answer.url };
	}

	/**
	 * GET one page of a list again, conditionally: null when the service answers 304 Not Modified to
	 * If-None-Match `etag` (the stored copy is current), else the page. Without an etag, a plain GET.
	 */
	async getPageIfChanged<const TName extends string, T>(
		href: string,
		collection: TName,
		item: v.GenericSchema<unknown, T>,
		etag: string | undefined,
		opts: RequestOptions = {}
	): Promise<PageResult<T> | null> {
		const answer = await this.#send('GET', href, { ...opts, ifNoneMatch: etag });
		if (answer.response.status === 304) return null;
		const data = parseJson(answer);
		if (data === undefined)
			throw new ApiError('invalid-json', { url: answer.url, detail: 'empty body' });
		const body = validate(pagedList(collection, item), data, answer.url);
		return {
			items: body._embedded?.[collection] ?? [],
			page: body.page,
			links: body._links,
			url: answer.url,
			etag: answer.etag
		};
	}

	/** GET one page of a list whose items are `_embedded[collection]`. */
	getPage<const TName extends string, T>(
		href: string,
		collection: TName,
		item: v.GenericSchema<unknown, T>,
		opts: RequestOptions = {}
	): Promise<PageResult<T>> {
		return this.#getPage(href, collection, pagedList(collection, item), opts);
	}

	/**
	 * Every page of a list, following `next` until there is none. A `next` that leads back to a page
	 * already read is ApiError 'invalid-shape' (a paging loop), raised before requesting it again.
	 */
	async *pages<const TName extends string, T>(
		href: string,
		collection: TName,
		item: v.GenericSchema<unknown, T>,
		opts: RequestOptions = {}
	): AsyncGenerator<PageResult<T>, void, undefined> {
		const schema = pagedList(collection, item);
		const seen = new Set<string>();
		let next: string | undefined = href;
		while (next !== undefined) {
			const target = this.#target(next);
			if (seen.has(target)) {
				throw new ApiError('invalid-shape', {
					url: target,
					detail: 'paging loop: next leads back'
				});
			}
			seen.add(target);
			const page = await this.#getPage(target, collection, schema, opts);
			for (const key of [page.url, expandLink(page.links.self)]) {
				const absolute = absoluteHref(key, page.url);
				if (absolute !== undefined) seen.add(absolute);
			}
			yield page;
			const nextLink = findLink(page.links, 'next');
			// Paging links may be templated (e.g. `{&sort}`): expand with nothing.
			next = nextLink === undefined ? undefined : expandLink(nextLink);
		}
	}

	/**
	 * PUT a JSON body. A 2xx answer that does not fit `schema` is not an error: `body` is then
	 * undefined and `raw` holds what came back (the interface is unsure what a dog-run PUT returns);
	 * re-read `self` then. A non-JSON or unreadable 2xx answer is an error (it may not come from the
	 * service at all); PUT is idempotent, so sending it again is safe.
	 */
	async put<T>(
		href: string,
		body: object,
		schema: v.GenericSchema<unknown, T>,
		opts: PutOptions = {}
	): Promise<PutResult<T>> {
		const json = JSON.stringify(body);
		const answer = await this.#send('PUT', href, { ...opts, body: json });
		const raw = answer.response.status === 204 ? undefined : parseJson(answer);
		let fitted: T | undefined;
		if (raw !== undefined) {
			const result = v.safeParse(schema, raw);
			if (result.success) fitted = result.output;
		}
		return {
			status: answer.response.status,
			body: fitted,
			raw,
			etag: answer.etag,
			url: answer.url
		};
	}

	/**
	 * POST or DELETE to a link of the service (joining a device, the secretary's device list): the
	 * answer's JSON validated when there is one (undefined for 204). Not for results: those are PUT.
	 */
	async send<T>(
		method: 'POST' | 'DELETE' | 'PUT',
		href: string,
		body: object | undefined,
		schema: v.GenericSchema<unknown, T>,
		opts: RequestOptions = {}
	): Promise<{ status: number; body: T | undefined }> {
		const answer = await this.#send(method, href, {
			...opts,
			...(body === undefined ? {} : { body: JSON.stringify(body) })
		});
		const raw = answer.response.status === 204 ? undefined : parseJson(answer);
		return {
			status: answer.response.status,
			body: raw === undefined ? undefined : validate(schema, raw, answer.url)
		};
	}

	async #getPage<TName extends string, T>(
		href: string,
		collection: TName,
		schema: v.GenericSchema<unknown, PagedList<TName, T>>,
		opts: RequestOptions
	): Promise<PageResult<T>> {
		const { body, etag, url } = await this.get(href, schema, opts);
		return {
			items: body._embedded?.[collection] ?? [],
			page: body.page,
			links: body._links,
			url,
			etag
		};
	}

	/** The absolute URL to request, or an ApiError before anything is sent. */
	#target(href: string): string {
		if (/[{}]/.test(href)) {
			throw new ApiError('bad-address', { url: href, detail: 'unexpanded URI template' });
		}
		let url: URL;
		try {
			url = new URL(href, this.entryPoint);
		} catch {
			throw new ApiError('bad-address', { url: href, detail: 'not a URL' });
		}
		if (url.origin !== this.origin) {
			throw new ApiError('foreign-origin', { url: url.href, detail: `not ${this.origin}` });
		}
		return withoutHash(url.href);
	}

	/** Tells the observer; an observer that throws never breaks a request. */
	#report(contact: Omit<Contact, 'at'>): void {
		if (!this.#observe) return;
		try {
			this.#observe({ ...contact, at: Date.now() });
		} catch {
			// the observer's problem, not the request's
		}
	}

	async #send(method: Method, href: string, opts: SendOptions): Promise<Answer> {
		const target = this.#target(href);
		const { signal } = opts;
		if (isAborted(signal)) throw new ApiError('aborted', { url: target });

		// One controller for the caller's signal and the time limit, rather than AbortSignal.any and
		// AbortSignal.timeout: same behaviour on every runtime the app meets, and the timer is cleared
		// as soon as the answer is read.
		const controller = new AbortController();
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			controller.abort();
		}, this.timeoutMs);
		const onAbort = () => controller.abort();
		signal?.addEventListener('abort', onAbort, { once: true });

		const startedAt = Date.now();
		const headers = new Headers({ Accept: ACCEPT });
		// GET carries no Content-Type (no body; it would force a CORS preflight on another origin).
		if (opts.body !== undefined) headers.set('Content-Type', 'application/json');
		if (opts.ifMatch !== undefined) headers.set('If-Match', opts.ifMatch);
		if (opts.ifNoneMatch !== undefined) headers.set('If-None-Match', opts.ifNoneMatch);
		if (this.#authorization !== undefined) headers.set('Authorization', this.#authorization);

		try {
			const response = await untilAborted(
				this.#fetch(target, {
					method,
					headers,
					body: opts.body,
					// Redirects are not followed. The service's links need none; a redirect comes from a
					// captive portal or a misconfigured proxy, usually to another origin, where a browser
					// would only report a network failure. A followed PUT redirect would also re-send the
					// body (307/308), maybe to another origin.
					redirect: 'manual',
					signal: controller.signal
				}),
				controller.signal
			);
			const url = response.url === '' ? target : withoutHash(response.url);
			const redirected = new URL(url).origin !== this.origin || isRedirect(response);
			if (redirected) this.#report({ startedAt, status: response.status, code: 'foreign-origin' });
			if (new URL(url).origin !== this.origin) {
				void response.body?.cancel().catch(() => undefined);
				throw new ApiError('foreign-origin', {
					url,
					detail: `redirected from ${target} to another origin`
				});
			}
			if (isRedirect(response)) {
				void response.body?.cancel().catch(() => undefined);
				const location = response.headers.get('Location');
				throw new ApiError('foreign-origin', {
					url: location ? new URL(location, target).href : url,
					status: response.status,
					detail: `redirect from ${target} not followed`
				});
			}
			const text = await untilAborted(response.text(), controller.signal);
			this.#report(answerContact(startedAt, response, text));
			const answer: Answer = { response, text, url };
			const etag = response.headers.get('ETag');
			if (etag !== null) answer.etag = etag;
			const notModified = response.status === 304 && opts.ifNoneMatch !== undefined;
			if (!response.ok && !notModified) throw httpError(answer);
			return answer;
		} catch (e) {
			if (e instanceof ApiError) throw e;
			if (isAborted(signal)) throw new ApiError('aborted', { url: target }, { cause: e });
			if (timedOut) {
				this.#report({ startedAt, code: 'timeout' });
				const detail = `no complete answer within ${this.timeoutMs} ms`;
				throw new ApiError('timeout', { url: target, detail }, { cause: e });
			}
			this.#report({ startedAt, code: 'network' });
			throw new ApiError('network', { url: target, detail: String(e) }, { cause: e });
		} finally {
			clearTimeout(timer);
			signal?.removeEventListener('abort', onAbort);
		}
	}
}

/**
 * A redirect the client does not follow. 304 Not Modified is no redirect: the answer to a
 * conditional read whose copy is current.
 */
function isRedirect(response: Response): boolean {
	if (response.type === 'opaqueredirect') return true;
	return response.status >= 300 && response.status < 400 && response.status !== 304;
}

/**
 * What an answer says of the service: its status, and whether it is the service's at all (a 2xx
 * page that is not JSON comes from a captive portal or a proxy, not from the service).
 */
function answerContact(startedAt: number, response: Response, text: string): Omit<Contact, 'at'> {
	const contact: Omit<Contact, 'at'> = { startedAt, status: response.status };
	const retryAfterMs = parseRetryAfter(response.headers.get('Retry-After'));
	if (retryAfterMs !== undefined) contact.retryAfterMs = retryAfterMs;
	if (
		response.ok &&
		text.trim() !== '' &&
		!isJsonContentType(response.headers.get('Content-Type'))
	) {
		contact.code = 'not-json';
	}
	return contact;
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: a fetch or body read that ignores
 * its signal cannot hold a request past its time limit.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => reject(new Error('aborted'));
		if (signal.aborted) onAbort();
		else signal.addEventListener('abort', onAbort, { once: true });
		promise.then(
			(value) => {
				signal.removeEventListener('abort', onAbort);
				resolve(value);
			},
			(error: unknown) => {
				signal.removeEventListener('abort', onAbort);
				reject(error);
			}
		);
	});
}

/** A function, so TypeScript does not carry a narrowing of `aborted` across an await. */
function isAborted(signal: AbortSignal | undefined): boolean {
	return signal?.aborted === true;
}

function withoutHash(href: string): string {
	const url = new URL(href);
	url.hash = '';
	return url.href;
}

/** `href` resolved against `base`, without fragment; undefined when it is not a URL. */
function absoluteHref(href: string, base: string): string | undefined {
	try {
		return withoutHash(new URL(href, base).href);
	} catch {
		return undefined;
	}
}

/** The error for a non-2xx answer, with the service's error object when the body is one. */
function httpError({ response, text, url }: Answer): ApiError {
	const details: ApiErrorDetails = { status: response.status, url };
	const retryAfterMs = parseRetryAfter(response.headers.get('Retry-After'));
	if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
	if (isRedirect(response)) {
		details.detail = 'redirect not followed';
	}
	const contentType = response.headers.get('Content-Type');
	if (text.trim() !== '' && (contentType === null || isJsonContentType(contentType))) {
		try {
			const json: unknown = JSON.parse(text);
			const parsed = v.safeParse(ErrorBodySchema, json);
			if (parsed.success) {
				details.serverMessage = parsed.output.message;
				if (parsed.output.traceId !== undefined) details.traceId = parsed.output.traceId;
				if (parsed.output.code !== undefined) details.serverCode = parsed.output.code;
				// An error object may say where to go next (a 401's `join`).
				resolveLinks(json, url);
				const links = v.safeParse(LinksSchema, (json as { _links?: unknown })._links);
				if (links.success) details.links = links.output;
			}
		} catch {
			// Not the service's error object (a proxy's page): status only.
		}
	}
	return new ApiError('http', details);
}

/**
 * The JSON of a 2xx answer with its links resolved against the document URL; undefined for an empty
 * body. ApiError 'not-json' for another content type, 'invalid-json' for a body that does not
 * parse.
 */
function parseJson({ response, text, url }: Answer): unknown {
	if (text.trim() === '') return undefined;
	const contentType = response.headers.get('Content-Type');
	if (!isJsonContentType(contentType)) {
		throw new ApiError('not-json', { status: response.status, url, detail: String(contentType) });
	}
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (e) {
		throw new ApiError(
			'invalid-json',
			{ status: response.status, url, detail: String(e) },
			{ cause: e }
		);
	}
	resolveLinks(data, url);
	return data;
}

/**
 * The validated value, or ApiError 'missing-link' when every problem is a link (or `_links`) that
 * is not there, 'invalid-shape' otherwise; the detail names the path of the first problem.
 */
function validate<T>(schema: v.GenericSchema<unknown, T>, data: unknown, url: string): T {
	const result = v.safeParse(schema, data);
	if (result.success) return result.output;
	const [first] = result.issues;
	const detail = `${v.getDotPath(first) ?? '(root)'}: ${first.message}`.slice(0, 200);
	const missingLink = result.issues.every(
		(issue) => issue.input === undefined && (issue.path?.some((p) => p.key === '_links') ?? false)
	);
	throw new ApiError(missingLink ? 'missing-link' : 'invalid-shape', { url, detail });
}
