/**
 * The phone's outbox as sync hears it: one live read of its summary ($lib/db/queries'
 * outboxSummary, run again by every commit that changes the outbox, here, in another tab or in the
 * worker), shared by whoever listens: the replay scheduler, which a save thus nudges with nobody
 * calling it (as Replicache's mutate nudges its pusher), and the sync bar's counts. One read per
 * change however many listen; a listener that comes late gets the latest summary at once.
 */
import { observe } from '$lib/db/observe';
import { outboxSummary, type OutboxSummary } from '$lib/db/queries';
import type { OutboxState } from './scheduler';

export type { OutboxSummary };
type Listener = (summary: OutboxSummary) => void;

const listeners = new Set<Listener>();
let latest: OutboxSummary | null = null;
let stopReading: (() => void) | null = null;

/** Hears every change of the outbox until the returned stop is called. */
export function watchOutbox(listener: Listener): () => void {
	listeners.add(listener);
	if (latest) listener(latest);
	stopReading ??= observe(outboxSummary, {
		next: (summary) => {
			latest = summary;
			for (const each of [...listeners]) each(summary);
		},
		error: (error: unknown) => console.error('The outbox could not be read', error)
	});
	return () => {
		listeners.delete(listener);
		if (listeners.size > 0) return;
		stopReading?.();
		stopReading = null;
		latest = null;
	};
}

/** Entries pending or being sent. */
export const unsentOf = (summary: OutboxSummary): number =>
	summary.counts.pending + summary.counts.sending;

/** What the replay scheduler needs of a summary. */
export const outboxStateOf = (summary: OutboxSummary): OutboxState => ({
	unsent: unsentOf(summary),
	dueAt: summary.dueAt
});
