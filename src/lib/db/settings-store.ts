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
