/**
 * Server-Sent Events over fetch, for a service that wants a credential: the browser's EventSource
 * cannot send an Authorization header, so against such a service the app's push streams (a
 * competition's `changes`, a ring's `timer`) would be refused and fall back to polling, or for the
 * gates to nothing. This reads the same `text/event-stream` (WHATWG HTML, "Server-sent events")
 * with fetch and behaves as EventSource does where the app relies on it:
 * - `readyState` CONNECTING (0) → OPEN (1) on a 200 `text/event-stream`; `onopen`, then events;
 * - a dropped connection: `onerror` with CONNECTING, and a reconnection after the `retry:` delay
 *   (3 s until the service says), sending `Last-Event-ID` so the service can replay what was
 *   missed;
 * - any other answer (401, 404, not an event stream): CLOSED (2), `onerror`, no reconnection;
 * - `close()` ends it for good.
 * The format is read by ./sse.
 */
import { SseParser } from './sse';

export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSED = 2;

export interface FetchEventSourceOptions {
	/** The Authorization header value for each connection (read again before every one). */
	authorization?: () => Promise<string | undefined> | string | undefined;
	fetch?: (input: string, init: RequestInit) => Promise<Response>;
	/** Reconnection delay until the service sets one with `retry:`. */
	retryMs?: number;
}

type Listener = (event: MessageEvent<string>) => void;

export class FetchEventSource {
	readonly url: string;
	readyState = CONNECTING;
	onopen: ((event: Event) => void) | null = null;
	onerror: ((event: Event) => void) | null = null;
	readonly #listeners = new Map<string, Set<Listener>>();
	readonly #options: FetchEventSourceOptions;
	#controller: AbortController | null = null;
	#retryMs: number;
	#lastEventId = '';
	#timer: ReturnType<typeof setTimeout> | null = null;

	constructor(url: string, options: FetchEventSourceOptions = {}) {
		this.url = url;
		this.#options = options;
		this.#retryMs = options.retryMs ?? 3_000;
		void this.#connect();
	}

	addEventListener(type: string, listener: Listener): void {
		let set = this.#listeners.get(type);
		if (!set) this.#listeners.set(type, (set = new Set()));
		set.add(listener);
	}

	removeEventListener(type: string, listener: Listener): void {
		this.#listeners.get(type)?.delete(listener);
	}

	close(): void {
		this.readyState = CLOSED;
		this.#controller?.abort();
		this.#controller = null;
		if (this.#timer) clearTimeout(this.#timer);
		this.#timer = null;
	}

	async #connect(): Promise<void> {
		if (this.readyState === CLOSED) return;
		const controller = new AbortController();
		this.#controller = controller;
		let response: Response;
		try {
			const headers = new Headers({ Accept: 'text/event-stream', 'Cache-Control': 'no-cache' });
			const authorization = await this.#options.authorization?.();
			if (authorization) headers.set('Authorization', authorization);
			if (this.#lastEventId) headers.set('Last-Event-ID', this.#lastEventId);
			const fetchImpl = this.#options.fetch ?? ((i, init) => globalThis.fetch(i, init));
			response = await fetchImpl(this.url, {
				headers,
				signal: controller.signal,
				cache: 'no-store'
			});
		} catch {
			this.#dropped(controller);
			return;
		}
		if (controller.signal.aborted) return;
		const type = response.headers.get('Content-Type') ?? '';
		if (response.status !== 200 || !/^text\/event-stream\b/i.test(type) || !response.body) {
			void response.body?.cancel().catch(() => undefined);
			this.readyState = CLOSED;
			this.onerror?.(new Event('error'));
			return;
		}
		this.readyState = OPEN;
		this.onopen?.(new Event('open'));
		try {
			await this.#read(response.body, controller);
		} catch {
			// a reset connection: as a dropped one
		}
		this.#dropped(controller);
	}

	/** The connection ended or failed: report it and connect again after the retry delay. */
	#dropped(controller: AbortController): void {
		if (this.readyState === CLOSED || this.#controller !== controller) return;
		this.readyState = CONNECTING;
		this.onerror?.(new Event('error'));
		if (this.readyState === CLOSED) return; // closed by the error handler
		this.#timer = setTimeout(() => {
			this.#timer = null;
			void this.#connect();
		}, this.#retryMs);
	}

	async #read(body: ReadableStream<Uint8Array>, controller: AbortController): Promise<void> {
		const reader = body.getReader();
		const decoder = new TextDecoder();
		const parser = new SseParser(
			(m) => {
				this.#lastEventId = m.lastEventId;
				this.#dispatch(m.event, m.data);
			},
			(ms) => (this.#retryMs = ms),
			// The last event ID carries over a reconnection.
			this.#lastEventId
		);
		for (;;) {
			const { value, done } = await reader.read();
			if (done || controller.signal.aborted) return;
			parser.push(decoder.decode(value, { stream: true }));
		}
	}

	#dispatch(type: string, data: string): void {
		if (this.readyState === CLOSED) return;
		const event = new MessageEvent<string>(type, { data, lastEventId: this.#lastEventId });
		for (const listener of this.#listeners.get(type) ?? []) listener(event);
	}
}
