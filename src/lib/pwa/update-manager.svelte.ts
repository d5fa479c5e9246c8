import { Workbox } from 'workbox-window';
import type { ToWorker } from '$lib/sync/messages';

/**
 * Registers the service worker through workbox-window and tells the UI when a new version is
 * waiting. The new worker takes over only when the steward taps "Reload": unsent edits live in
 * IndexedDB, so nothing is lost across the switch, and nothing switches under a steward's thumb.
 */
/**
 * How long "Updating…" waits for the new worker before the page says it has not come and offers
 * to go on with this version (issue 31): a steward is never left at a screen that cannot record.
 */
export const UPDATE_WAIT_MS = 15_000;
/** How often a tapped Reload checks that the switch is under way. */
const NUDGE_MS = 3_000;

export class UpdateManager {
	updateWaiting = $state(false);
	/** The steward tapped "Reload": the new worker is taking over, then the page reloads. */
	updating = $state(false);
	/** Tapped, and no switch within UPDATE_WAIT_MS: said, with the way on (`goOn`). */
	stalled = $state(false);
	registered = $state(false);
	/**
	 * The page is under a worker: the app itself opens without a network (its code was kept when
	 * the worker installed, and the worker answers navigations). On a first visit that comes a few
	 * seconds after the page opened; until then nothing but this page works offline.
	 */
	controlled = $state(false);
	/** No worker could be registered (blocked, refused): the app itself is not kept here. */
	failed = $state(false);
	#wb: Workbox | undefined;
	#giveUp: ReturnType<typeof setTimeout> | undefined;

	start(url = '/service-worker.js'): void {
		if (this.#wb || typeof navigator === 'undefined') return;
		if (!('serviceWorker' in navigator)) {
			// A browser without workers: the app itself cannot be kept here.
			this.failed = true;
			return;
		}
		const wb = new Workbox(url);
		this.#wb = wb;
		const control = () => (this.controlled = navigator.serviceWorker.controller !== null);
		control();
		navigator.serviceWorker.addEventListener('controllerchange', control);
		wb.addEventListener('waiting', () => {
			this.updateWaiting = true;
		});
		// The first worker failed to install (and none controls the page): the app is not kept.
		wb.addEventListener('redundant', () => {
			if (!navigator.serviceWorker.controller) this.failed = true;
		});
		wb.addEventListener('controlling', (event) => {
			// Reload for an update: one the steward accepted in this page, or (isUpdate: the page was
			// opened under a worker) one accepted in another tab. Not for the very first install, when
			// the worker claims the page. isUpdate alone is not enough: it stays false for the whole
			// life of a page first opened before any worker (the steward's first visit, never
			// reloaded since), which would then never take an update.
			if (this.updating || event.isUpdate) window.location.reload();
		});
		wb.register()
			.then((registration) => {
				this.registered = registration !== undefined;
				this.failed = registration === undefined;
				// A page loaded past the worker (a hard reload) is not under it until it is claimed.
				if (registration?.active && !navigator.serviceWorker.controller) {
					registration.active.postMessage({ type: 'CLAIM' } satisfies ToWorker);
				}
			})
			.catch(() => {
				this.registered = false;
				this.failed = true;
			});
	}

	applyUpdate(): void {
		this.updating = true;
		this.stalled = false;
		clearTimeout(this.#giveUp);
		this.#giveUp = setTimeout(() => {
			if (this.updating) this.stalled = true;
		}, UPDATE_WAIT_MS);
		// The worker in charge stops replaying first (it would hold the switch until its replay
		// ended); the new one resumes the replay when it starts. This is the last word to the old
		// worker: anything sent to it after the tap (a message, a sync, a request through its fetch
		// handler) starts it again, and the waiting worker activates only once it is idle and
		// stopped. The page's replays wait meanwhile (sync-trigger), the API bypasses it (static
		// routes, service-worker.ts).
		navigator.serviceWorker.controller?.postMessage({ type: 'RETIRE' } satisfies ToWorker);
		this.#wb?.messageSkipWaiting();
		this.#nudge();
	}

	/**
	 * The switch did not come: go on with this version. The old worker replays again at once, the
	 * page's replays resume, and the banner offers Reload again. Nothing was lost either way: the
	 * results wait in IndexedDB.
	 */
	goOn(): void {
		clearTimeout(this.#giveUp);
		this.updating = false;
		this.stalled = false;
		navigator.serviceWorker.controller?.postMessage({ type: 'RESUME' } satisfies ToWorker);
	}

	/**
	 * Until the page reloads: while a worker still waits, it is told again to take over (only it:
	 * never the retiring one, see applyUpdate); once the new worker is active but the page has not
	 * been told (no `controlling`), the page reloads by itself.
	 */
	#nudge(): void {
		setTimeout(() => {
			if (!this.updating) return;
			void navigator.serviceWorker.getRegistration().then((registration) => {
				if (!this.updating || !registration) return;
				const controller = navigator.serviceWorker.controller;
				if (registration.waiting) {
					registration.waiting.postMessage({ type: 'SKIP_WAITING' } satisfies ToWorker);
				} else if (registration.active && registration.active !== controller) {
					window.location.reload();
					return;
				}
				this.#nudge();
			});
		}, NUDGE_MS);
	}
}

export const updateManager = new UpdateManager();
