import type { CompetitionRun, DogRun } from '$lib/api/schemas';
import * as queries from '$lib/db/queries';
import { storeCheckIns } from '$lib/sync/check-in';
import { storeLiveDogRuns, storeLivePublication, storeLiveRun } from '$lib/sync/live-store';
import { serviceClient } from '../browser/service-client';
import { dogRunsHref, LiveUpdates, type LiveMode, type Watched } from '$lib/sync/live-updates';
import { reachability } from '$lib/sync/reachability';
import { openSignedStream } from '$lib/sync/streams';
import { connectivity } from './connectivity.svelte';

/**
 * The page's live updates ($lib/sync/live-updates), loaded and started by the first screen that
 * watches something (not by the first screen, which shows only the competition list): active
 * while the browser is online, the page
 * visible and the results service not known to be unreachable or busy (then only the probe asks
 * for it, at the backoff $lib/sync/reachability sets, and everything watched is read again once it
 * answers); screens watch what they show with `watchLive`.
 */
class PageLive {
	mode = $state<LiveMode>('off');
	lastUpdateAt = $state<number | null>(null);

	readonly updates = new LiveUpdates({
		// Each read takes the address as it is now: Settings may have changed it.
		client: () => serviceClient(),
		openStream: typeof fetch === 'undefined' ? undefined : openSignedStream,
		storeDogRuns: async (items) => {
			await storeLiveDogRuns(items as DogRun[]);
			this.#touch();
		},
		storeRun: async (run) => {
			await storeLiveRun(run as CompetitionRun);
			this.#touch();
		},
		storePublication: (publication) => storeLivePublication(publication),
		storeCheckIns: (competitionId, marks) => storeCheckIns(competitionId, marks),
		// A failed refresh is not the steward's business: the stored copy stays, and is shown with
		// its age; the next read tries again.
		onError: () => this.#touch(false),
		clock: {
			now: () => Date.now(),
			setTimeout: (fn, ms) => setTimeout(fn, ms),
			clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)
		}
	});

	#touch(updated = true): void {
		this.mode = this.updates.mode;
		if (updated) this.lastUpdateAt = this.updates.lastUpdateAt ?? Date.now();
	}

	#started = false;

	/** Listens to the page's events from the first screen that watches something on. */
	start(): void {
		if (this.#started || typeof window === 'undefined') return;
		this.#started = true;
		const update = () => {
			const { state, busy } = reachability.view;
			const answers = state !== 'unreachable' && state !== 'offline' && !busy;
			this.updates.setActive(navigator.onLine && document.visibilityState === 'visible' && answers);
			this.mode = this.updates.mode;
		};
		window.addEventListener('online', update);
		window.addEventListener('offline', update);
		document.addEventListener('visibilitychange', update);
		reachability.subscribe(update);
		update();
	}
}

export const live = new PageLive();

/** A screen shows these: they are kept current while online and visible. Returns the stop. */
export function watchLive(watched: Watched): () => void {
	live.start();
	const stop = live.updates.watch(watched);
	live.mode = live.updates.mode;
	connectivity.setWatching(true);
	return () => {
		stop();
		connectivity.setWatching(live.updates.watching);
	};
}

/**
 * Watches stored things by id: the competition (for its push link) and the runs whose dogs a
 * screen shows. Returns the stop; safe to call before they are read.
 */
export function watchStored(competitionId: number, runIds: readonly number[]): () => void {
	let stop: (() => void) | null = null;
	let stopped = false;
	void (async () => {
		const [competition, runs] = await Promise.all([
			queries.competition(competitionId),
			queries.runsById(runIds)
		]);
		if (stopped || !competition) return;
		stop = watchLive({
			competition: competition.data,
			runs: runs.map((run) => ({ id: run.id, dogRunsHref: dogRunsHref(run.data) }))
		});
	})();
	return () => {
		stopped = true;
		stop?.();
	};
}
