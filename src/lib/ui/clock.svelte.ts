/** A coarse clock for "updated 4 min ago": ticks every 30 s while something shows an age. */
class Clock {
	now = $state(Date.now());
	#timer: ReturnType<typeof setInterval> | undefined;

	start(): () => void {
		this.now = Date.now();
		this.#timer ??= setInterval(() => (this.now = Date.now()), 30_000);
		return () => {
			clearInterval(this.#timer);
			this.#timer = undefined;
		};
	}
}

export const clock = new Clock();
