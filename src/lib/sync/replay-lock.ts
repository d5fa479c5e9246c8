/**
 * One replayer at a time, across tabs and the service worker: a Web Lock where there is one
 * (`navigator.locks`, in pages and workers), else a single flight in this context, like Actual's
 * `once` in loot-core's shared/async.ts.
 */

export const REPLAY_LOCK = 'ringside-replay';

export interface ReplayLockOptions {
	/** Wait for the lock instead of answering 'busy' when someone holds it. */
	wait?: boolean;
	/** Gives up waiting (rejects with the signal's reason) once aborted. */
	signal?: AbortSignal;
}

/** The in-context holder when there are no Web Locks. */
let held: Promise<unknown> | null = null;

function lockManager(): LockManager | undefined {
	// Absent in Node and in old browsers; typed as always there by lib.dom.
	const nav = (globalThis as { navigator?: { locks?: LockManager } }).navigator;
	return nav?.locks;
}

/**
 * Runs `fn` holding the replay lock. 'busy' (without running it) when another replay holds the
 * lock, unless `wait` is set.
 */
export async function withReplayLock<T>(
	fn: () => Promise<T>,
	opts: ReplayLockOptions = {}
): Promise<T | 'busy'> {
	const locks = lockManager();
	opts.signal?.throwIfAborted();
	if (locks) {
		if (opts.wait === true) {
			return opts.signal
				? locks.request(REPLAY_LOCK, { signal: opts.signal }, () => fn())
				: locks.request(REPLAY_LOCK, () => fn());
		}
		return locks.request(REPLAY_LOCK, { ifAvailable: true }, (lock) =>
			lock === null ? 'busy' : fn()
		);
	}
	while (held !== null) {
		if (opts.wait !== true) return 'busy';
		await held.catch(() => undefined);
		opts.signal?.throwIfAborted();
	}
	const pass = (async () => fn())();
	held = pass;
	try {
		return await pass;
	} finally {
		if (held === pass) held = null;
	}
}

/**
 * A `requestReplay()` for `fn` (e.g. `() => replayOutbox({ client })`): runs it under the lock now,
 * or, when a replay is already running (here, in another tab or in the worker), once more right
 * after it, so an edit saved during a replay is not left waiting for the next trigger. Requests
 * made while one is waiting share it. Resolves with the result of the replay that covers the request.
 * Once `signal()` is aborted, a request no longer starts or waits: it rejects with its reason.
 */
export function createReplayRequester<T>(
	fn: () => Promise<T>,
	signal: () => AbortSignal | undefined = () => undefined
): () => Promise<T> {
	let current: Promise<T> | null = null;
	let queued: Promise<T> | null = null;

	const replayLocked = async (): Promise<T> => {
		const now = await withReplayLock(fn, { signal: signal() });
		if (now !== 'busy') return now;
		// Someone else is replaying: wait for them, then replay once more.
		const after = await withReplayLock(fn, { wait: true, signal: signal() });
		if (after === 'busy') throw new Error('replay lock still busy after waiting');
		return after;
	};

	const start = (): Promise<T> => {
		const pass = replayLocked();
		current = pass;
		const clear = () => {
			if (current === pass) current = null;
		};
		pass.then(clear, clear);
		return pass;
	};

	return () => {
		if (queued) return queued;
		if (!current) return start();
		const follow = current.then(
			() => undefined,
			() => undefined
		);
		const next = follow.then(() => {
			queued = null;
			return start();
		});
		queued = next;
		return next;
	};
}
