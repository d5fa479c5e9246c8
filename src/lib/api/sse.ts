/**
 * The `text/event-stream` format (WHATWG HTML, "Server-sent events", parsing an event stream), as
 * far as the app's streams use it: lines ended by CR LF, LF or CR (also split across reads),
 * `event`, `data` (several lines joined with \n), `id` (the last event ID, kept until changed),
 * `retry`, and comments. Pure: text in, messages out.
 */
export interface SseMessage {
	/** 'message' when the block names none, as EventSource does. */
	event: string;
	data: string;
	/** The last event ID the stream set, '' before any. */
	lastEventId: string;
}

export class SseParser {
	#buffer = '';
	#event = '';
	#data: string[] = [];
	/** The id field's value, committed as the last event id at the end of its block (the spec). */
	#idBuffer = '';
	#lastEventId = '';
	readonly #onMessage: (message: SseMessage) => void;
	readonly #onRetry: (ms: number) => void;

	constructor(
		onMessage: (message: SseMessage) => void,
		onRetry: (ms: number) => void = () => {},
		lastEventId = ''
	) {
		this.#onMessage = onMessage;
		this.#onRetry = onRetry;
		this.#lastEventId = lastEventId;
		this.#idBuffer = lastEventId;
	}

	get lastEventId(): string {
		return this.#lastEventId;
	}

	/** Decoded text as it arrives. */
	push(text: string): void {
		this.#buffer += text;
		let nl: number;
		while ((nl = this.#buffer.search(/\r\n|\r|\n/)) >= 0) {
			// A lone \r at the end may be the first half of \r\n: wait for the next read.
			if (this.#buffer[nl] === '\r' && nl === this.#buffer.length - 1) break;
			const line = this.#buffer.slice(0, nl);
			this.#buffer = this.#buffer.slice(nl + (this.#buffer.startsWith('\r\n', nl) ? 2 : 1));
			this.#line(line);
		}
	}

	#line(line: string): void {
		if (line === '') {
			// Committed at every block's end, one with an id but no data too.
			this.#lastEventId = this.#idBuffer;
			if (this.#data.length > 0) {
				this.#onMessage({
					event: this.#event || 'message',
					data: this.#data.join('\n'),
					lastEventId: this.#lastEventId
				});
			}
			this.#event = '';
			this.#data = [];
			return;
		}
		if (line.startsWith(':')) return;
		const colon = line.indexOf(':');
		const field = colon < 0 ? line : line.slice(0, colon);
		const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
		if (field === 'event') this.#event = value;
		else if (field === 'data') this.#data.push(value);
		else if (field === 'id' && !value.includes('\0')) this.#idBuffer = value;
		else if (field === 'retry' && /^\d+$/.test(value)) this.#onRetry(Number(value));
	}
}
