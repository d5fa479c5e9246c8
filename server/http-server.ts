// The HTTP server of the service: listening, the address it shows, and a shutdown that lets
// requests being handled finish (up to a grace period) before it resolves.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long a shutdown waits for requests being handled. */
const SHUTDOWN_GRACE_MS = 2_000;

/**
 * How long a request may take to arrive, headers and body (Node's default is 300 s). A PUT body
 * is at most 64 KiB and a phone's is about 100 bytes: 30 s is plenty on poor Wi-Fi, and a
 * request that trickles in (or never ends) holds its socket, and its caller's credential as
 * checked on arrival, no longer than that. The app sends a dropped PUT again.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long the headers may take (Node's default is 60 s); at most the request's time. */
const HEADERS_TIMEOUT_MS = 15_000;

export interface Listening {
	/** Base address, e.g. `http://127.0.0.1:4173/`. */
	url: string;
	port: number;
	/** Stops listening, waits for requests being handled, then calls `onClosed` (once). */
	close(): Promise<void>;
}

export interface ListenOptions {
	port: number;
	host: string;
	/** Called once the server has stopped (e.g. to close the database). */
	onClosed: () => void;
	/** How long a request may take to arrive (default REQUEST_TIMEOUT_MS). */
	requestTimeoutMs?: number;
}

/** Starts an HTTP server handling each request with `handle`; resolves once it listens. */
export async function listen(
	handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
	{ port, host, onClosed, requestTimeoutMs = REQUEST_TIMEOUT_MS }: ListenOptions
): Promise<Listening> {
	// Requests being handled: a shutdown lets them finish (up to a limit) before the database closes.
	const inFlight = new Set<Promise<void>>();
	const server: Server = createServer(
		{
			requestTimeout: requestTimeoutMs,
			headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
			// How often those are checked (Node's default, 30 s, would double them).
			connectionsCheckingInterval: Math.max(100, Math.min(5_000, requestTimeoutMs / 4))
		},
		(req, res) => {
			const handling = handle(req, res).finally(() => inFlight.delete(handling));
			inFlight.add(handling);
		}
	);
	server.keepAliveTimeout = 5000;

	await new Promise<void>((resolveListen, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolveListen();
		});
	});
	const actualPort = (server.address() as AddressInfo).port;
	const shownHost =
		host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

	let closed = false;
	return {
		url: `http://${shownHost}:${actualPort}/`,
		port: actualPort,
		async close() {
			if (closed) return;
			closed = true;
			const stopped = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
			server.closeIdleConnections();
			// Let requests already being handled answer (a PUT is applied and answered, or not at all).
			await Promise.race([
				Promise.allSettled([...inFlight]),
				new Promise((resolveWait) => setTimeout(resolveWait, SHUTDOWN_GRACE_MS))
			]);
			server.closeAllConnections();
			await stopped;
			onClosed();
		}
	};
}
