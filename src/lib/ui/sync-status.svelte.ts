import { liveQuery } from 'dexie';
import { db, type OutboxStatus } from '$lib/db/db';
import { requestSync } from './sync-trigger';

/** While anything is unsent, the page asks for a replay this often (Chromium's own retry is minutes). */
export const RETRY_EVERY_MS = 20_000;

/**
 * The global sync state every screen shows (pending, conflicts, failures, last successful sync),
 * and the page-side triggers of a replay: start, coming online, becoming visible, a timer while
 * anything is unsent, and "Sync now".
 */
class SyncStatus {
	counts = $state<Record<OutboxStatus, number>>({ pending: 0, sending: 0, conflict: 0, failed: 0 });
	lastSyncAt = $state<number | null>(null);
	oldestUnsentAt = $state<number | null>(null);
	syncing = $state(false);

	get unsent(): number {
		return this.counts.pending + this.counts.sending;
	}

	start(): () => void {
		const trigger = () => void this.#sync();
		let first = true;
		const outbox = liveQuery(async () => {
			const entries = await db.outbox.toArray();
			const counts: Record<OutboxStatus, number> = {
				pending: 0,
				sending: 0,
				conflict: 0,
				failed: 0
			};
			let oldest: number | null = null;
			for (const entry of entries) {
				counts[entry.status] += 1;
				oldest = oldest === null ? entry.createdAt : Math.min(oldest, entry.createdAt);
			}
			return { counts, oldest };
		}).subscribe({
			next: ({ counts, oldest }) => {
				this.counts = counts;
				this.oldestUnsentAt = oldest;
				// At start, resume what a closed or reloaded app left unsent (and load no replay code
				// when there is nothing to send).
				if (first && this.unsent > 0) trigger();
				first = false;
			}
		});
		const last = liveQuery(async () => {
			const rows = await db.syncLog.orderBy('at').reverse().limit(50).toArray();
			return rows.find((r) => r.action === 'sent' || r.action === 'already-applied')?.at ?? null;
		}).subscribe({ next: (at) => (this.lastSyncAt = at) });

		const onVisible = () => {
			if (document.visibilityState === 'visible' && this.unsent > 0) trigger();
		};
		// Back online: what waits out a backoff is tried at once too.
		const online = () => {
			if (this.unsent > 0) void this.syncNow();
		};
		window.addEventListener('online', online);
		document.addEventListener('visibilitychange', onVisible);
		const timer = setInterval(() => {
			if (this.unsent > 0 && navigator.onLine) trigger();
		}, RETRY_EVERY_MS);

		return () => {
			outbox.unsubscribe();
			last.unsubscribe();
			window.removeEventListener('online', online);
			document.removeEventListener('visibilitychange', onVisible);
			clearInterval(timer);
		};
	}

	/** "Sync now": entries waiting out a backoff are tried at once. */
	async syncNow(): Promise<void> {
		// The outbox policy is loaded on first use, not with the first screen.
		const { retryNow } = await import('$lib/sync/outbox');
		await retryNow();
		await this.#sync();
	}

	async #sync(): Promise<void> {
		this.syncing = true;
		try {
			await requestSync();
		} finally {
			this.syncing = false;
		}
	}
}

export const syncStatus = new SyncStatus();
