// Request bodies: reading at most MAX_BODY_BYTES, the 413 for larger ones, and the JSON
// Content-Type check of PUTs.
import type { IncomingMessage } from 'node:http';
import { ClientClosedError, HttpError } from '../http/errors.ts';

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface Body {
	buf: Buffer;
	tooLarge: boolean;
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads the request body, keeping at most MAX_BODY_BYTES. A body declared (Content-Length) or
 * found to be larger is not read any further: the caller answers 413 with `Connection: close`,
 * so the rest of the upload is never read or buffered. A client that closes its connection before
 * the body is complete rejects it with ClientClosedError (not a failure of the service).
 */
export function readBody(req: IncomingMessage): Promise<Body> {
	return new Promise((resolvePromise, reject) => {
		const declared = Number(req.headers['content-length'] ?? '0');
		if (declared > MAX_BODY_BYTES) {
			resolvePromise({ buf: EMPTY, tooLarge: true });
			return;
		}
		if (req.readableAborted || (req.destroyed && !req.complete)) {
			reject(new ClientClosedError(0));
			return;
		}
		const chunks: Buffer[] = [];
		let bytes = 0;
		let settled = false;
		const cleanup = (): void => {
			settled = true;
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onError);
			req.off('close', onClose);
		};
		const onData = (chunk: Buffer): void => {
			bytes += chunk.length;
			if (bytes > MAX_BODY_BYTES) {
				cleanup();
				req.pause();
				resolvePromise({ buf: EMPTY, tooLarge: true });
				return;
			}
			chunks.push(chunk);
		};
		const onEnd = (): void => {
			if (settled) return;
			cleanup();
			resolvePromise({ buf: Buffer.concat(chunks), tooLarge: false });
		};
		const onError = (e: Error): void => {
			if (settled) return;
			cleanup();
			// Node reports a connection closed mid-body as an error 'aborted' (ECONNRESET).
			reject(req.complete ? e : new ClientClosedError(bytes));
		};
		const onClose = (): void => {
			if (settled) return;
			cleanup();
			reject(new ClientClosedError(bytes));
		};
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onError);
		req.on('close', onClose);
	});
}

export const tooLargeError = (): HttpError =>
	new HttpError(413, `Request body is larger than ${MAX_BODY_BYTES} bytes`, {
		Connection: 'close'
	});

/** Throws 415 unless the Content-Type is application/json or application/…+json. */
export function requireJsonContentType(req: IncomingMessage): void {
	const value = req.headers['content-type'];
	if (isJsonContentType(value)) return;
	throw new HttpError(415, `Content-Type must be application/json, got '${value ?? ''}'`);
}

function isJsonContentType(value: string | undefined): boolean {
	if (!value) return false;
	const media = value.split(';')[0]?.trim().toLowerCase() ?? '';
	return media === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(media);
}
