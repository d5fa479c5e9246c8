import type { DownloadProgress } from '$lib/sync/download';
import type { Wanted } from '$lib/sync/locate';
import * as queries from '$lib/db/queries';
import { keepCompetitionRow } from '$lib/sync/browse';
import { serviceClient } from '../browser/service-client';
import { connectivity } from './connectivity.svelte';
import { downloads } from './downloads.svelte';
import { downloadErrorText, errorText } from '../view/error-text';

/**
 * How a screen whose address names something not on the device gets it: a shared link opened on
 * a fresh phone. `download` (the working screens: a run, its outputs, a dog, a ring): the
 * competition that has it is made available offline, as its **Make available offline** would.
 * `competition` (the big screen, the spectators' view, opened by many phones at once): only the
 * competition is kept, and the screen reads the ring's runs it shows itself.
 */
export type ColdMode = 'download' | 'competition';

export type ColdStep =
	| { step: 'idle' }
	/** Offline, and not on the device: nothing to do but say so. */
	| { step: 'offline' }
	/** Reading the service's list of competitions. */
	| { step: 'listing' }
	/** Looking through one competition of `of` (a dog run's: read in full, `read` so far). */
	| { step: 'searching'; at: number; of: number; name: string; read?: DownloadProgress }
	/** Found: its competition being made available offline. */
	| { step: 'loading'; competitionId: number; name: string }
	/** On the device now; the screen shows it. */
	| { step: 'kept' }
	| { step: 'not-found'; looked: number; listed: number; bounded: boolean }
	/** In words: the service could not be read, or the download failed. */
	| { step: 'failed'; reason: string; status?: number };

export class ColdOpen {
	state = $state<ColdStep>({ step: 'idle' });
	/** Bumped by Try again. */
	#attempt = $state(0);

	/** Create during component initialisation ($effect): it starts once online, stops on leaving. */
	constructor(wanted: () => Wanted, mode: () => ColdMode) {
		$effect(() => {
			void this.#attempt;
			const what = wanted();
			const how = mode();
			if (!connectivity.online) {
				this.state = { step: 'offline' };
				return;
			}
			const controller = new AbortController();
			void this.#open(what, how, controller.signal);
			return () => controller.abort();
		});
	}

	/** The download's progress while the competition found is being made available offline. */
	get progress(): DownloadProgress | null {
		const s = this.state;
		return s.step === 'loading' ? (downloads.active.get(s.competitionId)?.progress ?? null) : null;
	}

	retry(): void {
		this.#attempt++;
	}

	async #open(wanted: Wanted, mode: ColdMode, signal: AbortSignal): Promise<void> {
		const set = (step: ColdStep) => {
			if (!signal.aborted) this.state = step;
		};
		set({ step: 'listing' });
		try {
			const [client, { locate }] = await Promise.all([serviceClient(), import('$lib/sync/locate')]);
			const found = await locate(client, wanted, {
				signal,
				onProgress: (p) =>
					set(p.step === 'list' ? { step: 'listing' } : { ...p, step: 'searching' })
			});
			if (found.found === false) return set({ step: 'not-found', ...found });
			if (found.found === 'kept') return set({ step: 'kept' });
			const { competition } = found;
			if (mode === 'competition') {
				await keepCompetitionRow(competition);
				return set({ step: 'kept' });
			}
			set({ step: 'loading', competitionId: competition.id, name: competition.name });
			await downloads.start(competition.id, competition._links.self.href);
			const row = await queries.download(competition.id);
			if (row?.state === 'complete') return set({ step: 'kept' });
			set({ step: 'failed', reason: downloadErrorText(row?.error) });
		} catch (error) {
			if (signal.aborted) return;
			const status = (error as { status?: unknown }).status;
			set({
				step: 'failed',
				reason: errorText(error),
				...(typeof status === 'number' ? { status } : {})
			});
		}
	}
}
