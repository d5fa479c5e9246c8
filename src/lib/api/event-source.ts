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
 * - a busy service (429, 5xx): the same, after its Retry-After when it sends one;
 * - any other answer (401, 403, 404, not an event stream): CLOSED (2), `onerror`, no reconnection;
 *   `status` says which answer it was;
 * - a connection that sends nothing, not even the service's heartbeat comments, for `idleMs` is
 *   taken for dead (a half-open TCP connection after the Wi-Fi roamed) and made again;
 * - `close()` ends it for good.
 * A listener that throws does not break the stream: the error is reported and reading goes on.
 * The format is read by ./sse.
 */
import type { Contact, ContactObserver } from './contact';
import { parseRetryAfter } from './retry-after';
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
	/** Silence after which an open connection is taken for dead (default 45 s: 3 heartbeats). */
	idleMs?: number;
	/** Told what each connection learnt of the service: its answer, or why none came. */
	observe?: ContactObserver;
	/**
	 * The least wait before a reconnection, asked each time (the app's one backoff policy for
	 * background requests against a struggling or unreachable service); the `retry:` delay and a
	 * Retry-After still apply when longer.
	 */
	reconnectDelayMs?: () => number;
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
	/** The HTTP status of the last answer (0: none yet, or no answer). */
	status = 0;

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
		const startedAt = Date.now();
		let response: Response;
		try {
			// No Cache-Control header: it is not CORS-safelisted, so it would ask a service on another
			// origin for a preflight it may refuse; `cache: 'no-store'` says the same to the browser.
			const headers = new Headers({ Accept: 'text/event-stream' });
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
			if (!controller.signal.aborted) this.#report({ startedAt, code: 'network' });
			this.#dropped(controller);
			return;
		}
		if (controller.signal.aborted) return;
		this.status = response.status;
		const type = response.headers.get('Content-Type') ?? '';
		const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
		const isStream = response.status === 200 && /^text\/event-stream\b/i.test(type);
		this.#report({
			startedAt,
			status: response.status,
			...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
			// A 200 that is not an event stream is somebody else's page (a captive portal).
			...(response.status === 200 && !isStream ? { code: 'not-json' as const } : {})
		});
		if (!isStream || !response.body) {
			void response.body?.cancel().catch(() => undefined);
			if (response.status === 429 || response.status >= 500) {
				this.#dropped(controller, retryAfter);
				return;
			}
			this.readyState = CLOSED;
			this.#call(this.onerror, new Event('error'));
			return;
		}
		this.readyState = OPEN;
		this.#call(this.onopen, new Event('open'));
		try {
			await this.#read(response.body, controller);
		} catch {
			// a reset connection: as a dropped one
		}
		this.#dropped(controller);
	}

	/**
	 * The connection ended or failed: let go of it, report it, and connect again after the retry
	 * delay (or the service's Retry-After).
	 */
	#dropped(controller: AbortController, delayMs?: number): void {
		controller.abort();
		if (this.readyState === CLOSED || this.#controller !== controller) return;
		this.readyState = CONNECTING;
		this.#call(this.onerror, new Event('error'));
		if (this.readyState === CLOSED) return; // closed by the error handler
		const backoff = this.#options.reconnectDelayMs?.() ?? 0;
		this.#timer = setTimeout(
			() => {
				this.#timer = null;
				void this.#connect();
			},
			Math.max(this.#retryMs, delayMs ?? 0, backoff)
		);
	}

	/** Tells the observer; an observer that throws never breaks the stream. */
	#report(contact: Omit<Contact, 'at'>): void {
		this.#call(this.#options.observe ?? null, { ...contact, at: Date.now() });
	}

	/** Calls a handler of the page; what it throws is reported, never taken for a lost stream. */
	#call<E>(handler: ((event: E) => void) | null, event: E): void {
		try {
			handler?.(event);
		} catch (error) {
			report(error);
		}
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
		const idleMs = this.#options.idleMs ?? 45_000;
		let idle: ReturnType<typeof setTimeout> | null = null;
		const watch = () => {
			if (idle) clearTimeout(idle);
			const since = Date.now();
			idle = setTimeout(() => {
				// Silent since `since`: no contact with the service.
				this.#report({ startedAt: since, code: 'timeout' });
				controller.abort();
			}, idleMs);
		};
		const stop = () => {
			if (idle) clearTimeout(idle);
			void reader.cancel().catch(() => undefined);
		};
		controller.signal.addEventListener('abort', stop, { once: true });
		try {
			for (;;) {
				watch();
				const { value, done } = await reader.read();
				if (done || controller.signal.aborted) return;
				// Anything read, a heartbeat too, says the service is there now.
				const now = Date.now();
				this.#report({ startedAt: now, status: 200 });
				parser.push(decoder.decode(value, { stream: true }));
				// An id in a block without data counts too.
				this.#lastEventId = parser.lastEventId;
			}
		} finally {
			if (idle) clearTimeout(idle);
			controller.signal.removeEventListener('abort', stop);
		}
	}

	#dispatch(type: string, data: string): void {
		if (this.readyState === CLOSED) return;
		const event = new MessageEvent<string>(type, { data, lastEventId: this.#lastEventId });
		for (const listener of this.#listeners.get(type) ?? []) this.#call(listener, event);
	}
}

/** Reports an error of a page's handler (the console, where nothing else does). */
function report(error: unknown): void {
	if (typeof reportError === 'function') reportError(error);
	else console.error(error);
}
