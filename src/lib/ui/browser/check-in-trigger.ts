/**
 * The page's sender of gate marks ($lib/sync/check-in-sender), wired to this page: the browser's
 * `online` event and the service answering again wake it, the configured service is its client,
 * and how many marks wait is the page's to show (the sync bar and the Sync screen; the gate screen
 * counts its own).
 */
import { CheckInSender } from '$lib/sync/check-in-sender';
import { reachability } from '$lib/sync/reachability';
import { serviceClient } from './service-client';

type Listener = (count: number) => void;
let listener: Listener = () => {};

/** How many gate marks wait to be sent, after each try, to `next` (one listener: the page's). */
export function onMarksWaiting(next: Listener): void {
	listener = next;
}

export const checkInSender = new CheckInSender({
	client: serviceClient,
	online: () => navigator.onLine,
	onWake(wake) {
		window.addEventListener('online', wake);
		const stopReach = reachability.subscribe(wake);
		return () => {
			window.removeEventListener('online', wake);
			stopReach();
		};
	},
	onWaiting: (count) => listener(count),
	clock: {
		setInterval: (fn, ms) => setInterval(fn, ms),
		clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>)
	}
});
