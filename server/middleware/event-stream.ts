// Event streams (text/event-stream): the headers of a stream, the text of one event, and the
// registry of open streams that bounds their number and ends or drops them all (on close, or
// when fault injection makes the service unreachable). Used by the local push channel and by
// the proxy's pass-through of an upstream's streams.
import { HttpError } from '../http/errors.ts';

/**
 * Headers of a stream: never cached or stored, never compressed or buffered on the way (the
 * service does not compress; `X-Accel-Buffering` tells nginx-like proxies not to buffer), and
 * the connection closes with the stream.
 */
export const EVENT_STREAM_HEADERS: Record<string, string> = {
	'Content-Type': 'text/event-stream; charset=utf-8',
	'Cache-Control': 'no-store',
	'X-Content-Type-Options': 'nosniff',
	'X-Frame-Options': 'DENY',
	'X-Accel-Buffering': 'no',
	Connection: 'close'
};

/** A stream whose client reads too slowly is dropped once this much waits to be sent. */
export const MAX_PENDING_BYTES = 1024 * 1024;

export interface EventFields {
	id?: string;
	event?: string;
	data: string;
	retry?: number;
}

/** The text of one event (a `data:` line per line of `data`), ending with the blank line. */
export function formatEvent({ id, event, data, retry }: EventFields): string {
	let text = retry === undefined ? '' : `retry: ${retry}\n`;
	if (id !== undefined) text += `id: ${id}\n`;
	if (event !== undefined) text += `event: ${event}\n`;
	for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
	return `${text}\n`;
}

export interface OpenStream {
	/** Ends the stream cleanly (the client sees the end of the answer and reconnects later). */
	end(): void;
	/** Drops the connection (as a service that went away). */
	drop(): void;
}

export class StreamRegistry {
	readonly max: number;
	readonly #open = new Set<OpenStream>();
	/** Places kept for streams about to open (see `reserve`). */
	#reserved = 0;

	constructor(max: number) {
		this.max = max;
	}

	get size(): number {
		return this.#open.size;
	}

	/** Throws 503 (with the error object) when `max` streams are open or reserved. */
	admit(): void {
		if (this.#open.size + this.#reserved < this.max) return;
		throw new HttpError(
			503,
			`Too many open change streams (${this.max}); read the resources instead, or retry later`,
			{ 'Retry-After': '30' }
		);
	}

	/**
	 * Admits a stream that opens later (it waits for something first): its place is kept, and
	 * counted by `admit`, until the returned release (call it once the stream is added, or not).
	 */
	reserve(): () => void {
		this.admit();
		this.#reserved++;
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.#reserved--;
		};
	}

	/** Registers an open stream; returns its removal. */
	add(stream: OpenStream): () => void {
		this.#open.add(stream);
		return () => {
			this.#open.delete(stream);
		};
	}

	endAll(): void {
		for (const s of [...this.#open]) s.end();
		this.#open.clear();
	}

	dropAll(): void {
		for (const s of [...this.#open]) s.drop();
		this.#open.clear();
	}
}
