import { competitionsWithUnsent } from '$lib/db/check-in-store';
import { sendCheckIns } from '$lib/sync/check-in';
import { reachability } from '$lib/sync/reachability';
import { serviceClient } from '../browser/service-client';

/** While marks wait, how often they are tried again. */
export const CHECK_IN_RETRY_MS = 15_000;

/**
 * Sends the gate marks this device took ($lib/sync/check-in), from whatever screen is open: at
 * once after a mark, when the network or the service comes back, and every 15 s while marks wait
 * (one request a try, and a failed try ends the round). Started with the page; a mark taken on the
 * gate screen goes out even when the steward has moved on to capture.
 */
class CheckInSender {
	/** Marks waiting, as last counted (the gate screen shows its own). */
	waiting = $state(0);
	#running = false;
	#again = false;

	start(): () => void {
		const run = () => void this.run();
		window.addEventListener('online', run);
		const stopReach = reachability.subscribe(run);
		const timer = setInterval(run, CHECK_IN_RETRY_MS);
		run();
		return () => {
			window.removeEventListener('online', run);
			stopReach();
			clearInterval(timer);
		};
	}

	/** One round: every competition's waiting marks, until one fails to go. */
	async run(): Promise<void> {
		if (this.#running) {
			this.#again = true;
			return;
		}
		this.#running = true;
		try {
			const competitions = await competitionsWithUnsent();
			let left = 0;
			if (competitions.length > 0 && navigator.onLine) {
				const client = await serviceClient();
				for (const id of competitions) left += await sendCheckIns(client, id);
			}
			this.waiting = left;
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
}

export const checkInSender = new CheckInSender();
