// Where a chronometer's bytes come from: the `--timer` setting (a TCP socket or a serial device)
// and a connection to it that reconnects with backoff when it drops. No parsing here: the text
// read goes to the bridge (server/timer/timer.ts), which feeds the app's LineParser.
import { execFile } from 'node:child_process';
import { constants, openSync, closeSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { isatty, ReadStream } from 'node:tty';

export type TimerSource =
	{ kind: 'tcp'; host: string; port: number } | { kind: 'serial'; path: string; baud: number };

/** One timer: its source and the ring it times (default: see resolveTimers in timer.ts). */
export interface TimerSpec {
	ringId?: number;
	source: TimerSource;
}

export const DEFAULT_BAUD = 9600;

/** `tcp:host:port`, `tcp:[::1]:port`, `serial:/dev/ttyUSB0` or `serial:/dev/ttyUSB0@9600`. */
export function parseTimerSource(text: string): TimerSource {
	const t = text.trim();
	if (t.startsWith('tcp:')) {
		const rest = t.slice(4);
		const colon = rest.lastIndexOf(':');
		let host = colon > 0 ? rest.slice(0, colon) : '';
		if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
		const port = Number(rest.slice(colon + 1));
		if (host === '' || !/^\d{1,5}$/.test(rest.slice(colon + 1)) || port < 1 || port > 65535) {
			throw new Error(`timer '${text}': expected tcp:<host>:<port> with a port 1..65535`);
		}
		return { kind: 'tcp', host, port };
	}
	if (t.startsWith('serial:')) {
		const rest = t.slice(7);
		const at = rest.lastIndexOf('@');
		const path = at >= 0 ? rest.slice(0, at) : rest;
		const baudText = at >= 0 ? rest.slice(at + 1) : String(DEFAULT_BAUD);
		const baud = Number(baudText);
		if (path === '' || !/^\d{3,7}$/.test(baudText) || baud < 50) {
			throw new Error(
				`timer '${text}': expected serial:<device>[@<baud>], e.g. serial:/dev/ttyUSB0@9600`
			);
		}
		return { kind: 'serial', path, baud };
	}
	throw new Error(`timer '${text}': expected tcp:<host>:<port> or serial:<device>[@<baud>]`);
}

/**
 * A `--timer` value: `[ring=<ringId>,]<source>`, e.g. `ring=2,tcp:192.168.1.50:7700` or
 * `serial:/dev/ttyUSB0@9600`.
 */
export function parseTimerSpec(text: string): TimerSpec {
	const m = /^\s*ring=([^,]*),(.*)$/s.exec(text);
	if (!m) return { source: parseTimerSource(text) };
	const ringText = (m[1] ?? '').trim();
	if (!/^\d{1,15}$/.test(ringText) || Number(ringText) < 1) {
		throw new Error(`timer '${text}': ring= must be a ring id (a positive integer)`);
	}
	return { ringId: Number(ringText), source: parseTimerSource(m[2] ?? '') };
}

/** How a source is shown in status events and logs. */
export function describeSource(s: TimerSource): string {
	return s.kind === 'tcp'
		? `tcp:${s.host.includes(':') ? `[${s.host}]` : s.host}:${s.port}`
		: `serial:${s.path}@${s.baud}`;
}

export interface ReconnectOptions {
	/** First delay before reconnecting, in ms (default 250); doubled after each failure. */
	reconnectMinMs?: number;
	/** Longest delay between attempts, in ms (default 5000). */
	reconnectMaxMs?: number;
	/** A TCP connection attempt that has not connected by then is given up, in ms (default 3000). */
	connectTimeoutMs?: number;
}

export const RECONNECT_DEFAULTS: Required<ReconnectOptions> = {
	reconnectMinMs: 250,
	reconnectMaxMs: 5000,
	connectTimeoutMs: 3000
};

export interface SourceHandlers {
	/** Text read (latin1: every byte is one character, nothing is lost to decoding). */
	onText(text: string): void;
	/** The connection opened (`connected`) or dropped / failed (`detail` says why and when next). */
	onStatus(connected: boolean, detail: string): void;
}

/** A readable connection to a source; `close` releases it without further events. */
interface Opened {
	stream: NodeJS.ReadableStream & { destroy(): void };
	detail: string;
}

/** Sets the line of a serial device (raw, 8N1, the baud rate) with stty. */
function stty(path: string, baud: number): Promise<void> {
	const flag = process.platform === 'darwin' ? '-f' : '-F';
	const args = [flag, path, String(baud), 'raw', '-echo', 'cs8', '-cstopb', '-parenb', 'clocal'];
	return new Promise((resolve, reject) => {
		execFile('stty', args, (error, _out, stderr) => {
			if (!error) resolve();
			else reject(new Error(`stty ${args.join(' ')}: ${String(stderr).trim() || error.message}`));
		});
	});
}

interface SerialPortModule {
	SerialPort: new (o: {
		path: string;
		baudRate: number;
		autoOpen?: boolean;
	}) => Opened['stream'] & {
		open(cb: (e: Error | null) => void): void;
	};
}

/**
 * The optional `serialport` package, when it is installed (it is not a dependency: its native
 * build is a risk for `npm ci`); null otherwise.
 */
async function optionalSerialPort(): Promise<SerialPortModule | null> {
	const name = 'serialport';
	try {
		return (await import(/* @vite-ignore */ name)) as SerialPortModule;
	} catch {
		return null;
	}
}

/**
 * Opens a serial device: through `serialport` when installed, else (Linux, macOS) by setting the
 * line with stty and reading the device file. A FIFO works as well (for tests and pipes).
 */
async function openSerial(path: string, baud: number): Promise<Opened> {
	const sp = await optionalSerialPort();
	if (sp) {
		const port = new sp.SerialPort({ path, baudRate: baud, autoOpen: false });
		await new Promise<void>((resolve, reject) => port.open((e) => (e ? reject(e) : resolve())));
		return { stream: port, detail: `${path} at ${baud} baud (serialport)` };
	}
	if (process.platform === 'win32') {
		throw new Error(
			'a serial timer on Windows needs the serialport package: run `npm install serialport`, or use a TCP timer'
		);
	}
	// Read-write, so that a FIFO always has a writer (no end of file between two writers).
	const fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
	try {
		if (isatty(fd)) {
			await stty(path, baud);
			return { stream: new ReadStream(fd), detail: `${path} at ${baud} baud` };
		}
		return {
			stream: new Socket({ fd, readable: true, writable: false }),
			detail: `${path} (not a terminal: read as is)`
		};
	} catch (e) {
		closeSync(fd);
		throw e;
	}
}

function openTcp(host: string, port: number, timeoutMs: number): Promise<Opened> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host, port, keepAlive: true, keepAliveInitialDelay: 5000 });
		const fail = (e: Error): void => {
			socket.destroy();
			reject(e);
		};
		socket.setTimeout(timeoutMs, () => fail(new Error(`no connection within ${timeoutMs} ms`)));
		socket.once('error', fail);
		socket.once('connect', () => {
			socket.setTimeout(0);
			socket.off('error', fail);
			resolve({ stream: socket, detail: `connected to ${host}:${port}` });
		});
	});
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Keeps a connection to `source` open: (re)connects, passes the text read on, reports each
 * change of state, and waits min..max ms (doubling) between failed attempts. `close` stops it.
 */
