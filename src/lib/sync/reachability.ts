/**
 * Whether the results service can be reached: the one owner of that knowledge, and of how often a
 * background request (a probe, a push stream's reconnection, a poll) may go while it cannot, or
 * while it asks for time. No DOM: the page and the service worker each keep one, fed by every
 * request they make (`observe`, from the HAL client and the push streams).
 *
 * The browser's `online`/`offline` events say only whether the device has a network. A phone at a
 * ring keeps the event Wi-Fi while the laptop serving the results sleeps or restarts; the browser
 * then fires nothing, and only the requests themselves can tell.
 *
 *                 setOnline(false)                       a failure: no answer, a time-out,
 *   ┌─────────┐ ◄────────────────── any ──────────────►  a captive portal's page, a gateway's
 *   │ offline │                                          502/504            ┌─────────────┐
 *   └─────────┘ ── setOnline(true) ──► unknown ───────────────────────────► │ unreachable │
 *                                         │                                 └─────────────┘
 *                                         │ an answer of the service            │ an answer
 *                                         ▼                                     ▼
 *                                   ┌───────────┐ ◄─────────────────────────────┘
 *                                   │ reachable │   busy while its last answers were 5xx/429
 *                                   └───────────┘
 *
 * A request's outcome is taken only if it was sent after the last outcome taken was known: a slow
 * request that fails after a newer one was answered says nothing of the service now.
 */
// Relative: the service's mirror (server/mirror) reads contacts with the same rules.
import type { Contact, ContactObserver } from '../api/contact';
import type { ApiErrorCode } from '../api/errors';
import { MAX_RETRY_AFTER_MS } from './backoff';

export type ReachState = 'offline' | 'unknown' | 'unreachable' | 'reachable';

export interface ReachView {
	state: ReachState;
	/** Reachable, but its last answers were 5xx or 429: it asked for time. */
	busy: boolean;
	/** When the service last answered (any status); null when never known. */
	lastContactAt: number | null;
}

/** Mean wait between background requests while the service cannot be reached. */
export const PROBE_MS = 5_000;
/** The wait is random within ±this share of PROBE_MS, so phones do not probe in step. */
export const PROBE_JITTER = 0.1;
/** First ceiling of the backoff against a busy service (5xx, 429); doubles per answer. */
export const BUSY_BASE_MS = 5_000;
/** Largest ceiling of that backoff. */
export const BUSY_MAX_MS = 60_000;

/** What an outcome says of the service. */
export type ContactKind = 'answered' | 'busy' | 'unreachable';

/**
 * - unreachable: no answer (network, time-out), a redirect (a captive portal), a page that is not
 *   the service's, or a gateway saying it could not reach the service (502, 504; 511 a portal);
 * - busy: the service answered 5xx or 429 (it is there, and asks for time);
 * - answered: any other answer, refusals (4xx) included.
 * Null for what says nothing of the service (a request the app cancelled, a bad address).
 */
export function contactKind(contact: { code?: ApiErrorCode; status?: number }): ContactKind | null {
	const { code, status } = contact;
	if (code === 'aborted' || code === 'bad-address') return null;
	if (
		code === 'network' ||
		code === 'timeout' ||
		code === 'foreign-origin' ||
		code === 'not-json'
	) {
		return 'unreachable';
	}
	if (status === undefined) return code === undefined ? null : 'answered';
	if (status === 502 || status === 504 || status === 511) return 'unreachable';
	if (status === 429 || status >= 500) return 'busy';
	return 'answered';
}

/**
 * Whether a stored error (an outbox entry's `lastError`) means the request found no service at
 * all: such an entry waited only for the service to be reachable again, and goes as soon as it is.
 */
export function isUnreachableError(
	error: { code?: string; status?: number } | null | undefined
): boolean {
	if (!error) return false;
	return contactKind(error as { code?: ApiErrorCode; status?: number }) === 'unreachable';
}

/**
 * An entry that waits out a backoff only because its last attempt found no service: it goes as
 * soon as the service answers again (the phone's outbox and the laptop's mirror alike, through
 * the entry's own `retried`).
 */
export function waitsOnlyForService(
	entry: { status: string; nextAttemptAt: number; lastError?: unknown },
	now: number
): boolean {
	return (
		entry.status === 'pending' &&
		entry.nextAttemptAt > now &&
		isUnreachableError(entry.lastError as { code?: string; status?: number } | null)
	);
}

export type ReachListener = (view: ReachView, previous: ReachView) => void;

