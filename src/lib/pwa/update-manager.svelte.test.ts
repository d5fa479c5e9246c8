import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { UpdateManager } from './update-manager.svelte';

// A page under the old worker, with the new one waiting: what the manager sends to whom after the
// steward taps "Reload". Chromium switches only once the old worker is idle and stopped, so every
// message to it after the tap (an event that wakes it or keeps it awake) can hold the switch.

interface FakeWorker {
	messages: unknown[];
	postMessage(message: unknown): void;
}
const worker = (): FakeWorker => {
	const messages: unknown[] = [];
	return { messages, postMessage: (m) => messages.push(m) };
};

let old: FakeWorker;
let waiting: FakeWorker | null;
let active: FakeWorker;
const reload = vi.fn();

beforeEach(() => {
	vi.useFakeTimers();
	old = worker();
	active = old;
	waiting = worker();
	reload.mockReset();
	vi.stubGlobal('navigator', {
		serviceWorker: {
			controller: old,
			getRegistration: () => Promise.resolve({ waiting, active })
		}
	});
	vi.stubGlobal('window', { location: { reload } });
});

afterEach(() => {
	vi.useRealTimers();
	vi.unstubAllGlobals();
});

it('tells the old worker to retire once, and only the waiting worker again while it waits', async () => {
	const manager = new UpdateManager();
	manager.applyUpdate();
	expect(old.messages).toEqual([{ type: 'RETIRE' }]);
	await vi.advanceTimersByTimeAsync(20_000);
	expect(old.messages).toEqual([{ type: 'RETIRE' }]);
	expect(waiting?.messages.length).toBeGreaterThanOrEqual(5);
	expect(new Set(waiting?.messages.map((m) => JSON.stringify(m)))).toEqual(
		new Set([JSON.stringify({ type: 'SKIP_WAITING' })])
	);
	expect(manager.updating).toBe(true);
	expect(reload).not.toHaveBeenCalled();
});

it('reloads by itself once the new worker is active but the page was not told', async () => {
	const manager = new UpdateManager();
	manager.applyUpdate();
	active = waiting as FakeWorker;
	waiting = null;
	await vi.advanceTimersByTimeAsync(3_500);
	expect(reload).toHaveBeenCalledTimes(1);
	expect(manager.updating).toBe(true);
});

it('gives up after 30 s: the steward may tap Reload again, and nothing more is sent', async () => {
	const manager = new UpdateManager();
	manager.applyUpdate();
	await vi.advanceTimersByTimeAsync(31_000);
	expect(manager.updating).toBe(false);
	const sent = waiting?.messages.length;
	await vi.advanceTimersByTimeAsync(10_000);
	expect(waiting?.messages.length).toBe(sent);
	expect(old.messages).toEqual([{ type: 'RETIRE' }]);
});