export function keepConnected(
	source: TimerSource,
	options: ReconnectOptions,
	handlers: SourceHandlers
): { close(): void } {
	const o = { ...RECONNECT_DEFAULTS, ...options };
	let delay = o.reconnectMinMs;
	let closed = false;
	let current: Opened['stream'] | null = null;
	let timer: ReturnType<typeof setTimeout> | null = null;

	const retry = (why: string): void => {
		if (closed) return;
		const wait = delay;
		delay = Math.min(o.reconnectMaxMs, delay * 2);
		handlers.onStatus(false, `${why}; retrying in ${wait} ms`);
		timer = setTimeout(() => {
			timer = null;
			void attempt();
		}, wait);
	};

	async function attempt(): Promise<void> {
		let opened: Opened;
		try {
			opened =
				source.kind === 'tcp'
					? await openTcp(source.host, source.port, o.connectTimeoutMs)
					: await openSerial(source.path, source.baud);
		} catch (e) {
			retry(`cannot open ${describeSource(source)}: ${reasonOf(e)}`);
			return;
		}
		if (closed) {
			opened.stream.destroy();
			return;
		}
		const { stream } = opened;
		current = stream;
		delay = o.reconnectMinMs;
		let over = false;
		let why = 'the connection ended';
		const end = (): void => {
			if (over) return;
			over = true;
			current = null;
			stream.destroy();
			retry(`${describeSource(source)}: ${why}`);
		};
		stream.on('data', (chunk: Buffer | string) => {
			if (!over && !closed) {
				handlers.onText(typeof chunk === 'string' ? chunk : chunk.toString('latin1'));
			}
		});
		stream.on('error', (e: unknown) => {
			why = reasonOf(e);
			end();
		});
		stream.on('end', end);
		stream.on('close', end);
		handlers.onStatus(true, opened.detail);
	}

	void attempt();
	return {
		close() {
			closed = true;
			if (timer) clearTimeout(timer);
			current?.destroy();
			current = null;
		}
	};
}
