/**
 * Sends the gate marks this device took (./check-in), from whatever screen is open: at once after
 * a mark, when the network or the service comes back, and every 15 s while marks wait (one request
 * a try, and a failed try ends the round). Started with the page, so a mark taken on the gate
 * screen goes out even when the steward has moved on to capture. Like the replay scheduler, it
 * decides when; the page gives it its events, its client and its clock
 * ($lib/ui/browser/check-in-trigger) and tests fake them.
 */
import type { HalClient } from '$lib/api/hal-client';
import { competitionsWithUnsent, storedCheckIns } from '$lib/db/check-in-store';
import { sendCheckIns } from './check-in';

/** While marks wait, how often they are tried again. */
export const CHECK_IN_RETRY_MS = 15_000;

export interface CheckInSenderDeps {
	/** The client of the configured service (asked for only when marks wait). */
	client(): Promise<HalClient>;
	/** False only when the browser knows it has no network. */
	online(): boolean;
	/** Calls `wake` when the network or the service comes back; returns the stop. */
	onWake(wake: () => void): () => void;
	/** How many marks still wait, after each round. */
	onWaiting(count: number): void;
	clock: { setInterval(fn: () => void, ms: number): unknown; clearInterval(handle: unknown): void };
}

export class CheckInSender {
	readonly #deps: CheckInSenderDeps;
	#running = false;
	#again = false;

	constructor(deps: CheckInSenderDeps) {
		this.#deps = deps;
	}

	start(): () => void {
		const { clock, onWake } = this.#deps;
		const run = () => void this.run();
		const stopWake = onWake(run);
		const timer = clock.setInterval(run, CHECK_IN_RETRY_MS);
		run();
		return () => {
			stopWake();
			clock.clearInterval(timer);
		};
	}

	/** One round: every competition's waiting marks, until one fails to go. */
	async run(): Promise<void> {
		if (this.#running) {
			// A mark taken during a round goes in the next one, at once.
			this.#again = true;
			return;
		}
		this.#running = true;
		try {
			const competitions = await competitionsWithUnsent();
			let left = 0;
			if (competitions.length > 0 && this.#deps.online()) {
				const client = await this.#deps.client();
				for (const id of competitions) left += await sendCheckIns(client, id);
			} else {
				// Without a network nothing is tried, and every mark still waits.
				for (const id of competitions) left += await this.#waitingIn(id);
			}
			this.#deps.onWaiting(left);
		} catch {
			// Kept on the phone: the next round tries again.
		} finally {
			this.#running = false;
			if (this.#again) {
				this.#again = false;
				void this.run();
			}
		}
	}

	async #waitingIn(competitionId: number): Promise<number> {
		return [...(await storedCheckIns(competitionId)).values()].filter((m) => m.unsent && !m.refused)
			.length;
	}
}
