import { afterEach, beforeEach, expect, it, vi } from 'vitest';

/**
 * The update's switch, seen from the page (issue 31): after the tap on Reload nothing more goes to
 * the retiring worker (whatever reaches it starts it again, and the waiting worker activates only
 * once it is idle and stopped), and a switch that does not come within UPDATE_WAIT_MS is said,
 * with the way on.
 */
const wb = {
	skipWaiting: 0,
	/** What `register()` resolves to (a registration, or undefined where none could be made). */
	registration: {} as object | undefined,
	listeners: new Map<string, () => void>()
};
vi.mock('workbox-window', () => ({
	Workbox: class {
		addEventListener(type: string, listener: () => void): void {
			wb.listeners.set(type, listener);
		}
		register(): Promise<object | undefined> {
			return Promise.resolve(wb.registration);
		}
		messageSkipWaiting(): void {
			wb.skipWaiting++;
		}
	}
}));

const toRetiring: unknown[] = [];
const toWaiting: unknown[] = [];
let waiting: { postMessage: (m: unknown) => void } | null;
/** The page's listeners on navigator.serviceWorker (controllerchange). */
const pageListeners = new Map<string, () => void>();

beforeEach(() => {
	vi.useFakeTimers();
	toRetiring.length = 0;
	toWaiting.length = 0;
	wb.skipWaiting = 0;
	wb.registration = {};
	wb.listeners.clear();
	waiting = { postMessage: (m) => toWaiting.push(m) };
	const controller = { postMessage: (m: unknown) => toRetiring.push(m) };
	vi.stubGlobal('navigator', {
		serviceWorker: {
			controller,
			getRegistration: () => Promise.resolve({ waiting, active: controller }),
			addEventListener: (type: string, listener: () => void) => pageListeners.set(type, listener)
		}
	});
});
afterEach(() => {
	vi.useRealTimers();
	vi.unstubAllGlobals();
});

it('says nothing more to the retiring worker after the tap, only to the waiting one', async () => {
	const { UpdateManager } = await import('./update-manager.svelte');
	const m = new UpdateManager();
	m.start();
	m.applyUpdate();
	expect(toRetiring).toEqual([{ type: 'RETIRE' }]);
	expect(wb.skipWaiting).toBe(1);
	await vi.advanceTimersByTimeAsync(10_000);
	expect(toRetiring).toEqual([{ type: 'RETIRE' }]);
	expect(toWaiting.length).toBeGreaterThan(0);
	expect(toWaiting.every((t) => (t as { type: string }).type === 'SKIP_WAITING')).toBe(true);
});

it('says when the switch has not come within 15 s, and goes on with this version on a tap', async () => {
	const { UpdateManager, UPDATE_WAIT_MS } = await import('./update-manager.svelte');
	expect(UPDATE_WAIT_MS).toBe(15_000);
	const m = new UpdateManager();
	m.start();
	m.applyUpdate();
	await vi.advanceTimersByTimeAsync(UPDATE_WAIT_MS - 100);
	expect(m.updating).toBe(true);
	expect(m.stalled).toBe(false);
	await vi.advanceTimersByTimeAsync(200);
	expect(m.stalled).toBe(true);
	m.goOn();
	expect(m.updating).toBe(false);
	expect(m.stalled).toBe(false);
	// The old worker replays again at once (it stopped for the switch).
	expect(toRetiring).toEqual([{ type: 'RETIRE' }, { type: 'RESUME' }]);
	// And the page nudges no more.
	const sent = toWaiting.length;
	await vi.advanceTimersByTimeAsync(10_000);
	expect(toWaiting.length).toBe(sent);
});

it('does not say so when the switch came (the page reloads meanwhile)', async () => {
	const { UpdateManager, UPDATE_WAIT_MS } = await import('./update-manager.svelte');
	const m = new UpdateManager();
	m.start();
	m.applyUpdate();
	// Gone from waiting, as on a switch; the page is reloading.
	waiting = null;
	m.updating = false;
	await vi.advanceTimersByTimeAsync(UPDATE_WAIT_MS + 1000);
	expect(m.stalled).toBe(false);
});

it('says whether a worker controls the page: the app itself is kept only then', async () => {
	const { UpdateManager } = await import('./update-manager.svelte');
	const sw = (navigator as unknown as { serviceWorker: { controller: unknown } }).serviceWorker;
	const first = sw.controller;
	sw.controller = null;
	const m = new UpdateManager();
	m.start();
	expect(m.controlled).toBe(false);
	// The first worker installed and claimed the page.
	sw.controller = first;
	pageListeners.get('controllerchange')?.();
	expect(m.controlled).toBe(true);
	expect(m.failed).toBe(false);
});

it('asks the active worker to take a page loaded past it (a hard reload)', async () => {
	const { UpdateManager } = await import('./update-manager.svelte');
	const sw = (navigator as unknown as { serviceWorker: { controller: unknown } }).serviceWorker;
	sw.controller = null;
	const toActive: unknown[] = [];
	wb.registration = { active: { postMessage: (m: unknown) => toActive.push(m) } };
	const m = new UpdateManager();
	m.start();
	await vi.advanceTimersByTimeAsync(0);
	expect(toActive).toEqual([{ type: 'CLAIM' }]);
	expect(m.controlled).toBe(false);
});

it('says the app cannot be kept where no worker could be registered, or the first failed', async () => {
	const { UpdateManager } = await import('./update-manager.svelte');
	wb.registration = undefined;
	const refused = new UpdateManager();
	refused.start();
	await vi.advanceTimersByTimeAsync(0);
	expect(refused.failed).toBe(true);

	wb.registration = {};
	const sw = (navigator as unknown as { serviceWorker: { controller: unknown } }).serviceWorker;
	sw.controller = null;
	const broken = new UpdateManager();
	broken.start();
	await vi.advanceTimersByTimeAsync(0);
	expect(broken.failed).toBe(false);
	wb.listeners.get('redundant')?.();
	expect(broken.failed).toBe(true);

	vi.stubGlobal('navigator', {});
	const none = new UpdateManager();
	none.start();
	expect(none.failed).toBe(true);
});
