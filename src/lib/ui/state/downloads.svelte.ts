import { SvelteMap } from 'svelte/reactivity';
import { serviceClient } from '../browser/service-client';
import type { DownloadProgress } from '$lib/sync/download';
import { requestPersistentStorage } from '../browser/storage';

export interface ActiveDownload {
	progress: DownloadProgress;
	controller: AbortController;
}

/**
 * Downloads in progress, kept across screens so the progress bar survives navigation. The outcome
 * (complete, failed with its error, cancelled) is recorded in Dexie by the sync layer; this only
 * holds what is running now.
 */
class DownloadManager {
	active = new SvelteMap<number, ActiveDownload>();
	/** The downloads running, so that a second start waits for the first to end. */
	readonly #running = new Map<number, Promise<void>>();

	/** Resolves when the download has ended (its outcome is in the downloads table). */
	start(competitionId: number, competitionHref: string): Promise<void> {
		const running = this.#running.get(competitionId);
		if (running) return running;
		const download = this.#download(competitionId, competitionHref).finally(() =>
			this.#running.delete(competitionId)
		);
		this.#running.set(competitionId, download);
		return download;
	}

	async #download(competitionId: number, competitionHref: string): Promise<void> {
		const controller = new AbortController();
		const entry: ActiveDownload = {
			progress: { runsTotal: 0, runsDone: 0, dogRunsStored: 0 },
			controller
		};
		this.active.set(competitionId, entry);
		// Ask the browser not to evict the downloaded data (and unsent results) under storage pressure.
		void requestPersistentStorage();
		try {
			// The download code is loaded on first use, not with the first screen.
			const [client, { downloadCompetition }] = await Promise.all([
				serviceClient(),
				import('$lib/sync/download')
			]);
			await downloadCompetition(client, competitionHref, {
				signal: controller.signal,
				competitionId,
				onProgress: (progress) => {
					const current = this.active.get(competitionId);
					if (current) this.active.set(competitionId, { ...current, progress });
				}
			});
		} catch {
			// The failure and its reason are stored in the downloads table and shown from there.
		} finally {
			this.active.delete(competitionId);
		}
	}

	cancel(competitionId: number): void {
		this.active.get(competitionId)?.controller.abort();
	}
}

export const downloads = new DownloadManager();
