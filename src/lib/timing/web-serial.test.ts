import { describe, expect, it } from 'vitest';
import { TimingError } from './errors';
import type { TimingEvent } from '../contract/timing-events';
import {
	choosePort,
	SerialTimer,
	webSerial,
	type SerialPortLike,
	type SerialStatus
} from './web-serial';

/**
 * A serial port as Web Serial gives one: `readable` is a ReadableStream of bytes, null after a
 * fatal error, a new stream after a non-fatal one; close() refuses while the stream is locked.
 */
class FakePort implements SerialPortLike {
	readable: ReadableStream<Uint8Array> | null = null;
	baudRate: number | null = null;
	closed = false;
	failOpen = false;
	#controller: ReadableStreamDefaultController<Uint8Array> | null = null;

	async open(options: { baudRate: number }): Promise<void> {
		if (this.failOpen) throw new DOMException('Failed to open serial port.', 'NetworkError');
		this.baudRate = options.baudRate;
		this.#fresh();
	}

	async close(): Promise<void> {
		if (this.readable?.locked) throw new TypeError('The port is locked.');
		this.closed = true;
		this.readable = null;
	}

	send(bytes: Uint8Array | string): void {
		this.#controller?.enqueue(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes);
	}

	/** The device ends its stream. */
	end(): void {
		this.#controller?.close();
	}

	/** The cable is pulled: the stream errors and the port has none any more. */
	unplug(): void {
		this.#controller?.error(new DOMException('The device has been lost.', 'NetworkError'));
		this.readable = null;
	}

	/** A framing or overrun error: the stream errors and the port offers a new one. */
	glitch(): void {
		const old = this.#controller;
		this.#fresh();
		old?.error(new DOMException('A framing error was detected.', 'FramingError'));
	}

	#fresh(): void {
		this.readable = new ReadableStream<Uint8Array>({
			start: (controller) => {
				this.#controller = controller;
			}
		});
	}
}

/** Lets the streams move data along. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

function connect(port: FakePort, baudRate?: number) {
	const events: TimingEvent[] = [];
	const statuses: SerialStatus[] = [];
	const timer = new SerialTimer(port, {
		...(baudRate === undefined ? {} : { baudRate }),
		onEvent: (e) => events.push(e),
		onStatus: (s) => statuses.push(s)
	});
	const done = timer.start();
	return { timer, events, statuses, done };
}

describe('SerialTimer (Web Serial)', () => {
	it('opens at 9600 baud and parses lines split across reads, even inside a character', async () => {
		const port = new FakePort();
		const { events, statuses } = connect(port);
		await settle();
		expect(port.baudRate).toBe(9600);
		const bytes = new TextEncoder().encode('START\r\nIN');
		port.send(bytes);
		port.send('T 1850\r');
		port.send('\nSTOP 38,639\r\n');
		await settle();
		expect(events).toEqual([
			{ type: 'start' },
			{ type: 'intermediate', elapsed: 185 },
			{ type: 'stop', elapsed: 3863 }
		]);
		expect(statuses).toEqual([{ connected: true }]);
	});

	it('reads a multi-byte character split between reads as noise, one line only', async () => {
		const port = new FakePort();
		const { events } = connect(port, 19200);
		await settle();
		expect(port.baudRate).toBe(19200);
		const bytes = new TextEncoder().encode('ST\u00d8P 1\nOK\n');
		port.send(bytes.slice(0, 3));
		port.send(bytes.slice(3));
		await settle();
		expect(events).toEqual([
			{ type: 'garbage', line: 'ST\u00d8P 1', reason: 'noise' },
			{ type: 'ready' }
		]);
	});

	it('reports a pulled cable with a code and drops the half line', async () => {
		const port = new FakePort();
		const { events, statuses, done } = connect(port);
		await settle();
		port.send('START\nSTOP 38');
		await settle();
		port.unplug();
		await done;
		expect(events).toEqual([
			{ type: 'start' },
			{ type: 'garbage', line: 'STOP 38', reason: 'cut' }
		]);
		expect(statuses.at(-1)).toEqual({ connected: false, problem: 'read-failed' });
	});

	it('drops the line a non-fatal error cut and reads on from the new stream', async () => {
		const port = new FakePort();
		const { events, statuses } = connect(port);
		await settle();
		port.send('START 1000\nSTOP 3');
		await settle();
		port.glitch();
		await settle();
		port.send('9639\nSTOP 40000\n');
		await settle();
		expect(events).toEqual([
			{ type: 'start', timestamp: 1000 },
			{ type: 'garbage', line: 'STOP 3', reason: 'cut' },
			// The rest of the cut line, then a stop whose start this parser never saw.
			{ type: 'garbage', line: '9639', reason: 'unknown-command' },
			{ type: 'stop', elapsed: 4000, flag: 'no-start' }
		]);
		expect(statuses).toEqual([{ connected: true }]);
	});

	it('reports the end of the stream as closed and closes the port', async () => {
		const port = new FakePort();
		const { statuses, done } = connect(port);
		await settle();
		port.end();
		await done;
		expect(statuses.at(-1)).toEqual({ connected: false, problem: 'closed' });
		expect(port.closed).toBe(true);
	});

	it('stops on request: cancels the read, releases the stream and closes the port', async () => {
		const port = new FakePort();
		const { timer, statuses, done } = connect(port);
		await settle();
		await timer.stop();
		await done;
		expect(port.closed).toBe(true);
		expect(statuses.at(-1)).toEqual({ connected: false });
	});

	it('throws open-failed when the port cannot be opened', async () => {
		const port = new FakePort();
		port.failOpen = true;
		const timer = new SerialTimer(port, { onEvent: () => {} });
		await expect(timer.start()).rejects.toMatchObject({ code: 'open-failed' });
	});
});

describe('choosePort', () => {
	it('says when the browser has no Web Serial', async () => {
		expect(webSerial({})).toBeUndefined();
		await expect(choosePort(undefined)).rejects.toMatchObject({ code: 'unsupported' });
	});

	it('says when the picker was closed without a choice', async () => {
		const serial = webSerial({
			serial: {
				requestPort: () => Promise.reject(new DOMException('No port selected.', 'NotFoundError'))
			}
		});
		const error: unknown = await choosePort(serial).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimingError);
		expect(error).toMatchObject({ code: 'no-port-chosen' });
	});

	it('returns the chosen port', async () => {
		const port = new FakePort();
		await expect(choosePort({ requestPort: () => Promise.resolve(port) })).resolves.toBe(port);
	});
});
