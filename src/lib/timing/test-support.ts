// Test support of the timing modules (imported by tests only).
import type { EventStream } from './event-stream';

/** An EventSource as the browser gives one, driven by the test. */
export class FakeEventSource implements EventStream {
	readyState = 0;
	status: number | undefined = undefined;
	onopen: ((event: Event) => void) | null = null;
	onerror: ((event: Event) => void) | null = null;
	closed = false;
	readonly #listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();

	constructor(readonly url: string) {}

	addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void {
		this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
	}

	close(): void {
		this.closed = true;
		this.readyState = 2;
	}

	open(): void {
		this.readyState = 1;
		this.onopen?.(new Event('open'));
	}

	fail(readyState: 0 | 2): void {
		this.readyState = readyState;
		this.onerror?.(new Event('error'));
	}

	emit(type: string, data: string): void {
		for (const l of this.#listeners.get(type) ?? []) l(new MessageEvent(type, { data }));
	}
}
