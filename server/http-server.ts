// The HTTP server of the service: listening, the address it shows, and a shutdown that lets
// requests being handled finish (up to a grace period) before it resolves.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How long a shutdown lets requests being handled finish on their connections (a PUT behind a
 * slow phone link, a read with latency added); then their connections are closed, and the
 * handlers still running are waited for (at most SHUTDOWN_HARD_MS more) before the database
 * closes, so that nothing reaches a closed database.
 */
export const SHUTDOWN_GRACE_MS = 10_000;
const SHUTDOWN_HARD_MS = 30_000;

/**
 * How long a request may take to arrive, headers and body (Node's default is 300 s). A PUT body
 * is at most 64 KiB and a phone's is about 100 bytes: 30 s is plenty on poor Wi-Fi, and a
 * request that trickles in (or never ends) holds its socket, and its caller's credential as
 * checked on arrival, no longer than that. The app sends a dropped PUT again.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Connections the kernel keeps waiting for this process to accept them (Node's default is 511):
 * thousands of spectators arriving at once through a proxy overflowed 511 while the machine was
 * busy, and the proxy saw its requests reset (bench part 10). Capped by net.core.somaxconn.
 */
export const LISTEN_BACKLOG = 4096;
/** How long the headers may take (Node's default is 60 s); at most the request's time. */
const HEADERS_TIMEOUT_MS = 15_000;

export interface Listening {
	/** Base address, e.g. `http://127.0.0.1:4173/`. */
	url: string;
	port: number;
	/**
	 * Stops accepting connections, lets requests being handled finish (those arriving meanwhile
	 * see `stopping`), then closes every connection and calls `onClosed` (once).
	 */
	close(): Promise<void>;
	/** True from the start of `close`: a request arriving now is answered 503 by the handler. */
	readonly stopping: boolean;
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
		server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
			server.off('error', reject);
			resolveListen();
		});
	});
	const actualPort = (server.address() as AddressInfo).port;
	const shownHost =
		host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

	/** Resolves once no request is being handled (those arriving meanwhile too), or after `ms`. */
	const drained = async (ms: number): Promise<void> => {
		const deadline = Date.now() + ms;
		while (inFlight.size > 0 && Date.now() < deadline) {
			let timer: ReturnType<typeof setTimeout> | undefined;
			await Promise.race([
				Promise.allSettled([...inFlight]),
				new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()))))
			]);
			clearTimeout(timer);
		}
	};

	const openConnections = (): Promise<number> =>
		new Promise((r) => server.getConnections((e, n) => r(e ? 0 : n)));

	let closing: Promise<void> | null = null;
	return {
		url: `http://${shownHost}:${actualPort}/`,
		port: actualPort,
		get stopping() {
			return closing !== null;
		},
		close() {
			closing ??= (async () => {
				// No new connection; idle keep-alive ones are closed. A request that still arrives
				// on a busy one is answered 503 by the handler (`stopping`), with Connection: close.
				const stopped = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
				server.closeIdleConnections();
				// Requests being handled answer (a PUT is applied and answered, or not at all).
				const deadline = Date.now() + SHUTDOWN_GRACE_MS;
				await drained(SHUTDOWN_GRACE_MS);
				// Answers still being written (a late request's 503 queued behind the answer before
				// it) leave first: connections close as they become idle, then every one left.
				while (Date.now() < deadline && (await openConnections()) > 0) {
					server.closeIdleConnections();
					await new Promise((r) => setTimeout(r, 20));
					await drained(Math.max(0, deadline - Date.now()));
				}
				server.closeAllConnections();
				// Handlers whose connection was closed still run to their end on an open database.
				await drained(SHUTDOWN_HARD_MS);
				await stopped;
				onClosed();
			})();
			return closing;
		}
	};
}