export class Reachability {
	#state: ReachState;
	#busyAnswers = 0;
	#retryAfterMs: number | undefined;
	#lastContactAt: number | null;
	/** When the last outcome taken was known: older requests' outcomes are ignored. */
	#lastAt = -Infinity;
	readonly #listeners = new Set<ReachListener>();
	readonly #taps = new Set<ContactObserver>();

	/** The mean wait between background requests while the service cannot be reached. */
	readonly #probeMs: number;

	/**
	 * `probeMs`: PROBE_MS unless the context needs another (the event laptop's mirror probes its
	 * upstream every 2 s: one client, not a field of phones).
	 */
	constructor(options: { online?: boolean; lastContactAt?: number | null; probeMs?: number } = {}) {
		this.#state = options.online === false ? 'offline' : 'unknown';
		this.#lastContactAt = options.lastContactAt ?? null;
		this.#probeMs = options.probeMs ?? PROBE_MS;
	}

	get view(): ReachView {
		return { state: this.#state, busy: this.#busyAnswers > 0, lastContactAt: this.#lastContactAt };
	}

	/** The service answers and does not ask for time: background requests go as usual. */
	get healthy(): boolean {
		return this.#state === 'reachable' && this.#busyAnswers === 0;
	}

	/** The browser's own idea of the device's network (its online and offline events). */
	setOnline(online: boolean): void {
		if (!online) this.#set('offline', this.#busyAnswers);
		else if (this.#state === 'offline') this.#set('unknown', this.#busyAnswers);
	}

	/** When the service last answered, as kept from an earlier visit; a later answer wins. */
	recall(lastContactAt: number): void {
		if (this.#lastContactAt === null || this.#lastContactAt < lastContactAt) {
			this.#lastContactAt = lastContactAt;
		}
	}

	/** What a request learnt; bound, so it can be handed to a client as its observer. */
	readonly observe: ContactObserver = (contact: Contact): void => {
		const kind = contactKind(contact);
		if (kind === null || contact.startedAt < this.#lastAt) return;
		this.#lastAt = contact.at;
		if (kind === 'unreachable') {
			this.#retryAfterMs = undefined;
			this.#set(this.#state === 'offline' ? 'offline' : 'unreachable', 0);
		} else {
			this.#lastContactAt = contact.at;
			this.#retryAfterMs = kind === 'busy' ? contact.retryAfterMs : undefined;
			this.#set('reachable', kind === 'busy' ? this.#busyAnswers + 1 : 0);
		}
		for (const tap of this.#taps) guarded(() => tap(contact));
	};

	/**
	 * How long a background request should wait before it goes: nothing while the service answers;
	 * about PROBE_MS or its `probeMs` (random within ±PROBE_JITTER) while it cannot be reached or the device is
	 * offline; while it is busy, a backoff that doubles from BUSY_BASE_MS to BUSY_MAX_MS per busy
	 * answer (random in its upper half, so the average wait is ¾ of the ceiling), never shorter
	 * than its Retry-After. `random` is in [0, 1), like Math.random.
	 */
	backgroundDelayMs(random: () => number): number {
		const r = clampUnit(random());
		if (this.#state !== 'reachable')
			return Math.round(this.#probeMs * (1 - PROBE_JITTER + 2 * PROBE_JITTER * r));
		if (this.#busyAnswers === 0) return 0;
		const ceiling = Math.min(BUSY_MAX_MS, BUSY_BASE_MS * 2 ** Math.min(this.#busyAnswers - 1, 20));
		const delay = Math.round(ceiling * (0.5 + 0.5 * r));
		const asked = Math.min(this.#retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
		return Math.max(delay, asked);
	}

	subscribe(listener: ReachListener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** Every outcome taken, as it is taken (the worker relays them to the pages). */
	onContact(tap: ContactObserver): () => void {
		this.#taps.add(tap);
		return () => this.#taps.delete(tap);
	}

	#set(state: ReachState, busyAnswers: number): void {
		const previous = this.view;
		this.#state = state;
		this.#busyAnswers = busyAnswers;
		const view = this.view;
		if (view.state === previous.state && view.busy === previous.busy) return;
		for (const listener of this.#listeners) guarded(() => listener(view, previous));
	}
}

/** A listener's error is its own: reported, never breaking the request that was observed. */
function guarded(fn: () => void): void {
	try {
		fn();
	} catch (error) {
		console.error(error);
	}
}

function clampUnit(r: number): number {
	return Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0.5;
}

/**
 * This context's reachability (the page's, or the service worker's): what every request made by
 * $lib/sync's clients and streams reports to.
 */
export const reachability = new Reachability();
