import sirv from 'sirv';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type StaticHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const NO_CACHE_FILES = new Set(['/service-worker.js', '/index.html', '/manifest.webmanifest']);

/**
 * Serves the built single-page app from `appDir`: unknown paths without a file extension fall back
 * to index.html; the entry files are `no-cache`, `/_app/immutable/` is cached for a year.
 */
export function createStaticHandler(appDir: string): StaticHandler {
	const dir = resolve(appDir);
	if (!existsSync(dir) || !statSync(dir).isDirectory()) {
		throw new Error(`App directory '${dir}' does not exist (build the app first)`);
	}
	const handler = sirv(dir, {
		single: true,
		etag: true,
		dev: false,
		setHeaders(res, pathname) {
			res.setHeader('X-Content-Type-Options', 'nosniff');
			if (pathname.startsWith('/_app/immutable/')) {
				res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
			} else if (NO_CACHE_FILES.has(pathname) || !/\.[A-Za-z0-9]+$/.test(pathname)) {
				// entry files and every single-page fallback (which is index.html)
				res.setHeader('Cache-Control', 'no-cache');
			} else {
				res.setHeader('Cache-Control', 'public, max-age=0, must-revalidate');
			}
		}
	});
	return (req, res, next) => handler(req, res, next);
}
