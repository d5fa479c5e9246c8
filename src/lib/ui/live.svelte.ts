import { liveQuery } from 'dexie';

/**
 * A Dexie live query as Svelte 5 state. Dexie re-runs `query` when the tables it read change;
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
			const subscription = liveQuery(() => query(values)).subscribe({
				next: (value) => {
					this.current = value;
					this.loaded = true;
					this.error = null;
				},
				error: (error: unknown) => {
					this.error = error;
					this.loaded = true;
				}
			});
			return () => subscription.unsubscribe();
		});
	}
}
