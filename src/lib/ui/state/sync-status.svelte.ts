import type { OutboxStatus } from '$lib/db/db';
import { observe } from '$lib/db/observe';
import { lastSentAt } from '$lib/db/queries';
import { unsentOf, watchOutbox } from '$lib/sync/outbox-watch';
import { connectivity } from './connectivity.svelte';
import { checkInSender, onMarksWaiting } from '../browser/check-in-trigger';
import { onReplayError, scheduler } from '../browser/sync-trigger';

/**
 * The global sync state every screen shows (pending, conflicts, failures, last successful sync, a
 * replay that could not run), and the page's events handed to the replay scheduler: coming online,
 * becoming visible or hidden, and "Sync now"; and it starts the sender of gate marks, whose count
 * it shows beside the results'. The outbox's changes the scheduler hears itself
 * ($lib/sync/outbox-watch); this shows the same summary's counts.
 */
class SyncStatus {
	counts = $state<Record<OutboxStatus, number>>({ pending: 0, sending: 0, conflict: 0, failed: 0 });
	lastSyncAt = $state<number | null>(null);
	oldestUnsentAt = $state<number | null>(null);
	syncing = $state(false);
	/** The last replay that could not run at all (storage, a bug), until one runs again. */
	replayError = $state<unknown>(null);
	/** Gate marks taken on this device and not sent yet ($lib/sync/check-in-sender). */
	marksWaiting = $state(0);

	get unsent(): number {
		return this.counts.pending + this.counts.sending;
	}

	/** Nothing waits, nothing went wrong: the list screens' sync bar folds into the app bar. */
	get quiet(): boolean {
		return (
			this.unsent + this.counts.conflict + this.counts.failed + this.marksWaiting === 0 &&
			this.replayError === null
		);
	}

	start(): () => void {
		const stopErrors = onReplayError((error) => (this.replayError = error));
		scheduler.start();
		onMarksWaiting((count) => (this.marksWaiting = count));
		const stopMarks = checkInSender.start();
		const stopOutbox = watchOutbox((summary) => {
			this.counts = summary.counts;
			this.oldestUnsentAt = summary.oldest;
			connectivity.setResultsWaiting(unsentOf(summary) > 0);
		});
		const stopLast = observe(lastSentAt, {
			next: (at) => {
				if (at !== null && at !== this.lastSyncAt) this.replayError = null;
				this.lastSyncAt = at;
			}
		});

		const onVisibility = () => {
			if (document.visibilityState === 'visible') void scheduler.trigger('visible');
			else scheduler.hidden();
		};
		const online = () => void scheduler.trigger('online');
		window.addEventListener('online', online);
		document.addEventListener('visibilitychange', onVisibility);

		return () => {
			stopOutbox();
			stopMarks();
			stopLast();
			window.removeEventListener('online', online);
			document.removeEventListener('visibilitychange', onVisibility);
			stopErrors();
			scheduler.stop();
		};
	}

	/** "Sync now": everything waiting goes at once, backoff or not. */
	async syncNow(): Promise<void> {
		this.syncing = true;
		this.replayError = null;
		try {
			await scheduler.trigger('sync-now');
		} finally {
			this.syncing = false;
		}
	}
}

export const syncStatus = new SyncStatus();
