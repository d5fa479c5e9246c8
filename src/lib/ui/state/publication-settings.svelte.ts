import { untrack } from 'svelte';
import type { Competition } from '$lib/api/schemas';
import type { Publication } from '$lib/contract/publication';
import {
	changePublication,
	fetchPublication,
	hasPublication,
	type PublicationChange
} from '$lib/sync/publication';
import { serviceClient } from '../browser/service-client';
import { connectivity } from './connectivity.svelte';

/**
 * A competition's settings of public views as the secretary's screens hold them
 * ($lib/sync/publication): read online where the service has them (its answer says whether this
 * device may change them), and changed one request at a time. The public-views panel and the
 * release of a run's results share it. Create during component initialisation: it reads in an
 * effect, again when the competition changes or the phone comes back online.
 */
export class PublicationSettings {
	/** The settings as last read or changed; null: not read (offline, none, not allowed). */
	current = $state<Publication | null>(null);
	/** This device may change them (the service's answer carried the form). */
	editable = $state(false);
	/** A change is on its way. */
	busy = $state(false);
	readonly #competition: () => Competition;

	constructor(competition: () => Competition) {
		this.#competition = competition;
		$effect(() => {
			const c = competition();
			if (!connectivity.online || !hasPublication(c)) return;
			untrack(() => void this.#read(c));
		});
	}

	async #read(competition: Competition): Promise<void> {
		try {
			const found = await fetchPublication(await serviceClient(), competition);
			if (!found) return;
			this.current = found.publication;
			this.editable = found.editable;
		} catch {
			// Not read (no connection, not allowed): nothing to change from here now.
		}
	}

	/**
	 * Sends one change (false: another is on its way, nothing sent); what went wrong is thrown
	 * for the screen to say.
	 */
	async change(edit: PublicationChange): Promise<boolean> {
		if (this.busy) return false;
		this.busy = true;
		try {
			this.current = await changePublication(await serviceClient(), this.#competition(), edit);
			return true;
		} finally {
			this.busy = false;
		}
	}
}
