import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';

/**
 * An error that maps to an HTTP answer with the interface's error object (section 7). A `code`
 * (e.g. `credential-revoked`) is added to the object for clients that act on the cause, and
 * `links` become its `_links` (e.g. where to join).
 */
export class HttpError extends Error {
	readonly status: number;
	readonly headers: Record<string, string>;
	readonly code: string | undefined;
	readonly links: Record<string, { href: string }> | undefined;

	constructor(
		status: number,
		message: string,
		headers: Record<string, string> = {},
		extra: { code?: string; links?: Record<string, { href: string }> } = {}
	) {
		super(message);
		this.name = 'HttpError';
		this.status = status;
		this.headers = headers;
		this.code = extra.code;
		this.links = extra.links;
	}
}

/**
 * The client closed its connection before its request was complete (e.g. in the middle of a PUT
 * body): nothing can be answered, and it is no fault of the service.
 */
export class ClientClosedError extends Error {
	readonly code = 'client-closed';
	/** Bytes of the body received before the connection closed. */
	readonly bytes: number;

	constructor(bytes: number) {
		super('The client closed the connection before its request was complete');
		this.name = 'ClientClosedError';
		this.bytes = bytes;
	}
}

export interface ErrorBody {
	timestamp: string;
	status: number;
	error: string;
	message: string;
	path: string;
	traceId: string;
	/** Extension: the cause as a code (auth errors). */
	code?: string;
	/** Extension: links to follow (a 401 links to where to join). */
	_links?: Record<string, { href: string }>;
}

export function newTraceId(): string {
	return randomBytes(16).toString('hex');
}

export function reasonPhrase(status: number): string {
	return STATUS_CODES[status] ?? 'Unknown';
}

export function errorBody(
	status: number,
	message: string,
	path: string,
	traceId: string
): ErrorBody {
	return {
		timestamp: new Date().toISOString(),
		status,
		error: reasonPhrase(status),
		message,
		path,
		traceId
	};
}

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const notFound = (message: string): HttpError => new HttpError(404, message);

/** `row`, or a 404 "`what` not found" when there is none. */
export function found<T>(row: T | undefined, what: string): T {
	if (!row) throw notFound(`${what} not found`);
	return row;
}
export const methodNotAllowed = (method: string, path: string, allow: string): HttpError =>
	new HttpError(405, `Method ${method} is not allowed on ${path}`, { Allow: allow });
