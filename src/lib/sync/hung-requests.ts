/**
 * Requests sent into a link that dropped them: the one owner of noticing them before their
 * time-out. When a 4G dongle reconnects, or the venue's Wi-Fi drops for a few seconds, a request
 * sent meanwhile gets no answer at all, and the link coming back does not revive it: it hangs
 * until the client's time-out (15 s), and whatever it carried waits with it. The service is there
 * again long before that.
 *
 * So: a request in flight for longer than `hangAfterMs` is suspect, and the prober is asked to
 * look now (`onSuspect`). When an answer of the service comes to a request sent after a suspect
 * one (the probe's, or any other), the suspect is taken for lost and aborted: its caller sees a
 * network failure, the entry it carried waits only for the service (which answers), and goes at
 * once. Safe by construction: an aborted PUT that did reach the service is found applied at the
 * next decision (the entry's `inFlight`).
 *
 * A service that is merely slow must not lose every request to this: the bar is never below
 * three times the slowest answer of the last ones, and it doubles after each abort (back to its
 * base after a quiet minute), so a slow upstream's requests are aborted once at most, and learnt.
 *
 * Pure apart from its dependencies (the clock, the fetch it wraps); server/mirror uses it.
 */
import type { Contact } from '../api/contact';
import type { FetchLike } from '../api/hal-client';
import { contactKind } from './reachability';
import type { Clock } from './scheduler';

export interface HungRequestsDeps {
	/** In flight longer than this (ms), a request is suspect: the base of the bar. */
	hangAfterMs: number;
	/** A request became suspect: look whether the service answers (the prober's `check`). */
	onSuspect(): void;
	clock: Clock;
}

/** How many answered requests' durations the bar remembers. */
const REMEMBERED = 20;
/** After this long with no abort, the bar is back to its base. */
const QUIET_MS = 60_000;

interface InFlight {
	startedAt: number;
	abort(): void;
	timer: unknown;
}

export class HungRequests {
	readonly #deps: HungRequestsDeps;
	readonly #inFlight = new Set<InFlight>();
	readonly #durations: number[] = [];
	#penaltyMs = 0;
	#lastAbortAt = -Infinity;
	/** Requests aborted as lost, for tests and the logs. */
	aborted = 0;

	constructor(deps: HungRequestsDeps) {
		this.#deps = deps;
	}

	/** In flight longer than this (ms), a request is suspect now. */
	get barMs(): number {
		const slowest = this.#durations.length > 0 ? Math.max(...this.#durations) : 0;
		return Math.max(this.#deps.hangAfterMs, 3 * slowest, this.#penaltyNow());
	}

	/** The bar after aborts: doubled per abort, none after a quiet minute. */
	#penaltyNow(): number {
		return this.#deps.clock.now() - this.#lastAbortAt > QUIET_MS ? 0 : this.#penaltyMs;
	}

	/** `fetch` with every request watched. */
	wrap(fetch: FetchLike): FetchLike {
		return async (input, init) => {
			const { clock } = this.#deps;
			const controller = new AbortController();
			const signal = init.signal
				? AbortSignal.any([init.signal, controller.signal])
				: controller.signal;
			const request: InFlight = {
				startedAt: clock.now(),
				abort: () => controller.abort(new Error('no answer while the service answered others')),
				timer: clock.setTimeout(() => this.#deps.onSuspect(), this.barMs)
			};
			this.#inFlight.add(request);
			try {
				return await fetch(input, { ...init, signal });
			} finally {
				this.#inFlight.delete(request);
				clock.clearTimeout(request.timer);
			}
		};
	}

	/**
	 * What a request learnt (the clients' observer, through the reachability's tap): an answer
	 * makes suspects sent before it lost; an answer's duration is remembered for the bar.
	 */
	readonly observe = (contact: Contact): void => {
		const kind = contactKind(contact);
		if (kind !== 'answered' && kind !== 'busy') return;
		this.#durations.push(contact.at - contact.startedAt);
		if (this.#durations.length > REMEMBERED) this.#durations.shift();
		const { clock } = this.#deps;
		const bar = this.barMs;
		const now = clock.now();
		let aborted = false;
		for (const request of this.#inFlight) {
			if (request.startedAt >= contact.startedAt || now - request.startedAt < bar) continue;
			this.#inFlight.delete(request);
			clock.clearTimeout(request.timer);
			request.abort();
			this.aborted++;
			aborted = true;
		}
		if (aborted) {
			this.#penaltyMs = Math.max(this.#deps.hangAfterMs, this.#penaltyNow()) * 2;
			this.#lastAbortAt = now;
		}
	};
}
