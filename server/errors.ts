import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';

/** An error that maps to an HTTP answer with the interface's error object (section 7). */
export class HttpError extends Error {
	readonly status: number;
	readonly headers: Record<string, string>;

	constructor(status: number, message: string, headers: Record<string, string> = {}) {
		super(message);
		this.name = 'HttpError';
		this.status = status;
		this.headers = headers;
	}
}

export interface ErrorBody {
	timestamp: string;
	status: number;
	error: string;
	message: string;
	path: string;
	traceId: string;
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
export const methodNotAllowed = (method: string, path: string, allow: string): HttpError =>
	new HttpError(405, `Method ${method} is not allowed on ${path}`, { Allow: allow });
