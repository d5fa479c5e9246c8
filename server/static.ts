import sirv from 'sirv';
import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type StaticHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const NO_CACHE_FILES = new Set(['/service-worker.js', '/index.html', '/manifest.webmanifest']);

/**
 * Throws when a symlink in `dir` (the real folder) points out of it or nowhere: the app folder
 * is served as it was found at the start (sirv reads its list of files then), so nothing outside
 * it can be reached through a link.
 */
function refuseSymlinksOut(dir: string, at = dir): void {
	for (const name of readdirSync(at)) {
		const path = join(at, name);
		const st = lstatSync(path);
		if (st.isSymbolicLink()) {
			let target: string;
			try {
				target = realpathSync(path);
			} catch {
				throw new Error(`App directory: symlink ${relative(dir, path)} points nowhere`);
			}
			if (target !== dir && !target.startsWith(dir + sep)) {
				throw new Error(
					`App directory: symlink ${relative(dir, path)} points out of the app folder (${target}); not served`
				);
			}
		} else if (st.isDirectory()) refuseSymlinksOut(dir, path);
	}
}

/**
 * Serves the built single-page app from `appDir`: unknown paths without a file extension fall back
 * to index.html; the entry files are `no-cache`, `/_app/immutable/` is cached for a year.
 */
export function createStaticHandler(appDir: string): StaticHandler {
	const given = resolve(appDir);
	if (!existsSync(given) || !statSync(given).isDirectory()) {
		throw new Error(`App directory '${given}' does not exist (build the app first)`);
	}
	const dir = realpathSync(given);
	refuseSymlinksOut(dir);
	const handler = sirv(dir, {
		single: true,
		etag: true,
		dev: false,
		setHeaders(res, pathname) {
			res.setHeader('X-Content-Type-Options', 'nosniff');
			// Never framed (clickjacking of the steward's buttons), no address leaks to links. The
			// app's own CSP comes with the build (a meta tag, where frame-ancestors has no effect).
			res.setHeader('X-Frame-Options', 'DENY');
			res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
			res.setHeader('Referrer-Policy', 'no-referrer');
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
