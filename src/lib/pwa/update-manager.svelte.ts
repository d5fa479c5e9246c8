import { Workbox } from 'workbox-window';

/**
 * Registers the service worker through workbox-window and tells the UI when a new version is
 * waiting. The new worker takes over only when the steward taps "Reload": unsent edits live in
 * IndexedDB, so nothing is lost across the switch, and nothing switches under a steward's thumb.
 */
export class UpdateManager {
	updateWaiting = $state(false);
	registered = $state(false);
	#wb: Workbox | undefined;

	start(url = '/service-worker.js'): void {
		if (this.#wb || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
		const wb = new Workbox(url);
		this.#wb = wb;
		wb.addEventListener('waiting', () => {
			this.updateWaiting = true;
		});
		wb.addEventListener('controlling', (event) => {
			// Reload only for an update the steward accepted, not for the very first install.
			if (event.isUpdate) window.location.reload();
		});
		wb.register()
			.then((registration) => {
				this.registered = registration !== undefined;
			})
			.catch(() => {
				this.registered = false;
			});
	}

	applyUpdate(): void {
		this.#wb?.messageSkipWaiting();
	}
}

export const updateManager = new UpdateManager();
