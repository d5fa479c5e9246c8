/** The browser's own idea of the network, kept as reactive state for every screen. */
export class Connectivity {
	online = $state(typeof navigator === 'undefined' ? true : navigator.onLine);

	start(): () => void {
		const update = () => {
			this.online = navigator.onLine;
		};
		window.addEventListener('online', update);
		window.addEventListener('offline', update);
		update();
		return () => {
			window.removeEventListener('online', update);
			window.removeEventListener('offline', update);
		};
	}
}

export const connectivity = new Connectivity();
