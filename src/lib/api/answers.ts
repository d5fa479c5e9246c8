/**
 * What the HAL client makes of an answer ($lib/api/hal-client): whether it is a redirect it does
 * not follow, what it says of the service (a Contact), the error for a non-2xx answer with the
 * service's error object, the JSON of a 2xx answer with its links resolved, and the validated
 * document. Pure apart from reading the Response it is given.
 */
import * as v from 'valibot';
import type { Contact } from './contact';
import { ApiError, type ApiErrorDetails } from './errors';
import { resolveLinks } from './links';
import { parseRetryAfter } from './retry-after';
import { LinksSchema, ErrorBodySchema } from './schemas';

/** application/json or any `+json` type (hal+json, prs.hal-forms+json), parameters ignored. */
export function isJsonContentType(contentType: string | null): boolean {
	if (contentType === null) return false;
	const type = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
	return (
		type === 'application/json' || (/^[\w.+-]+\/[\w.+-]+$/.test(type) && type.endsWith('+json'))
	);
}

export interface Answer {
	response: Response;
	text: string;
	url: string;
	etag?: string;
}

/**
 * A redirect the client does not follow. 304 Not Modified is no redirect: the answer to a
 * conditional read whose copy is current.
 */
export function isRedirect(response: Response): boolean {
	if (response.type === 'opaqueredirect') return true;
	return response.status >= 300 && response.status < 400 && response.status !== 304;
}

/**
 * What an answer says of the service: its status, and whether it is the service's at all (a 2xx
 * page that is not JSON comes from a captive portal or a proxy, not from the service).
 */
export function answerContact(
	startedAt: number,
	response: Response,
	text: string
): Omit<Contact, 'at'> {
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
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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
export function isAborted(signal: AbortSignal | undefined): boolean {
	return signal?.aborted === true;
}

export function withoutHash(href: string): string {
	const url = new URL(href);
	url.hash = '';
	return url.href;
}

/** `href` resolved against `base`, without fragment; undefined when it is not a URL. */
export function absoluteHref(href: string, base: string): string | undefined {
	try {
		return withoutHash(new URL(href, base).href);
	} catch {
		return undefined;
	}
}

/** The error for a non-2xx answer, with the service's error object when the body is one. */
export function httpError({ response, text, url }: Answer): ApiError {
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
export function parseJson({ response, text, url }: Answer): unknown {
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
export function validate<T>(schema: v.GenericSchema<unknown, T>, data: unknown, url: string): T {
	const result = v.safeParse(schema, data);
	if (result.success) return result.output;
	const [first] = result.issues;
	const detail = `${v.getDotPath(first) ?? '(root)'}: ${first.message}`.slice(0, 200);
	const missingLink = result.issues.every(
		(issue) => issue.input === undefined && (issue.path?.some((p) => p.key === '_links') ?? false)
	);
	throw new ApiError(missingLink ? 'missing-link' : 'invalid-shape', { url, detail });
}
