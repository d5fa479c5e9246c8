import { observe } from '$lib/db/observe';

/**
 * A live read of the device's data ($lib/db/observe) as Svelte 5 state: `query` runs again when
 * the tables it read change;
 * `deps` names the reactive values it depends on (route params, filters): when they change, the
 * query is made anew and, until its first answer, `current` is `initial` and `loaded` false.
 * Create it during component initialisation (it uses $effect).
 */
export class Live<T, D = void> {
	// Raw: rows go back to IndexedDB as they are, and deep proxies of big lists cost time.
	current = $state.raw() as T;
	loaded = $state(false);
	error = $state<unknown>(null);

	constructor(deps: () => D, query: (deps: D) => Promise<T>, initial: T) {
		this.current = initial;
		$effect(() => {
			const values = deps();
			// New deps: nothing of the previous answer may show while the new one loads (a dog's
			// result on the next dog's screen).
			this.current = initial;
			this.loaded = false;
			this.error = null;
			return observe(() => query(values), {
				next: (value) => {
					this.current = value;
					this.loaded = true;
					this.error = null;
				},
				error: (error) => {
					this.error = error;
					this.loaded = true;
				}
			});
		});
	}
}
