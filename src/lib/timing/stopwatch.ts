/**
 * The built-in hand stopwatch, for small events without gates: one large target, a tap starts, the
 * next tap stops. It yields the same TimingEvents as a chronometer, so that the run clock treats
 * both alike. Times are truncated to hundredths. A second tap within `debounceMs` of the last one
 * taken is a double tap (a glove, a shaky hand) and is ignored: it would otherwise stop a run at
 * 0.12 s or start a new one right after a stop.
 */
import { hundredthsFromMs, type TimingEvent } from '../contract/timing-events.ts';

/** Taps closer than this to the last one taken are ignored. */
export const DOUBLE_TAP_MS = 300;

export interface StopwatchOptions {
	/** Monotonic clock in ms (performance.now()); injected by tests. */
	now?: () => number;
	debounceMs?: number;
	/** Every event the stopwatch yields. */
	onEvent?: (event: TimingEvent) => void;
}

export class Stopwatch {
	readonly #now: () => number;
	readonly #debounceMs: number;
	readonly #onEvent: (event: TimingEvent) => void;
	#startedAt: number | null = null;
	#lastTap = -Infinity;

	constructor(options: StopwatchOptions = {}) {
		this.#now = options.now ?? (() => performance.now());
		this.#debounceMs = options.debounceMs ?? DOUBLE_TAP_MS;
		this.#onEvent = options.onEvent ?? (() => {});
	}

	get running(): boolean {
		return this.#startedAt !== null;
	}

	/** Hundredths since the start (truncated), or null when not running. */
	elapsed(): number | null {
		return this.#startedAt === null ? null : hundredthsFromMs(this.#now() - this.#startedAt);
	}

	/** A tap on the target: starts or stops; null when taken as a double tap. */
	tap(): TimingEvent | null {
		const now = this.#now();
		if (now - this.#lastTap < this.#debounceMs) return null;
		this.#lastTap = now;
		let event: TimingEvent;
		if (this.#startedAt === null) {
			this.#startedAt = now;
			event = { type: 'start' };
		} else {
			event = { type: 'stop', elapsed: hundredthsFromMs(now - this.#startedAt) };
			this.#startedAt = null;
		}
		this.#onEvent(event);
		return event;
	}

	/** Abandons a run (a false start, a rerun): no time. */
	reset(): TimingEvent {
		this.#startedAt = null;
		this.#lastTap = -Infinity;
		const event: TimingEvent = { type: 'reset' };
		this.#onEvent(event);
		return event;
	}
}
