export interface StorageState {
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
	if (!navigator.storage?.persist) return null;
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
	return { persisted, usage: estimate?.usage ?? null, quota: estimate?.quota ?? null };
}
