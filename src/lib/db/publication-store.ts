/**
 * What public views show of each competition, as this device last heard it from the service
 * ($lib/contract/publication): kept in the settings table, so that a public screen applies it
 * with no network.
 */
import type { Publication } from '$lib/contract/publication';
import { getSetting, setSetting } from './settings-store';

export const publicationKey = (competitionId: number): string => `publication:${competitionId}`;

/** The stored settings of `competitionId`; null: none heard yet. */
export async function storedPublication(competitionId: number): Promise<Publication | null> {
	return (await getSetting<Publication>(publicationKey(competitionId))) ?? null;
}

export async function storePublication(competitionId: number, p: Publication): Promise<void> {
	const { handlerNames, results, releasedRuns } = p;
	await setSetting(publicationKey(competitionId), {
		handlerNames,
		results,
		releasedRuns: [...releasedRuns]
	});
}
