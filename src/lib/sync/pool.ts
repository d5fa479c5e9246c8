/**
 * Runs `worker` over `items` with at most `limit` in flight. The first failure stops new work and
 * is thrown once the ones already running have settled, so nothing is left writing behind it.
 */
export async function runPool<T>(
	items: readonly T[],
	limit: number,
	worker: (item: T, index: number) => Promise<void>
): Promise<void> {
	let next = 0;
	let failure: { error: unknown } | null = null;
	const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
		while (failure === null && next < items.length) {
			const index = next++;
			try {
				await worker(items[index] as T, index);
			} catch (error) {
				failure ??= { error };
			}
		}
	});
	await Promise.all(lanes);
	if (failure !== null) throw (failure as { error: unknown }).error;
}
