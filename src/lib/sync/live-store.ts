/**
 * Where live updates ($lib/sync/live-updates) go: the device's stored copy, which every screen
 * reads through live queries. A dog run whose stored row already holds what arrived is not written
 * again: above all the phone's own change coming back over the push link, stored moments before
 * from the answer to its PUT. Rewriting it would change only `fetchedAt`, and wake every screen's
 * live query for nothing. Its `fetchedAt` (how old the copy is said to be after a reload) moves
 * only once it is TOUCH_AFTER_MS behind: once a minute at most while polls find nothing new.
 */
import type { CompetitionRun, DogRun, PublicationJson } from '$lib/api/schemas';
import { storePublication } from '$lib/db/publication-store';
import { putDogRunSnapshots, putRunSnapshot, touchDogRunSnapshots } from '$lib/db/snapshot-store';

export const TOUCH_AFTER_MS = 60_000;

export async function storeLiveDogRuns(items: readonly DogRun[], now = Date.now()): Promise<void> {
	const same = new Map<number, number>();
	await putDogRunSnapshots(items, now, {
		keepIfSame: new Set(items.map((d) => d.id)),
		unchanged: (id) => same.set(id, now)
	});
	await touchDogRunSnapshots(same, TOUCH_AFTER_MS);
}

export async function storeLiveRun(run: CompetitionRun, now = Date.now()): Promise<void> {
	await putRunSnapshot(run, now);
}

/** What public views show of a competition, as the service's answer or its push event said. */
export async function storeLivePublication(p: PublicationJson): Promise<void> {
	await storePublication(p.competitionId, p);
}
