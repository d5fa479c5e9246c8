/**
 * A chronometer plugged into this device, read through Web Serial (Chromium on desktops and some
 * tablets): the port's bytes go through a TextDecoderStream into the LineParser, and each event
 * out. The same parser as the service's bridge, so both read a chronometer alike (docs/timing.md).
 *
 * Errors and disconnections are reported with codes (TimingError), never thrown at the reader:
 * - a fatal read error (the cable pulled, the device unplugged): `read-failed`, reading ends;
 * - a non-fatal one (a framing, parity or overrun error: the port stays readable): the line being
 *   read is dropped (reported as `cut` garbage, since bytes of it may be lost — `STOP 38?30` must
 *   not become `STOP 3830`) and reading resumes with a fresh parser;
 * - the device ended the stream: `closed`.
 *
 * The browser API is injected (`navigator.serial` by default) and tests pass a fake port built on
 * web streams.
 */
import { TimingError, type TimingErrorCode } from './errors.ts';
import type { TimingEvent } from '../contract/timing-events.ts';
import { LineParser } from '../contract/timing-protocol.ts';

/** The baud rate of AgilityContest-style chronometers unless set otherwise. */
export const DEFAULT_BAUD_RATE = 9600;

/** The part of a Web Serial SerialPort used here. */
export interface SerialPortLike {
	readonly readable: ReadableStream<Uint8Array> | null;
	open(options: { baudRate: number }): Promise<void>;
	close(): Promise<void>;
}

/** The part of navigator.serial used here. */
export interface SerialLike {
	requestPort(options?: { filters?: { usbVendorId?: number }[] }): Promise<SerialPortLike>;
}

/** Web Serial where the browser offers it. */
export function webSerial(nav: unknown = globalThis.navigator): SerialLike | undefined {
	const serial = (nav as { serial?: SerialLike } | undefined)?.serial;
	return serial && typeof serial.requestPort === 'function' ? serial : undefined;
}

/**
 * Asks the user to choose a port (must run in a user gesture, a tap). Throws TimingError
 * `unsupported` or `no-port-chosen`.
 */
export async function choosePort(
	serial: SerialLike | undefined = webSerial()
): Promise<SerialPortLike> {
	if (!serial) throw new TimingError('unsupported');
	try {
		return await serial.requestPort();
	} catch (error) {
		// NotFoundError: the picker was closed without a choice.
		throw new TimingError('no-port-chosen', { cause: error });
	}
}

export interface SerialStatus {
	connected: boolean;
	problem?: TimingErrorCode;
}

export interface SerialTimerOptions {
	baudRate?: number;
	onEvent: (event: TimingEvent) => void;
	/** Connected after the port opened; disconnected with a code when reading ends. */
	onStatus?: (status: SerialStatus) => void;
}

export class SerialTimer {
	readonly #port: SerialPortLike;
	readonly #options: SerialTimerOptions;
	#reader: ReadableStreamDefaultReader<string> | null = null;
	#stopping = false;
	#reading: Promise<void> | null = null;

	constructor(port: SerialPortLike, options: SerialTimerOptions) {
		this.#port = port;
		this.#options = options;
	}

	/**
	 * Opens the port and reads it until it ends or stop() is called; resolves when reading has
	 * ended. Throws TimingError `open-failed` when the port cannot be opened.
	 */
	async start(): Promise<void> {
		try {
			await this.#port.open({ baudRate: this.#options.baudRate ?? DEFAULT_BAUD_RATE });
		} catch (error) {
			this.#status({ connected: false, problem: 'open-failed' });
			throw new TimingError('open-failed', { cause: error });
		}
		this.#status({ connected: true });
		this.#reading = this.#readAll();
		return this.#reading;
	}

	/** Stops reading and closes the port (the user disconnects). */
	async stop(): Promise<void> {
		this.#stopping = true;
		await this.#reader?.cancel().catch(() => {});
		await this.#reading?.catch(() => {});
		await this.#port.close().catch(() => {});
	}

	async #readAll(): Promise<void> {
		let problem: TimingErrorCode = 'closed';
		let previous: ReadableStream<Uint8Array> | null = null;
		while (!this.#stopping) {
			const readable = this.#port.readable;
			// After a fatal error the port has no stream; after a non-fatal one, a new stream.
			if (!readable || readable === previous) {
				problem = 'read-failed';
				break;
			}
			previous = readable;
			const parser = new LineParser();
			const decoder = new TextDecoderStream();
			// Errors surface at the reader; the pipe's own promise is only awaited to release the port.
			// (The DOM types give the decoder a WritableStream<BufferSource>, which takes Uint8Array.)
			const sink = decoder.writable as WritableStream<Uint8Array>;
			const piped = readable.pipeTo(sink).catch(() => {});
			const reader = decoder.readable.getReader();
			this.#reader = reader;
			let ended = false;
			try {
				for (;;) {
					const { value, done } = await reader.read();
					if (done) {
						ended = true;
						break;
					}
					this.#emit(parser.push(value));
				}
			} catch {
				// Fatal or not: `readable` tells (null after a fatal error), at the top of the loop.
			} finally {
				reader.releaseLock();
				this.#reader = null;
				await piped;
			}
			this.#emit(parser.end());
			if (ended) break;
		}
		if (!this.#stopping) {
			this.#status({ connected: false, problem });
			await this.#port.close().catch(() => {});
		} else {
			this.#status({ connected: false });
		}
	}

	#emit(events: TimingEvent[]): void {
		for (const event of events) this.#options.onEvent(event);
	}

	#status(status: SerialStatus): void {
		this.#options.onStatus?.(status);
	}
}
