/**
 * How this device signs in to the results service. The interface names no scheme; a bearer token
 * and user/password (HTTP Basic) are what Spring-style services take. Kept in the device's
 * settings, sent as Authorization on every request of the HAL client.
 */
import { getSetting, setSetting } from '$lib/db/settings-store';

export const SETTING_CREDENTIALS = 'credentials';

export type Credentials =
	{ kind: 'bearer'; token: string } | { kind: 'basic'; user: string; password: string };

export async function readCredentials(): Promise<Credentials | null> {
	const value = await getSetting<unknown>(SETTING_CREDENTIALS);
	return isCredentials(value) ? value : null;
}

export async function saveCredentials(credentials: Credentials | null): Promise<void> {
	await setSetting(SETTING_CREDENTIALS, credentials);
}

/** The Authorization header value, or undefined without credentials. UTF-8 for Basic (RFC 7617). */
export function authorizationOf(credentials: Credentials | null): string | undefined {
	if (!credentials) return undefined;
	if (credentials.kind === 'bearer') return `Bearer ${credentials.token.trim()}`;
	const bytes = new TextEncoder().encode(`${credentials.user}:${credentials.password}`);
	let binary = '';
	for (const byte of bytes) binary += String.fromCharCode(byte);
	return `Basic ${btoa(binary)}`;
}

function isCredentials(value: unknown): value is Credentials {
	const v = value as Partial<Record<string, unknown>> | null;
	if (!v || typeof v !== 'object') return false;
	if (v.kind === 'bearer') return typeof v.token === 'string' && v.token.trim() !== '';
	return v.kind === 'basic' && typeof v.user === 'string' && typeof v.password === 'string';
}
