import { createServer, type Server, type Socket } from 'node:net';

/**
 * A scripted chronometer for end-to-end tests: a TCP server that the service's timer bridge
 * connects to (`--timer tcp:127.0.0.1:<port>`), writing the protocol lines a test tells it to
 * (docs/timing.md). `pull()` is the cable pulled: every connection is cut and new ones are refused
 * until `plugIn()`.
 */
export class Chronometer {
	readonly #sockets = new Set<Socket>();
	#server: Server | null = null;
	#unplugged = false;
	port = 0;

	async start(): Promise<this> {
		const server = createServer((socket) => {
			if (this.#unplugged) {
				socket.destroy();
				return;
			}
			socket.setNoDelay(true);
			socket.on('error', () => {});
			this.#sockets.add(socket);
			socket.on('close', () => this.#sockets.delete(socket));
			socket.resume();
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const address = server.address();
		this.port = typeof address === 'object' && address ? address.port : 0;
		this.#server = server;
		return this;
	}

	get connected(): boolean {
		return this.#sockets.size > 0;
	}

	/** Writes one line (CR LF) to the service; returns Date.now() just before the write. */
	send(line: string): number {
		const at = Date.now();
		for (const s of this.#sockets) s.write(`${line}\r\n`);
		return at;
	}

	pull(): void {
		this.#unplugged = true;
		for (const s of this.#sockets) s.destroy();
	}

	plugIn(): void {
		this.#unplugged = false;
	}

	async close(): Promise<void> {
		for (const s of this.#sockets) s.destroy();
		await new Promise<void>((resolve) =>
			this.#server ? this.#server.close(() => resolve()) : resolve()
		);
	}
}
