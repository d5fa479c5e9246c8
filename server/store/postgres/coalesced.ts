// One query for many callers at once, never answering a caller from before it asked: how
// thousands of boards' conditional reads ask the shared database's data version.
/**
 * `query` shared by concurrent callers without answering anyone from before they asked: a
 * caller gets a query sent after it called (the one it starts, or the next one, which then
 * serves every caller that came while the one before was running). So a conditional read still
 * sees every change committed before it arrived, and the store gets at most one query at a
 * time however many boards ask.
 */
export function coalesced<T>(query: () => Promise<T>): () => Promise<T> {
	let running: Promise<T> | null = null;
	let next: Promise<T> | null = null;
	const start = (): Promise<T> => {
		const p = query();
		running = p;
		const done = (): void => {
			if (running === p) running = null;
		};
		p.then(done, done);
		return p;
	};
	return () => {
		if (!running) return start();
		next ??= running
			.then(
				() => undefined,
				() => undefined
			)
			.then(() => {
				next = null;
				return start();
			});
		return next;
	};
}
