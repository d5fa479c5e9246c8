import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { db } from '$lib/db/db';
import { noteRetire } from '$lib/sync/retirement';
import { scheduler, updateUnderWay } from './sync-trigger';

// The page asks the worker in charge to replay, except while an update is under way: a message to
// a retiring worker wakes it or keeps it awake, and Chromium switches only once it has stopped.

const waitingWorker = { postMessage: vi.fn() };
const activeWorker = { postMessage: vi.fn() };
let waiting: typeof waitingWorker | null;

beforeEach(async () => {
	await db.settings.clear();
	waiting = waitingWorker;
	activeWorker.postMessage.mockReset();
	vi.stubGlobal('navigator', {
		onLine: true,
		serviceWorker: {
			getRegistration: () => Promise.resolve({ active: activeWorker, waiting })
		}
	});
});

afterEach(() => {
	vi.unstubAllGlobals();
});

describe('updateUnderWay', () => {
	it('is true in the tab where Reload was tapped', async () => {
		expect(await updateUnderWay({ waiting: null }, true, 1_000)).toBe(true);
	});

	it('is true in another tab while a version waits and a RETIRE is recent', async () => {
		await noteRetire(1_000);
		const found = { waiting: {} as ServiceWorker };
		expect(await updateUnderWay(found, false, 2_000)).toBe(true);
		expect(await updateUnderWay({ waiting: null }, false, 2_000)).toBe(false);
		expect(await updateUnderWay(found, false, 1_000 + 30_000)).toBe(false);
	});

	it('is false with a version waiting but no Reload tapped anywhere', async () => {
		expect(await updateUnderWay({ waiting: {} as ServiceWorker }, false, 1_000)).toBe(false);
	});
});

describe('the scheduler asking the worker to replay', () => {
	it('sends REPLAY to the worker in charge', async () => {
		await scheduler.trigger('sync-now');
		expect(activeWorker.postMessage).toHaveBeenCalledWith({ type: 'REPLAY' });
	});

	it('sends nothing while another tab is taking an update', async () => {
		await noteRetire(Date.now());
		await scheduler.trigger('sync-now');
		expect(activeWorker.postMessage).not.toHaveBeenCalled();
	});
});
