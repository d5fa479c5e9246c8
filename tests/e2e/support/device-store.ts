import type { Page } from '@playwright/test';

/** A store of the phone's database, read straight from IndexedDB (no app code involved). */
export async function readStore<T>(page: Page, store: 'outbox' | 'syncLog'): Promise<T[]> {
	return page.evaluate(
		(name) =>
			new Promise<T[]>((resolve, reject) => {
				const open = indexedDB.open('ringside');
				open.onerror = () => reject(open.error);
				open.onsuccess = () => {
					const read = open.result.transaction(name).objectStore(name).getAll();
					read.onsuccess = () => resolve(read.result as T[]);
					read.onerror = () => reject(read.error);
				};
			}),
		store
	);
}
