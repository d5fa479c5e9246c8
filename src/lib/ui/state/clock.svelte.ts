/**
 * A coarse clock for "updated 4 min ago": ticks every 30 s while something shows an age, and at
 * once when the page is shown again (a phone taken out of a pocket, its screen back on), where
 * the browser held the page's timers meanwhile.
 */
class Clock {
	now = $state(Date.now());
	#timer: ReturnType<typeof setInterval> | undefined;
	#users = 0;

	start(): () => void {
		this.now = Date.now();
		this.#users++;
		if (this.#timer === undefined) {
			this.#timer = setInterval(() => (this.now = Date.now()), 30_000);
			document.addEventListener('visibilitychange', this.#shown);
		}
		return () => {
			if (--this.#users > 0) return;
			clearInterval(this.#timer);
			this.#timer = undefined;
			document.removeEventListener('visibilitychange', this.#shown);
		};
	}

	#shown = () => {
		if (document.visibilityState === 'visible') this.now = Date.now();
	};
}

export const clock = new Clock();
