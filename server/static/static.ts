// The built app, served whole: a `vite build` beside a running service never blanks the phones.
//
// The build empties its folder and writes it again; a server reading the folder as it goes (or a
// list of its files made at the start, as sirv makes) then serves a new index.html with chunks it
// does not know (404) or an old one with chunks already deleted. So the service serves a private
// copy of one complete build (a generation) and swaps in the next once the folder holds another
// complete one: the same entry files for two looks a second apart, and every file index.html
// names present. The previous generation's hashed chunks stay reachable, for a page loaded before
// the swap that loads a screen's code later.
import sirv from 'sirv';
import {
	cpSync,
	existsSync,
	lstatSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	statSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type StaticHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export interface StaticApp {
	handle: StaticHandler;
	/** Looks at the folder now (the poll does it every `pollMs`); true when a new build was taken. */
	refresh(): boolean;
	/** Stops following the folder and removes the private copies. */
	close(): void;
}

const NO_CACHE_FILES = new Set(['/service-worker.js', '/index.html', '/manifest.webmanifest']);
/** The entry files whose change means a new build. */
const ENTRY_FILES = ['index.html', 'service-worker.js'];
const IMMUTABLE = '/_app/immutable/';

/**
 * Throws when a symlink in `dir` (the real folder) points out of it or nowhere: nothing outside
 * the app folder can be reached through a link.
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

/** What the entry files are now (inode, size, time), or null while there is no index.html. */
function signature(dir: string): string | null {
	const parts: string[] = [];
	for (const name of ENTRY_FILES) {
		try {
			const st = statSync(join(dir, name));
			parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeMs}`);
		} catch {
			if (name === 'index.html') return null;
			parts.push(`${name}:-`);
		}
	}
	return parts.join('|');
}

/** Whether every file of the app that index.html names is in the folder. */
function complete(dir: string): boolean {
	let html: string;
	try {
		html = readFileSync(join(dir, 'index.html'), 'utf8');
	} catch {
		return false;
	}
	for (const [, path] of html.matchAll(/(?:src|href)="(\/_app\/[^"?#]+)"/g)) {
		if (!existsSync(join(dir, path!))) return false;
	}
	for (const [, path] of html.matchAll(/import\(["'](\/_app\/[^"'?#]+)["']\)/g)) {
		if (!existsSync(join(dir, path!))) return false;
	}
	return true;
}

function headersOf(res: ServerResponse, pathname: string): void {
	res.setHeader('X-Content-Type-Options', 'nosniff');
	// Never framed (clickjacking of the steward's buttons), no address leaks to links. The app's own
	// CSP comes with the build (a meta tag, where frame-ancestors has no effect).
	res.setHeader('X-Frame-Options', 'DENY');
	res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
	res.setHeader('Referrer-Policy', 'no-referrer');
	if (pathname.startsWith(IMMUTABLE)) {
		res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
	} else if (NO_CACHE_FILES.has(pathname) || !/\.[A-Za-z0-9]+$/.test(pathname)) {
		// entry files and every single-page fallback (which is index.html)
		res.setHeader('Cache-Control', 'no-cache');
	} else {
		res.setHeader('Cache-Control', 'public, max-age=0, must-revalidate');
	}
}

interface Generation {
	signature: string;
	copy: string;
	serve: StaticHandler;
	/** Removes the copy once no request reads from it any more. */
	retire(): void;
}

/**
 * A private copy of the folder as it is now, and its handler. The copy is removed only once the
 * requests it is serving have ended: sirv opens a file after it answers the headers, and a file
 * gone by then is an error event on a stream nobody listens to, which would end the process.
 */
function takeGeneration(dir: string, sig: string): Generation {
	refuseSymlinksOut(dir);
	const copy = mkdtempSync(join(tmpdir(), 'ringside-app-'));
	try {
		// Links (all inside, checked above) become files: the copy is self-contained.
		cpSync(dir, copy, { recursive: true, dereference: true });
	} catch (e) {
		rmSync(copy, { recursive: true, force: true });
		throw e;
	}
	const handler = sirv(copy, { single: true, etag: true, dev: false, setHeaders: headersOf });
	let reading = 0;
	let retired = false;
	const remove = (): void => rmSync(copy, { recursive: true, force: true });
	return {
		signature: sig,
		copy,
		serve: (req, res, next) => {
			reading++;
			res.once('close', () => {
				reading--;
				if (retired && reading === 0) remove();
			});
			handler(req, res, next);
		},
		retire: () => {
			retired = true;
			if (reading === 0) remove();
		}
	};
}

/**
 * Serves the built single-page app from `appDir`: unknown paths without a file extension fall back
 * to index.html; the entry files are `no-cache`, `/_app/immutable/` is cached for a year. The
 * folder is looked at every `pollMs` (and at once when a file is asked for that the generation
 * served does not have); `onError` hears of a new build that could not be taken (it is retried).
 */
export function createStaticHandler(
	appDir: string,
	options: { pollMs?: number; onError?: (error: unknown) => void } = {}
): StaticApp {
	const given = resolve(appDir);
	if (!existsSync(given) || !statSync(given).isDirectory()) {
		throw new Error(`App directory '${given}' does not exist (build the app first)`);
	}
	const dir = realpathSync(given);
	const first = signature(dir);
	if (first === null) throw new Error(`App directory '${given}' has no index.html`);
	let current = takeGeneration(dir, first);
	let previous: Generation | null = null;
	/** A new signature seen once: taken when the next look finds it unchanged (the build is done). */
	let seen: string | null = null;
	let closed = false;

	const swap = (sig: string): boolean => {
		let next: Generation;
		try {
			next = takeGeneration(dir, sig);
		} catch (error) {
			options.onError?.(error);
			return false;
		}
		previous?.retire();
		previous = current;
		current = next;
		seen = null;
		return true;
	};

	/** `eager`: take a complete new build without waiting for a second look (a file is missing). */
	const look = (eager: boolean): boolean => {
		if (closed) return false;
		const sig = signature(dir);
		if (sig === null || sig === current.signature) return false;
		if (!eager && sig !== seen) {
			seen = sig;
			return false;
		}
		return complete(dir) && swap(sig);
	};

	const timer = setInterval(() => look(false), options.pollMs ?? 1_000);
	timer.unref();

	const handle: StaticHandler = (req, res, next) => {
		const serve = (gen: Generation, otherwise: () => void) => gen.serve(req, res, otherwise);
		serve(current, () => {
			// A file this build does not have: a new build may be in the folder already.
			if (look(true)) {
				serve(current, next);
				return;
			}
			const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
			// A page loaded before the swap asks for a chunk of its own build.
			if (previous && pathname.startsWith(IMMUTABLE)) serve(previous, next);
			else next();
		});
	};

	return {
		handle,
		refresh: () => look(true),
		close() {
			closed = true;
			clearInterval(timer);
			current.retire();
			previous?.retire();
		}
	};
}
