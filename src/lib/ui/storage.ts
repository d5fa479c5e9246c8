export interface StorageState {
	persisted: boolean | null;
	usage: number | null;
	quota: number | null;
}

/** Asks once for persistent storage; the answer is kept by the browser. */
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
