/**
 * The service's timer stream: a chronometer cabled to the ring laptop is read by the embedded
 * service (server/timer/timer.ts), which relays its events to the phones of that ring as Server-Sent
 * Events at the ring's `timer` link (present only for a ring that has a timer; never assumed):
 * - `event: timing`, `data:` a TimingEvent as JSON (plus the service's `receivedAt`);
 * - `event: status`, `data:` `{ connected, detail, … }`: whether the service has its chronometer.
 *
 * Coded against the part of EventSource it uses (as $lib/sync/live-updates does), which the page
 * provides and tests fake. The browser reconnects a dropped stream by itself (Last-Event-ID, and
 * the service replays what was missed); the clock is told it was disconnected meanwhile, so that a
 * stop after the gap is held for the steward.
 */
import { findLink, type LinkMap } from '$lib/api/links';
import type { TimingErrorCode } from './errors.ts';
import { toTimingEvent, type TimingEvent } from '../contract/timing-events.ts';

/** The link relation of a ring's timer stream. */
export const TIMER_REL = 'timer';

/** The part of EventSource used here. */
export interface EventStream {
	readonly readyState: number;
	/** The HTTP status of the last answer, where the source knows it (ours does; EventSource not). */
	readonly status?: number;
	onopen: ((event: Event) => void) | null;
	onerror: ((event: Event) => void) | null;
	addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
	close(): void;
}

/** The href of a ring's timer stream, or undefined when the ring has no timer. */
export function timerHref(ring: { _links?: LinkMap }): string | undefined {
	const link = findLink(ring._links, TIMER_REL);
	return link && !link.templated ? link.href : undefined;
}

export interface StreamStatus {
	/** Events can arrive: the stream is open and the service has its chronometer. */
	connected: boolean;
	problem?: TimingErrorCode;
	/** The service's own words on its chronometer (for a log or a details line). */
	detail?: string;
}

export interface TimerStreamOptions {
	open: (url: string) => EventStream;
	onEvent: (event: TimingEvent) => void;
	onStatus?: (status: StreamStatus) => void;
}

const CLOSED = 2;

/** Follows one ring's timer stream; close() to stop. */
export class TimerStream {
	readonly #options: TimerStreamOptions;
	#source: EventStream | null = null;
	#open = false;
	/** What the service last said of its chronometer (unknown until its first status event). */
	#chronometer: boolean | null = null;
	#detail: string | undefined = undefined;
	#last: string | null = null;

	constructor(options: TimerStreamOptions) {
		this.#options = options;
	}

	connect(href: string): void {
		this.close();
		const source = this.#options.open(href);
		this.#source = source;
		source.onopen = () => {
			this.#open = true;
			this.#report();
		};
		source.onerror = () => {
			this.#open = false;
			// After a reconnection the service first replays what was missed (Last-Event-ID), then
			// says whether it has its chronometer: connected is reported only from that status on,
			// so that the clock takes the replayed events as what they are, not as live ones.
			this.#chronometer = null;
			this.#report(
				source.readyState !== CLOSED
					? 'stream-lost'
					: source.status === 401 || source.status === 403
						? 'stream-unauthorized'
						: 'stream-refused'
			);
		};
		source.addEventListener('timing', (message) => {
			const event = toTimingEvent(parse(message.data));
			// Not the shape of an event: ignored, never guessed at.
			if (event && this.#source === source) this.#options.onEvent(event);
		});
		source.addEventListener('status', (message) => {
			const status = parse(message.data) as { connected?: unknown; detail?: unknown } | undefined;
			if (typeof status?.connected !== 'boolean') return;
			this.#chronometer = status.connected;
			this.#detail = typeof status.detail === 'string' ? status.detail : undefined;
			this.#report();
		});
	}

	close(): void {
		this.#source?.close();
		this.#source = null;
		this.#open = false;
		this.#chronometer = null;
		this.#last = null;
	}

	#report(streamProblem?: TimingErrorCode): void {
		let status: StreamStatus;
		if (!this.#open) status = { connected: false, problem: streamProblem ?? 'stream-lost' };
		else if (this.#chronometer === false)
			status = { connected: false, problem: 'chronometer-lost' };
		else if (this.#chronometer === true) status = { connected: true };
		else return; // open, but the service has not said yet whether it has its chronometer
		if (this.#detail !== undefined && this.#open) status.detail = this.#detail;
		// One report per change: the browser's retries repeat the same error.
		const key = JSON.stringify(status);
		if (key === this.#last) return;
		this.#last = key;
		this.#options.onStatus?.(status);
	}
}

function parse(data: string): unknown {
	try {
		return JSON.parse(data);
	} catch {
		return undefined;
	}
}
