import { pageIsSecure } from './secure-origin';

export interface StorageState {
	/**
	 * A secure context: elsewhere (plain HTTP on a network address) there is no Storage API, the
	 * browser may clear the data, and the app is not kept: said as such, not as "unknown".
	 */
	secure: boolean;
	persisted: boolean | null;
	usage: number | null;
	quota: number | null;
}

/**
 * Asks for persistent storage unless the data is protected already. The browser decides (Chromium
 * by how the app is used: installed to the home screen, bookmarked, visited often), so asking again
 * later, after installing the app, can succeed where the first request did not.
 */
export async function requestPersistentStorage(): Promise<boolean | null> {
	if (!pageIsSecure() || !navigator.storage?.persist) return null;
	try {
		if (await navigator.storage.persisted()) return true;
		return await navigator.storage.persist();
	} catch {
		return null;
	}
}

export async function storageState(): Promise<StorageState> {
	const storage = navigator.storage;
	const persisted = storage?.persisted ? await storage.persisted().catch(() => null) : null;
	const estimate = storage?.estimate ? await storage.estimate().catch(() => null) : null;
	return {
		secure: pageIsSecure(),
		persisted,
		usage: estimate?.usage ?? null,
		quota: estimate?.quota ?? null
	};
}
