/**
 * The secretary's view of mirror mode's publishing while a screen shows it: the status read every
 * few seconds (the Devices screen's line, the Upstream screen), and the decisions, after which the
 * status the service answers is shown at once. The requests are sync/upstream's.
 */
import type { HalClient } from '$lib/api/hal-client';
import { serviceClient } from '../browser/service-client';
import {
	decideConflict,
	findUpstream,
	readUpstream,
	sendAgain,
	type UpstreamChoice,
	type UpstreamEntry,
	type UpstreamStatus
} from '$lib/sync/upstream';
import { errorText } from '../view/error-text';

/** How often an open screen reads the status again. */
export const UPSTREAM_REFRESH_MS = 5_000;
/**
 * After a decision, the status is read again this soon: the laptop publishes what was decided at
 * once (a fraction of a second), and the screen should not list it as waiting for 5 s more.
 */
export const AFTER_DECISION_MS = 700;

export class UpstreamWatch {
	/** The status's address (found by links): undefined until found, null when none is linked. */
	href = $state<string | null | undefined>(undefined);
	status = $state<UpstreamStatus | null>(null);
	/** When `status` was read (this device's clock): ages are counted to it. */
	readAt = $state(Date.now());
	/** Why the last read or decision failed, in words; null after one that worked. */
	error = $state<string | null>(null);
	/** A decision is on its way: its buttons wait. */
	busy = $state(false);
	#reading: Promise<void> | null = null;

	/** Reads now and every UPSTREAM_REFRESH_MS; returns the stop (an $effect's cleanup). */
	start(): () => void {
		void this.refresh();
		// Not while the app is out of sight (a phone in a pocket): at once when it is back.
		const tick = (): void => {
			if (document.visibilityState !== 'hidden') void this.refresh();
		};
		const timer = setInterval(tick, UPSTREAM_REFRESH_MS);
		document.addEventListener('visibilitychange', tick);
		return () => {
			clearInterval(timer);
			document.removeEventListener('visibilitychange', tick);
		};
	}

	/** One read at a time: a slow answer is not asked for again meanwhile. */
	refresh(): Promise<void> {
		return (this.#reading ??= this.#read().finally(() => (this.#reading = null)));
	}

	async #read(): Promise<void> {
		try {
			const client = await serviceClient();
			if (this.href === undefined) this.href = await findUpstream(client);
			if (this.href) this.#show(await readUpstream(client, this.href));
			this.error = null;
		} catch (e) {
			this.error = errorText(e);
		}
	}

	#show(status: UpstreamStatus): void {
		this.status = status;
		this.readAt = Date.now();
	}

	/** Keep ours / Keep theirs; true when the service took the decision. */
	decide(entry: UpstreamEntry, choice: UpstreamChoice): Promise<boolean> {
		return this.#act((client) => decideConflict(client, entry, choice));
	}

	sendAgain(entry: UpstreamEntry): Promise<boolean> {
		return this.#act((client) => sendAgain(client, entry));
	}

	async #act(work: (client: HalClient) => Promise<UpstreamStatus>): Promise<boolean> {
		if (this.busy) return false;
		this.busy = true;
		try {
			this.#show(await work(await serviceClient()));
			this.error = null;
			setTimeout(() => void this.refresh(), AFTER_DECISION_MS);
			return true;
		} catch (e) {
			const why = errorText(e);
			// Decided elsewhere meanwhile, say: show what holds now, and why nothing was done.
			await this.refresh();
			this.error = why;
			return false;
		} finally {
			this.busy = false;
		}
	}
}
