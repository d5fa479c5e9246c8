/**
 * When to replay the outbox: the one owner of that decision on a page. Whatever might warrant a
 * replay is an input (`trigger`): the app starting, the network coming back, the results service
 * answering again ($lib/sync/reachability), the app coming into view, a save, the steward's
 * "Sync now", and its own timer, set for the moment the earliest waiting entry is due
 * (`outboxChanged`). A change of the outbox that makes an entry due (a save, "Send again", a
 * sign-in) is itself the announcement: nobody calls the scheduler after writing an edit. Started,
 * it hears the outbox itself (`watchOutbox`: on the phone every commit of the outbox, through
 * ./outbox-watch; the event laptop's mirror, whose outbox is a table of its own, reports its own
 * commits). A replay
 * sends only entries that are due, so no trigger makes an entry go before its backoff ends, with
 * two exceptions:
 * - "Sync now": the steward asks for it, so everything waiting goes at once;
 * - the network coming back, or the service answering again after it could not be reached (the
 *   phone kept its Wi-Fi while the ring laptop restarted: the browser fires nothing then): entries
 *   that failed for want of a connection go at once (their wait was for the service, which is
 *   back); entries the service answered with an error (503, 429) keep theirs, so a struggling
 *   service is not hit by every phone that walks back into signal.
 * While the browser says it is offline, only "Sync now" tries. Background Sync (the browser
 * replays when the network is back, even with the app closed) is registered only when the page is
 * hidden with something unsent: Chromium fires a registration made online at once, so registering
 * on every save would replay on every save.
 *
 * Pure apart from its dependencies, which the page provides ($lib/ui/browser/sync-trigger) and
 * tests fake.
 */

export type Trigger = 'start' | 'online' | 'reachable' | 'visible' | 'save' | 'timer' | 'sync-now';

export interface Clock {
	now(): number;
	setTimeout(fn: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export interface SchedulerDeps {
	/** Sends what is due now (asks the worker, or replays in the page). */
	replay(): Promise<void>;
	/** Makes waiting entries due at once: all of them, or those that failed for want of a network. */
	makeDue(which: 'all' | 'unreachable'): Promise<void>;
	registerBackgroundSync(): Promise<void>;
	/** False only when the browser knows it has no network. */
	online(): boolean;
	/** Hears the outbox: `next` with its state on each change until the returned stop. */
	watchOutbox?(next: (state: OutboxState) => void): () => void;
	/** A replay that could not even start (storage, a bug): reported, never swallowed. */
	onError(error: unknown): void;
	clock: Clock;
}

/** The outbox as the scheduler needs it. */
export interface OutboxState {
	/** Entries pending or being sent. */
	unsent: number;
	/** When the earliest pending entry is due; null when none is pending. */
	dueAt: number | null;
}

/** The timer never fires sooner than this after it is set: no busy loop on a past due time. */
export const MIN_WAKE_MS = 250;
/** When a wake-up found the outbox unchanged (the replay did not run), it looks again after this. */
export const RECHECK_MS = 20_000;

export class ReplayScheduler {
	readonly #deps: SchedulerDeps;
	#state: OutboxState | null = null;
	#timer: unknown = undefined;
	#stopped = false;
	#unwatch: (() => void) | undefined;
	/** The network or the service came back before the outbox was first read. */
	#reachableBeforeRead = false;
	/** When the last replay was asked for: entries due before it were offered to it. */
	#replayStartedAt = -Infinity;

	constructor(deps: SchedulerDeps) {
		this.#deps = deps;
	}

	/**
	 * The outbox changed (or was read for the first time): the timer is set for the earliest due
	 * entry; on the first report, whatever a closed or reloaded app left unsent is resumed.
	 */
	outboxChanged(state: OutboxState): void {
		const first = this.#state === null;
		this.#state = state;
		if (first && state.unsent > 0) {
			// The service answered before the outbox was first read: what waited for it goes too.
			void this.trigger(this.#reachableBeforeRead ? 'reachable' : 'start');
			return;
		}
		const { dueAt } = state;
		// A save (or "send again", a sign-in, …) made an entry due that no replay has seen yet: the
		// outbox's change is the one announcement, and the replay starts now. An entry the last
		// replay may have seen waits for the timer, so a replay that could not send it (offline,
		// another tab holding the lock) does not start over and over.
		if (dueAt !== null && dueAt <= this.#deps.clock.now() && dueAt > this.#replayStartedAt) {
			this.#disarm();
			void this.trigger('save');
			return;
		}
		this.#arm(dueAt);
	}

	/** Something happened that may warrant a replay; see the module's comment for what each does. */
	async trigger(trigger: Trigger): Promise<void> {
		if (this.#stopped) return;
		try {
			await this.#replayFor(trigger);
		} catch (error) {
			this.#deps.onError(error);
		}
		if (trigger === 'timer' || trigger === 'save') this.#recheck();
	}

	async #replayFor(trigger: Trigger): Promise<void> {
		const { replay, makeDue, online } = this.#deps;
		if (trigger === 'sync-now') await makeDue('all');
		else if (!online()) return;
		else if (trigger === 'online' || trigger === 'reachable') {
			// Nothing waits: nothing to make due or send (the outbox's first report says, when it
			// has not come yet).
			if (this.#state === null) this.#reachableBeforeRead = true;
			if ((this.#state?.unsent ?? 0) === 0) return;
			await makeDue('unreachable');
		} else if ((trigger === 'start' || trigger === 'visible') && (this.#state?.unsent ?? 0) === 0) {
			return;
		}
		this.#replayStartedAt = this.#deps.clock.now();
		await replay();
	}

	/** Starts hearing the outbox (its deps' `watchOutbox`): from now on each change of it is news. */
	start(): void {
		this.#stopped = false;
		this.#unwatch ??= this.#deps.watchOutbox?.((state) => this.outboxChanged(state));
	}

	/** The page is hidden and may be closed: the browser is asked to replay when it can. */
	hidden(): void {
		if (this.#stopped || (this.#state?.unsent ?? 0) === 0) return;
		this.#deps.registerBackgroundSync().catch((error: unknown) => this.#deps.onError(error));
	}

	stop(): void {
		this.#stopped = true;
		this.#unwatch?.();
		this.#unwatch = undefined;
		this.#disarm();
	}

	#arm(dueAt: number | null): void {
		this.#disarm();
		if (dueAt === null || this.#stopped) return;
		const { clock } = this.#deps;
		const wait = Math.max(MIN_WAKE_MS, dueAt - clock.now());
		this.#timer = clock.setTimeout(() => {
			this.#timer = undefined;
			void this.trigger('timer');
		}, wait);
	}

	/**
	 * After a wake-up: a replay that changes an entry re-sets the timer (`outboxChanged`); one that
	 * did not run (offline, a replay of another tab holding on) leaves an entry due in the past,
	 * looked at again later rather than at once.
	 */
	#recheck(): void {
		const dueAt = this.#state?.dueAt ?? null;
		if (this.#timer !== undefined || dueAt === null) return;
		const { clock } = this.#deps;
		if (dueAt > clock.now()) this.#arm(dueAt);
		else this.#arm(clock.now() + RECHECK_MS);
	}

	#disarm(): void {
		if (this.#timer === undefined) return;
		this.#deps.clock.clearTimeout(this.#timer);
		this.#timer = undefined;
	}
}
