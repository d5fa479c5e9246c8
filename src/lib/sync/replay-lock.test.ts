import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReplayRequester, REPLAY_LOCK, withReplayLock } from './replay-lock';

/** A promise with its resolve function, to hold a replay open. */
function gate() {
	let open = () => {};
	const opened = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { opened, open };
}

afterEach(() => {
	vi.unstubAllGlobals();
});

describe('withReplayLock without Web Locks', () => {
	it("answers 'busy' while a replay runs, and runs again after it", async () => {
		const held = gate();
		const first = withReplayLock(async () => {
			await held.opened;
			return 'first';
		});
		expect(await withReplayLock(async () => 'second')).toBe('busy');
		held.open();
		expect(await first).toBe('first');
		expect(await withReplayLock(async () => 'third')).toBe('third');
	});

	it('releases the lock when the replay throws', async () => {
		await expect(
			withReplayLock(async () => {
				throw new Error('boom');
			})
		).rejects.toThrow('boom');
		expect(await withReplayLock(async () => 'after')).toBe('after');
	});

	it('waits for the holder when asked to', async () => {
		const held = gate();
		const order: string[] = [];
		const first = withReplayLock(async () => {
			await held.opened;
			order.push('first');
		});
		const second = withReplayLock(
			async () => {
				order.push('second');
			},
			{ wait: true }
		);
		held.open();
		await Promise.all([first, second]);
		expect(order).toEqual(['first', 'second']);
	});
});

describe('withReplayLock with Web Locks', () => {
	it("requests the 'ringside-replay' lock, if available, and is busy when it is not", async () => {
		const requests: { name: string; ifAvailable: boolean }[] = [];
		let taken = false;
		const locks = {
			request: async (
				name: string,
				options: { ifAvailable?: boolean },
				callback: (lock: { name: string } | null) => unknown
			) => {
				requests.push({ name, ifAvailable: options.ifAvailable === true });
				return callback(taken ? null : { name });
			}
		};
		vi.stubGlobal('navigator', { locks });
		expect(await withReplayLock(async () => 'ran')).toBe('ran');
		taken = true;
		expect(await withReplayLock(async () => 'ran')).toBe('busy');
		expect(requests).toEqual([
			{ name: REPLAY_LOCK, ifAvailable: true },
			{ name: REPLAY_LOCK, ifAvailable: true }
		]);
	});
});

describe('createReplayRequester', () => {
	it('runs once more after a running replay, however many requests came meanwhile', async () => {
		const gates = [gate(), gate()];
		let runs = 0;
		const requestReplay = createReplayRequester(async () => {
			const n = runs++;
			await gates[n]?.opened;
			return n;
		});
		const first = requestReplay();
		const during = [requestReplay(), requestReplay(), requestReplay()];
		expect(runs).toBe(1);
		gates[0]?.open();
		expect(await first).toBe(0);
		gates[1]?.open();
		expect(await Promise.all(during)).toEqual([1, 1, 1]);
		expect(runs).toBe(2);
		// Idle again: a new request runs at once.
		expect(await requestReplay()).toBe(2);
	});

	it('runs the follow-up even when the running replay failed', async () => {
		let runs = 0;
		const held = gate();
		const requestReplay = createReplayRequester(async () => {
			runs++;
			if (runs === 1) {
				await held.opened;
				throw new Error('offline');
			}
			return runs;
		});
		const first = requestReplay();
		const second = requestReplay();
		held.open();
		await expect(first).rejects.toThrow('offline');
		expect(await second).toBe(2);
	});

	it('waits for a replay held elsewhere (another tab) and then runs', async () => {
		const elsewhere = gate();
		const other = withReplayLock(async () => {
			await elsewhere.opened;
		});
		let ran = false;
		const requestReplay = createReplayRequester(async () => {
			ran = true;
			return 'mine';
		});
		const mine = requestReplay();
		await Promise.resolve();
		expect(ran).toBe(false);
		elsewhere.open();
		await other;
		expect(await mine).toBe('mine');
		expect(ran).toBe(true);
	});

	it('a worker about to be replaced stops waiting for a replay held elsewhere, and starts none', async () => {
		const elsewhere = gate();
		const other = withReplayLock(async () => {
			await elsewhere.opened;
		});
		const retiring = new AbortController();
		let ran = 0;
		const requestReplay = createReplayRequester(
			async () => {
				ran++;
				return 'mine';
			},
			() => retiring.signal
		);
		const waiting = requestReplay();
		await Promise.resolve();
		retiring.abort(new Error('retiring'));
		elsewhere.open();
		await other;
		await expect(waiting).rejects.toThrow('retiring');
		await expect(requestReplay()).rejects.toThrow('retiring');
		expect(ran).toBe(0);
	});
});

describe('withReplayLock with Web Locks and a signal', () => {
	it('passes the signal to a waiting lock request, so that the wait can be given up', async () => {
		const request = vi.fn(async (_name: string, opts: unknown, cb?: () => unknown) =>
			(cb ?? (opts as () => unknown))()
		);
		vi.stubGlobal('navigator', { locks: { request } });
		const signal = new AbortController().signal;
		expect(await withReplayLock(async () => 'ran', { wait: true, signal })).toBe('ran');
		expect(request).toHaveBeenCalledWith(REPLAY_LOCK, { signal }, expect.any(Function));
		const aborted = AbortSignal.abort(new Error('gone'));
		await expect(
			withReplayLock(async () => 'ran', { wait: true, signal: aborted })
		).rejects.toThrow('gone');
		expect(request).toHaveBeenCalledTimes(1);
	});
});
