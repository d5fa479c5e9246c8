/**
 * HAL client of the competition results service. Runs in the page and in the service worker: fetch,
 * URL, Headers and AbortSignal only.
 *
 * The only URI it builds is the entry point (`{service}/api/v1/competitions`, with the documented
 * list parameters); everything else is a link taken from a document. Every answer is validated;
 * every failure is an ApiError with a code. What it makes of an answer is ./answers; its options
 * and results are ./requests.
 *
 * Long because it is one class, the one place the app sends a request from (time-out, redirects,
 * what each request says of the service, errors); its read, page, conditional-read and write
 * methods share that sending and are read together.
 */
import * as v from 'valibot';
import type { Contact, ContactObserver } from './contact';
import { ApiError } from './errors';
import {
	absoluteHref,
	answerContact,
	httpError,
	isAborted,
	isRedirect,
	parseJson,
	untilAborted,
	validate,
	withoutHash,
	type Answer
} from './answers';
import {
	COMPETITION_QUERY_KEYS,
	entryPointFor,
	type CompetitionQuery,
	type FetchLike,
	type GetResult,
	type HalClientOptions,
	type PageResult,
	type PutOptions,
	type PutResult,
	type RequestOptions
} from './requests';
import type { PutBody } from '../contract/put-bodies';
import { parseRetryAfter } from './retry-after';

import { expandLink, findLink } from './links';
import { CompetitionSchema, pagedList, type Competition, type PagedList } from './schemas';

export { parseRetryAfter };
export { isJsonContentType } from './answers';
export * from './requests';

export const ACCEPT =
	'application/prs.hal-forms+json, application/hal+json;q=0.9, application/json;q=0.8';
export const DEFAULT_TIMEOUT_MS = 15_000;

interface SendOptions extends PutOptions {
	body?: string;
	/** Sent as If-None-Match: a 304 answer is then not an error. */
	ifNoneMatch?: string;
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
	 * GET a resource again, conditionally: null when the service answers 304 Not Modified to
	 * If-None-Match `etag` (the copy read before is current), else the resource. Without an etag, a
	 * plain GET.
	 */
	async getIfChanged<T>(
		href: string,
		schema: v.GenericSchema<unknown, T>,
		etag: string | undefined,
		opts: RequestOptions = {}
	): Promise<GetResult<T> | null> {
		const answer = await this.#send('GET', href, { ...opts, ifNoneMatch: etag });
		if (answer.response.status === 304) return null;
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
		body: PutBody,
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
	 * POST, DELETE or PUT to a link of the service (joining a device, the secretary's device list and
	 * settings; If-Match in `opts`): the answer's JSON validated when there is one (undefined for
	 * 204). Not for results: those are `put`, from the outbox.
	 */
	async send<T>(
		method: 'POST' | 'DELETE' | 'PUT',
		href: string,
		body: object | undefined,
		schema: v.GenericSchema<unknown, T>,
		opts: PutOptions = {}
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
			// The answer's URL is the target unless a redirect was followed (never, see above): then
			// no URL is parsed again (the target's origin was checked before sending).
			const url =
				response.url === '' || response.url === target ? target : withoutHash(response.url);
			const foreign = url !== target && new URL(url).origin !== this.origin;
			if (foreign || isRedirect(response)) {
				this.#report({ startedAt, status: response.status, code: 'foreign-origin' });
			}
			if (foreign) {
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
