/**
 * Asks the results service whether it is back, while something needs it and it cannot be reached
 * or asks for time: one cheap request (a conditional GET of the entry point) at the wait that
 * ./reachability sets for background requests (about every 5 s while it cannot be reached, a
 * growing backoff while it answers 5xx or 429). Nothing runs while nothing waits, while the device
 * is offline (its `online` event comes instead), or while the service answers.
 *
 * The probe's outcome reaches the reachability through the client's observer like any request's;
 * whoever waits for the service (the replay scheduler, the live updates) listens to that.
 *
 * Pure apart from its dependencies, which the page provides ($lib/ui/state/connectivity.svelte) and tests fake.
 */
import type { Clock } from './scheduler';
import type { Reachability } from './reachability';

export interface ProberDeps {
	reachability: Reachability;
	/** One request to the service; its outcome is observed by the reachability. Never throws. */
	probe(): Promise<void>;
	clock: Clock;
	random: () => number;
}

export class Prober {
	readonly #deps: ProberDeps;
	#wanted = false;
	#timer: unknown = undefined;
	#running = false;
	#lastProbeAt = -Infinity;
	#stopped = false;
	readonly #unsubscribe: () => void;
	/** Probes sent, for tests and the bench. */
	count = 0;

	constructor(deps: ProberDeps) {
		this.#deps = deps;
		this.#unsubscribe = deps.reachability.subscribe(() => this.#arm());
	}

	/** Whether something needs the service now: results waiting, a screen showing live data. */
	setWanted(wanted: boolean): void {
		if (wanted === this.#wanted) return;
		this.#wanted = wanted;
		this.#arm();
	}

	/**
	 * Probe now if the service is not known to answer and the last probe is not too recent (the app
	 * started, or came back into view): the steward sees the truth at once, not after a wait.
	 */
	now(): void {
		if (this.#stopped || this.#running || this.#deps.reachability.healthy) return;
		if (this.#deps.reachability.view.state === 'offline') return;
		const { clock } = this.#deps;
		if (clock.now() - this.#lastProbeAt < this.#minGapMs()) return;
		this.#disarm();
		void this.#run();
	}

	/**
	 * A request has hung (./hung-requests): probe now even while the service is taken to answer,
	 * since that request's link may be dead. The probe's answer tells, and revives what hung.
	 */
	check(): void {
		if (this.#stopped || this.#running) return;
		if (this.#deps.reachability.view.state === 'offline') return;
		const { clock } = this.#deps;
		if (clock.now() - this.#lastProbeAt < this.#minGapMs()) return;
		this.#disarm();
		void this.#run();
	}

	stop(): void {
		this.#stopped = true;
		this.#disarm();
		this.#unsubscribe();
	}

	/** The least time between two probes: the shortest wait background requests may get. */
	#minGapMs(): number {
		return this.#deps.reachability.backgroundDelayMs(() => 0);
	}

	#arm(): void {
		const { reachability, clock, random } = this.#deps;
		const idle =
			this.#stopped ||
			!this.#wanted ||
			reachability.healthy ||
			reachability.view.state === 'offline';
		if (idle) {
			this.#disarm();
			return;
		}
		if (this.#running || this.#timer !== undefined) return;
		const wait = reachability.backgroundDelayMs(random);
		this.#timer = clock.setTimeout(
			() => {
				this.#timer = undefined;
				void this.#run();
			},
			Math.max(wait, this.#lastProbeAt + this.#minGapMs() - clock.now(), 0)
		);
	}

	async #run(): Promise<void> {
		if (this.#running) return;
		this.#running = true;
		this.#lastProbeAt = this.#deps.clock.now();
		this.count++;
		try {
			await this.#deps.probe();
		} catch {
			// observed by the reachability through the client
		} finally {
			this.#running = false;
		}
		this.#arm();
	}

	#disarm(): void {
		if (this.#timer === undefined) return;
		this.#deps.clock.clearTimeout(this.#timer);
		this.#timer = undefined;
	}
}
