/**
 * What public views show of each competition, as this device last heard it from the service
 * ($lib/contract/publication): kept in the settings table, so that a public screen applies it
 * with no network. A competition never heard of shows everything (a service without settings).
 */
import { OPEN_PUBLICATION, type Publication } from '$lib/contract/publication';
import { getSetting, setSetting } from './settings-store';

export const publicationKey = (competitionId: number): string => `publication:${competitionId}`;

/** The stored settings of `competitionId` (everything shown when none are stored). */
export async function storedPublication(competitionId: number): Promise<Publication> {
	const stored = await getSetting<Publication>(publicationKey(competitionId));
	return stored ?? OPEN_PUBLICATION;
}

export async function storePublication(competitionId: number, p: Publication): Promise<void> {
	const { handlerNames, results, releasedRuns } = p;
	await setSetting(publicationKey(competitionId), {
		handlerNames,
		results,
		releasedRuns: [...releasedRuns]
	});
}
