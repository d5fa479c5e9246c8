import type { CompetitionRun, DogRun } from '$lib/api/schemas';
import { db } from '$lib/db/db';
import { putDogRunSnapshots, putRunSnapshot } from '$lib/db/snapshot-store';
import { createClient } from '$lib/sync/client';
import { dogRunsHref, LiveUpdates, type LiveMode, type Watched } from '$lib/sync/live-updates';
import { openSignedStream } from '$lib/sync/streams';

/**
 * The page's live updates ($lib/sync/live-updates): active while the browser is online and the
 * page visible; screens watch what they show with `watchLive`.
 */
class PageLive {
	mode = $state<LiveMode>('off');
	lastUpdateAt = $state<number | null>(null);

	readonly updates = new LiveUpdates({
		// Each read takes the address as it is now: Settings may have changed it.
		client: () => createClient(location.origin),
		openStream: typeof fetch === 'undefined' ? undefined : openSignedStream,
		storeDogRuns: async (items) => {
			await putDogRunSnapshots(items as DogRun[]);
			this.#touch();
		},
		storeRun: async (run) => {
			await putRunSnapshot(run as CompetitionRun);
			this.#touch();
		},
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

	start(): () => void {
		const update = () => {
			this.updates.setActive(navigator.onLine && document.visibilityState === 'visible');
			this.mode = this.updates.mode;
		};
		window.addEventListener('online', update);
		window.addEventListener('offline', update);
		document.addEventListener('visibilitychange', update);
		update();
		return () => {
			window.removeEventListener('online', update);
			window.removeEventListener('offline', update);
			document.removeEventListener('visibilitychange', update);
			this.updates.stop();
		};
	}
}

export const live = new PageLive();

/** A screen shows these: they are kept current while online and visible. Returns the stop. */
export function watchLive(watched: Watched): () => void {
	const stop = live.updates.watch(watched);
	live.mode = live.updates.mode;
	return stop;
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
			db.competitions.get(competitionId),
			db.runs.bulkGet([...runIds])
		]);
		if (stopped || !competition) return;
		stop = watchLive({
			competition: competition.data,
			runs: runs.flatMap((run) => (run ? [{ id: run.id, dogRunsHref: dogRunsHref(run.data) }] : []))
		});
	})();
	return () => {
		stopped = true;
		stop?.();
	};
}
