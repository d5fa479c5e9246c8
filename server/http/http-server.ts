// The HTTP server of the service: listening, the address it shows, and a shutdown that lets
// requests being handled finish (up to a grace period) before it resolves. With TLS, one port
// answers both: a connection that opens with a TLS handshake is HTTPS, anything else is plain
// HTTP and goes to the `plain` handler (a redirect to the HTTPS address, the trust page), so that
// the address printed works whichever scheme a phone's browser tries first.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

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
	/** Base address, e.g. `http://127.0.0.1:4173/` (`https://` with TLS). */
	url: string;
	port: number;
	/** The separate plain-HTTP port (`httpPort`), when there is one. */
	httpPort: number | null;
	/** Takes a new key and certificate for the connections from now on (a renewal). */
	setSecureContext(context: TlsContext): void;
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
	/** HTTPS: the key and certificate chain, and what answers plain HTTP on the same port. */
	tls?: { context: TlsContext; plain: Handler; httpPort?: number };
}

/** A key and its certificate chain (leaf first), PEM. */
export interface TlsContext {
	key: string;
	cert: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The first byte of a TLS record carrying a handshake (a ClientHello). */
const TLS_HANDSHAKE = 0x16;

/**
 * Makes `server` (HTTPS, listening) hand each connection whose first byte is not a TLS handshake
 * to `plain` instead. The byte is read and put back, so either server sees the stream whole
 * (Node's TLS socket takes over data already read from the socket it wraps). A connection that
 * sends nothing is closed after `ms`.
 */
function acceptPlainToo(server: Server, plain: Server, ms: number): void {
	const [tlsListener] = server.listeners('connection') as ((s: Socket) => void)[];
	server.removeAllListeners('connection');
	server.on('connection', (socket: Socket) => {
		const ignore = (): void => undefined;
		socket.on('error', ignore);
		socket.setTimeout(ms, () => socket.destroy());
		const first = (): void => {
			const byte = socket.read(1) as Buffer | null;
			if (byte === null) {
				socket.once('readable', first);
				return;
			}
			socket.unshift(byte);
			socket.setTimeout(0);
			socket.off('error', ignore);
			if (byte[0] === TLS_HANDSHAKE) tlsListener?.call(server, socket);
			else plain.emit('connection', socket);
		};
		socket.once('readable', first);
	});
}

/** Starts an HTTP server handling each request with `handle`; resolves once it listens. */
export async function listen(
	handle: Handler,
	{ port, host, onClosed, requestTimeoutMs = REQUEST_TIMEOUT_MS, tls }: ListenOptions
): Promise<Listening> {
	// Requests being handled: a shutdown lets them finish (up to a limit) before the database closes.
	const inFlight = new Set<Promise<void>>();
	const handled =
		(h: Handler) =>
		(req: IncomingMessage, res: ServerResponse): void => {
			const handling = h(req, res).finally(() => inFlight.delete(handling));
			inFlight.add(handling);
		};
	const options = {
		requestTimeout: requestTimeoutMs,
		headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
		// How often those are checked (Node's default, 30 s, would double them).
		connectionsCheckingInterval: Math.max(100, Math.min(5_000, requestTimeoutMs / 4))
	};
	const server: Server & { setSecureContext?: (c: TlsContext) => void } = tls
		? createHttpsServer({ ...options, ...tls.context }, handled(handle))
		: createServer(options, handled(handle));
	server.keepAliveTimeout = 5000;
	// Plain HTTP beside HTTPS: connections handed over on the same port, and on `httpPort`.
	const plain = tls ? createServer(options, handled(tls.plain)) : null;
	if (plain && tls) {
		plain.keepAliveTimeout = 5000;
		// It never listens itself: 'listening' starts the checks of its requests' time-outs.
		plain.emit('listening');
		acceptPlainToo(server, plain, options.headersTimeout);
	}
	const plainPort = tls?.httpPort !== undefined ? createServer(options, handled(tls.plain)) : null;

	const listenOn = (s: Server, p: number): Promise<void> =>
		new Promise<void>((resolveListen, reject) => {
			s.once('error', reject);
			s.listen({ port: p, host, backlog: LISTEN_BACKLOG }, () => {
				s.off('error', reject);
				resolveListen();
			});
		});
	await listenOn(server, port);
	if (plainPort) {
		await listenOn(plainPort, tls?.httpPort ?? 0).catch((e: unknown) => {
			server.close();
			throw e;
		});
	}
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

	const connectionsOf = (s: Server): Promise<number> =>
		new Promise((r) => s.getConnections((e, n) => r(e ? 0 : n)));
	const openConnections = async (): Promise<number> =>
		(await connectionsOf(server)) + (plainPort ? await connectionsOf(plainPort) : 0);
	const servers = [server, plain, plainPort].filter((s): s is Server => s !== null);

	let closing: Promise<void> | null = null;
	return {
		url: `${tls ? 'https' : 'http'}://${shownHost}:${actualPort}/`,
		port: actualPort,
		httpPort: plainPort ? (plainPort.address() as AddressInfo).port : null,
		setSecureContext(context) {
			server.setSecureContext?.(context);
		},
		get stopping() {
			return closing !== null;
		},
		close() {
			closing ??= (async () => {
				// No new connection; idle keep-alive ones are closed. A request that still arrives
				// on a busy one is answered 503 by the handler (`stopping`), with Connection: close.
				const stopped = Promise.all(
					// The plain server that only takes handed-over connections was never
					// listening: its close stops its checks and ends with an error to ignore.
					servers.map((s) => new Promise<void>((resolveClose) => s.close(() => resolveClose())))
				);
				for (const s of servers) s.closeIdleConnections();
				// Requests being handled answer (a PUT is applied and answered, or not at all).
				const deadline = Date.now() + SHUTDOWN_GRACE_MS;
				await drained(SHUTDOWN_GRACE_MS);
				// Answers still being written (a late request's 503 queued behind the answer before
				// it) leave first: connections close as they become idle, then every one left.
				while (Date.now() < deadline && (await openConnections()) > 0) {
					for (const s of servers) s.closeIdleConnections();
					await new Promise((r) => setTimeout(r, 20));
					await drained(Math.max(0, deadline - Date.now()));
				}
				for (const s of servers) s.closeAllConnections();
				// Handlers whose connection was closed still run to their end on an open database.
				await drained(SHUTDOWN_HARD_MS);
				await stopped;
				onClosed();
			})();
			return closing;
		}
	};
}
