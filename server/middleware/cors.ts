// CORS: the allowed origins (or '*'), the headers of an allowed cross-origin answer, and the
// answer to a preflight request. Off when no origin is configured. `*` allows anonymous reads
// from any origin but never a write; the origin `null` (sandboxed frames, file: pages) is never
// allowed.
import type { IncomingMessage } from 'node:http';
import { sendError } from './error-answer.ts';
import { answer, type Exchange } from './exchange.ts';

export interface CorsCheck {
	/** The Origin is allowed (its CORS headers are set on the answer). */
	allowed: boolean;
	/** The request is a preflight (OPTIONS with Origin and Access-Control-Request-Method). */
	preflight: boolean;
}

export interface Cors {
	/** The check of one /api request, which also sets the CORS headers of allowed origins. */
	(ex: Exchange): CorsCheck;
	/** Whether `origin` is listed by name (not only by `*`): it may write. */
	listed(origin: string): boolean;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

export function createCors(origins: string[] | undefined): Cors {
	const allowedOrigins = (origins ?? []).map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
	const listed = (origin: string): boolean => origin !== 'null' && allowedOrigins.includes(origin);
	const allows = (origin: string, write: boolean): boolean =>
		listed(origin) || (!write && origin !== 'null' && allowedOrigins.includes('*'));
	const check = (ex: Exchange): CorsCheck => {
		const origin = ex.req.headers.origin;
		const preflight = isPreflight(ex.req);
		const method = preflight
			? String(ex.req.headers['access-control-request-method']).toUpperCase()
			: (ex.req.method ?? 'GET');
		const write = !READ_METHODS.has(method) && !(method === 'OPTIONS' && !preflight);
		if (!origin || !allows(origin, write)) return { allowed: false, preflight };
		ex.res.setHeader('Access-Control-Allow-Origin', origin);
		ex.res.setHeader('Vary', 'Origin');
		ex.res.setHeader('Access-Control-Expose-Headers', 'ETag');
		return { allowed: true, preflight };
	};
	return Object.assign(check, { listed });
}

function isPreflight(req: IncomingMessage): boolean {
	return (
		req.method === 'OPTIONS' &&
		req.headers.origin !== undefined &&
		req.headers['access-control-request-method'] !== undefined
	);
}

const ALLOW_HEADERS = 'Content-Type, If-Match, If-None-Match, Last-Event-ID, Accept';

/**
 * Answers a preflight: 204 with the allowed methods (`methods`, default GET, PUT, OPTIONS; the
 * device endpoints add POST or DELETE) and headers, or 403 for other origins. Authorization (a
 * device credential) is allowed when the preflight asks for it.
 */
export function answerPreflight(
	ex: Exchange,
	allowed: boolean,
	methods = 'GET, PUT, OPTIONS'
): void {
	if (!allowed) {
		sendError(ex, 403, `Origin ${ex.req.headers.origin} is not allowed`);
		return;
	}
	const asked = String(ex.req.headers['access-control-request-headers'] ?? '').toLowerCase();
	const authorization = asked.split(',').some((h) => h.trim() === 'authorization');
	answer(
		ex,
		204,
		{
			'Access-Control-Allow-Methods': methods,
			// If-None-Match for conditional reads; Last-Event-ID, which EventSource sends when it
			// reconnects to a changes stream (not CORS-safelisted, so it needs a preflight).
			'Access-Control-Allow-Headers': authorization
				? `${ALLOW_HEADERS}, Authorization`
				: ALLOW_HEADERS,
			'Access-Control-Max-Age': '600',
			'Content-Length': '0'
		},
		''
	);
}
