// A TCP link between two processes that a test or bench cuts and restores: the event laptop's
// internet line to the federation's service (mirror mode). Bytes pass untouched both ways (Host
// included, so the upstream builds its links with the proxy's address and the laptop keeps
// coming this way). Cut 'reset': every open connection is reset and new ones are reset as they
// arrive (a line that is down); cut 'blackhole': open connections are reset too, new ones are
// accepted and never answered (a line that swallows packets; the client's own time-out ends
// them) until the link is restored, which resets them. Nothing here knows HTTP.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export type CutMode = 'reset' | 'blackhole';

export interface LinkProxy {
	/** `http://127.0.0.1:<port>` */
	url: string;
	port: number;
	/** Whether the link is up now. */
	readonly up: boolean;
	cut(mode?: CutMode): void;
	restore(): void;
	/** Connections accepted, reset by a cut, and held in a black hole, since the start. */
	stats(): { accepted: number; reset: number; held: number };
	close(): Promise<void>;
}

/** Resets a socket (RST, not FIN) when the platform can, else destroys it. */
function reset(s: Socket): void {
	if (s.destroyed) return;
	if (typeof s.resetAndDestroy === 'function') s.resetAndDestroy();
	else s.destroy();
}

/** Starts a proxy on 127.0.0.1 (port 0: any free one) to `target` (`host:port` or a URL). */
export async function startLinkProxy(target: string, port = 0): Promise<LinkProxy> {
	const t = target.includes('://') ? new URL(target) : new URL(`tcp://${target}`);
	const host = t.hostname;
	const targetPort = Number(t.port);
	let mode: CutMode | null = null;
	const pairs = new Set<[Socket, Socket]>();
	const held = new Set<Socket>();
	const counts = { accepted: 0, reset: 0, held: 0 };

	const server: Server = createServer((client) => {
		counts.accepted++;
		client.on('error', () => {});
		if (mode === 'reset') {
			counts.reset++;
			reset(client);
			return;
		}
		if (mode === 'blackhole') {
			counts.held++;
			held.add(client);
			client.on('close', () => held.delete(client));
			client.resume(); // read and drop what it sends
			return;
		}
		const remote = createConnection({ host, port: targetPort });
		const pair: [Socket, Socket] = [client, remote];
		pairs.add(pair);
		remote.on('error', () => reset(client));
		client.on('error', () => reset(remote));
		const drop = (): void => {
			pairs.delete(pair);
		};
		client.on('close', () => {
			drop();
			remote.destroy();
		});
		remote.on('close', () => {
			drop();
			client.destroy();
		});
		client.pipe(remote);
		remote.pipe(client);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve());
	});
	const address = server.address();
	const listening = typeof address === 'object' && address ? address.port : port;

	const resetOpen = (): void => {
		for (const [a, b] of [...pairs]) {
			counts.reset++;
			reset(a);
			reset(b);
		}
		pairs.clear();
	};
	return {
		url: `http://127.0.0.1:${listening}`,
		port: listening,
		get up() {
			return mode === null;
		},
		cut(m = 'reset') {
			mode = m;
			resetOpen();
		},
		restore() {
			mode = null;
			for (const s of [...held]) reset(s);
			held.clear();
		},
		stats: () => ({ ...counts }),
		close() {
			mode = 'reset';
			resetOpen();
			for (const s of [...held]) reset(s);
			return new Promise<void>((resolve) => server.close(() => resolve()));
		}
	};
}
