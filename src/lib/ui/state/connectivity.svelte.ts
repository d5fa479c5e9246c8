/**
 * Whether this phone can reach the results service, as reactive state for every screen, and the
 * page's wiring of $lib/sync/reachability: the browser's online and offline events, what the
 * service worker's requests found (relayed by it), and the probe that asks whether the service is
 * back while something needs it (results waiting, a screen showing live data). When the service
 * answers again after it could not be reached, the replay scheduler is told at once.
 */
import { isFromWorker } from '$lib/sync/messages';
import { Prober } from '$lib/sync/prober';
import { reachability, type ReachState, type ReachView } from '$lib/sync/reachability';
import { getSetting, setSetting } from '$lib/db/settings-store';
import { scheduler } from '../browser/sync-trigger';

/** The last time the service answered, kept for "last 10:42" after a reload. */
const SETTING_LAST_CONTACT = 'lastContactAt';

export class Connectivity {
	/** The browser's idea of the device's network. */
	online = $state(typeof navigator === 'undefined' ? true : navigator.onLine);
	/** Whether the results service answers (see $lib/sync/reachability). */
	state = $state<ReachState>('unknown');
	/** It answers, but asked for time (5xx, 429). */
	busy = $state(false);
	/** When it last answered, as far as this phone knows. */
	lastContactAt = $state<number | null>(null);

	#resultsWaiting = false;
	#watching = false;
	#prober: Prober | null = null;

	/** Results wait to be sent: the probe runs while the service cannot be reached. */
	setResultsWaiting(waiting: boolean): void {
		this.#resultsWaiting = waiting;
		this.#prober?.setWanted(this.#resultsWaiting || this.#watching);
	}

	/** A screen shows live data: the probe runs while the service cannot be reached. */
	setWatching(watching: boolean): void {
		this.#watching = watching;
		this.#prober?.setWanted(this.#resultsWaiting || this.#watching);
	}

	/** Asks the service now, unless it is known to answer (the app came into view). */
	check(): void {
		this.#prober?.now();
	}

	start(): () => void {
		const prober = new Prober({
			reachability,
			// Loaded on first use: the first screen needs no HAL client to show the stored copy.
			probe: async () => (await import('$lib/sync/client')).probeService(location.origin),
			clock: {
				now: () => Date.now(),
				setTimeout: (fn, ms) => setTimeout(fn, ms),
				clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
			},
			random: Math.random
		});
		this.#prober = prober;
		prober.setWanted(this.#resultsWaiting || this.#watching);

		const show = (view: ReachView) => {
			this.state = view.state;
			this.busy = view.busy;
			this.lastContactAt = view.lastContactAt;
		};
		const stopListening = reachability.subscribe((view, previous) => {
			show(view);
			if (view.state === 'reachable' && previous.state !== 'reachable') {
				// Back (or known at last): what waited for it goes now, not at its backoff.
				void scheduler.trigger('reachable');
			}
			if (view.state === 'unreachable' && view.lastContactAt !== null) {
				void setSetting(SETTING_LAST_CONTACT, view.lastContactAt).catch(() => undefined);
			}
		});
		void getSetting<number>(SETTING_LAST_CONTACT)
			.then((at) => {
				if (typeof at !== 'number') return;
				reachability.recall(at);
				this.lastContactAt = reachability.view.lastContactAt;
			})
			.catch(() => undefined);

		const network = () => {
			this.online = navigator.onLine;
			reachability.setOnline(navigator.onLine);
			if (navigator.onLine) prober.now();
		};
		const visible = () => {
			if (document.visibilityState === 'visible') prober.now();
		};
		// What the service worker's replay found, as if the page had asked itself.
		const fromWorker = (event: MessageEvent) => {
			const data: unknown = event.data;
			if (isFromWorker(data) && data.type === 'CONTACT') reachability.observe(data.contact);
		};
		window.addEventListener('online', network);
		window.addEventListener('offline', network);
		document.addEventListener('visibilitychange', visible);
		const worker = 'serviceWorker' in navigator ? navigator.serviceWorker : null;
		worker?.addEventListener('message', fromWorker);
		this.online = navigator.onLine;
		reachability.setOnline(navigator.onLine);
		show(reachability.view);
		// Known at once rather than at the first save: the header tells the truth from the start.
		prober.now();
		return () => {
			window.removeEventListener('online', network);
			window.removeEventListener('offline', network);
			document.removeEventListener('visibilitychange', visible);
			worker?.removeEventListener('message', fromWorker);
			stopListening();
			prober.stop();
			this.#prober = null;
		};
	}
}

export const connectivity = new Connectivity();
