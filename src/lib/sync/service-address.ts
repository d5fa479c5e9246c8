import { getSetting, SETTING_SERVICE_URL } from '$lib/db/settings-store';

/**
 * The results service's base address: the one address the app knows. By default the origin the
 * app was served from (the embedded service, or a proxy in front of a real one); Settings may
 * point it at another service.
 */
export async function serviceUrl(origin: string): Promise<string> {
	const stored = await getSetting<string>(SETTING_SERVICE_URL);
	return stored && stored.trim() !== '' ? stored : origin;
}
