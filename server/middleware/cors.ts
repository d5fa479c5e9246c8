// CORS: the allowed origins (or '*'), the headers of an allowed cross-origin answer, and the
// answer to a preflight request. Off when no origin is configured.
import type { IncomingMessage } from 'node:http';
import { sendError } from './error-answer.ts';
import { answer, type Exchange } from './exchange.ts';

export interface CorsCheck {
	/** The Origin is allowed (its CORS headers are set on the answer). */
	allowed: boolean;
	/** The request is a preflight (OPTIONS with Origin and Access-Control-Request-Method). */
	preflight: boolean;
}

/** Returns the check of one /api request, which also sets the CORS headers of allowed origins. */
export function createCors(origins: string[] | undefined): (ex: Exchange) => CorsCheck {
	const allowedOrigins = (origins ?? []).map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean);
	const allows = (origin: string): boolean =>
		allowedOrigins.length > 0 && (allowedOrigins.includes('*') || allowedOrigins.includes(origin));
	return (ex) => {
		const origin = ex.req.headers.origin;
		const preflight = isPreflight(ex.req);
		if (!origin || !allows(origin)) return { allowed: false, preflight };
		ex.res.setHeader('Access-Control-Allow-Origin', origin);
		ex.res.setHeader('Vary', 'Origin');
		ex.res.setHeader('Access-Control-Expose-Headers', 'ETag');
		return { allowed: true, preflight };
	};
}

function isPreflight(req: IncomingMessage): boolean {
	return (
		req.method === 'OPTIONS' &&
		req.headers.origin !== undefined &&
		req.headers['access-control-request-method'] !== undefined
	);
}

/** Answers a preflight: 204 with the allowed methods and headers, or 403 for other origins. */
export function answerPreflight(ex: Exchange, allowed: boolean): void {
	if (!allowed) {
		sendError(ex, 403, `Origin ${ex.req.headers.origin} is not allowed`);
		return;
	}
	answer(
		ex,
		204,
		{
			'Access-Control-Allow-Methods': 'GET, PUT, OPTIONS',
			// If-None-Match for conditional reads; Last-Event-ID, which EventSource sends when it
			// reconnects to a changes stream (not CORS-safelisted, so it needs a preflight).
			'Access-Control-Allow-Headers':
				'Content-Type, If-Match, If-None-Match, Last-Event-ID, Accept',
			'Access-Control-Max-Age': '600',
			'Content-Length': '0'
		},
		''
	);
}
