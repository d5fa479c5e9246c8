/**
 * Where live updates ($lib/sync/live-updates) go: the device's stored copy, which every screen
 * reads through live queries. A dog run whose stored row already holds what arrived is not written
 * again: above all the phone's own change coming back over the push link, stored moments before
 * from the answer to its PUT. Rewriting it would change only `fetchedAt`, and wake every screen's
 * live query for nothing; the page notes the update's time itself (`live.lastUpdateAt`).
 */
import type { CompetitionRun, DogRun } from '$lib/api/schemas';
import { putDogRunSnapshots, putRunSnapshot } from '$lib/db/snapshot-store';

export async function storeLiveDogRuns(items: readonly DogRun[], now = Date.now()): Promise<void> {
	await putDogRunSnapshots(items, now, { keepIfSame: new Set(items.map((d) => d.id)) });
}

export async function storeLiveRun(run: CompetitionRun, now = Date.now()): Promise<void> {
	await putRunSnapshot(run, now);
}
