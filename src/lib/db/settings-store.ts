import { db } from './db';

export const SETTING_SERVICE_URL = 'serviceUrl';
export const SETTING_LOCALE = 'locale';
export const SETTING_THEME = 'theme';
/** Whether the service answers ETags (learnt from its answers; updates are then conditional). */
export const SETTING_SERVICE_ETAGS = 'serviceEtags';

export async function getSetting<T>(key: string): Promise<T | undefined> {
	const row = await db.settings.get(key);
	return row?.value as T | undefined;
}

export async function setSetting(key: string, value: unknown): Promise<void> {
	await db.settings.put({ key, value });
}

/** The ring this device last worked at in a competition: its screen opens on that ring. */
export const lastRingKey = (competitionId: number): string => `lastRing:${competitionId}`;

export async function getLastRing(competitionId: number): Promise<number | undefined> {
	const value = await getSetting<unknown>(lastRingKey(competitionId));
	return typeof value === 'number' ? value : undefined;
}

export async function setLastRing(competitionId: number, ringId: number): Promise<void> {
	if ((await getLastRing(competitionId)) === ringId) return;
	await setSetting(lastRingKey(competitionId), ringId);
}
