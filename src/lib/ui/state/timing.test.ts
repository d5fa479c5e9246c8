// The app's one run clock and its sources: which ring's stream is followed, for how long, and
// what happens to a ring's stops when the steward moves to another ring.
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heldStops } from '$lib/timing/run-clock';
import type { FakeEventSource } from '$lib/timing/test-support';

const opened = vi.hoisted(() => [] as FakeEventSource[]);

vi.mock('$lib/sync/streams', async () => {
	const { FakeEventSource } = await import('$lib/timing/test-support');
	return {
		openSignedStream: (url: string) => {
			const source = new FakeEventSource(url);
			opened.push(source);
			return source;
		}
	};
});

const RING_1 = 'http://svc/api/v1/rings/1/timer';
const RING_2 = 'http://svc/api/v1/rings/2/timer';

/** A new app: the module's one Timing, fresh. */
async function freshApp() {
	vi.resetModules();
	opened.length = 0;
	return (await import('./timing.svelte')).timing;
}

/** The service's stream opens and says it has its chronometer. */
function connect(source: FakeEventSource): void {
	source.open();
	source.emit('status', JSON.stringify({ connected: true }));
}

const timingEvent = (source: FakeEventSource, event: object) =>
	source.emit('timing', JSON.stringify(event));

beforeEach(() => {
	vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
	vi.useRealTimers();
});

describe('the ring timer stream on this device', () => {
	it('is opened once for every screen of a ring, and closed 2 s after the last one leaves', async () => {
		const timing = await freshApp();
		const board = timing.follow(RING_1);
		const capture = timing.follow(RING_1);
		expect(opened.map((s) => s.url)).toEqual([RING_1]);
		expect(timing.source).toBe('gates');
		board();
		board(); // a second release of the same screen changes nothing
		capture();
		vi.advanceTimersByTime(1_999);
		expect(opened[0]!.closed).toBe(false);
		// The next dog's screen follows within the grace: the same stream goes on.
		const next = timing.follow(RING_1);
		vi.advanceTimersByTime(5_000);
		expect(opened).toHaveLength(1);
		expect(opened[0]!.closed).toBe(false);
		next();
		vi.advanceTimersByTime(2_000);
		expect(opened[0]!.closed).toBe(true);
		expect(timing.source).toBeNull();
	});

	it('offers a stop to the dog that was on screen from the start to the stop', async () => {
		const timing = await freshApp();
		timing.follow(RING_1);
		connect(opened[0]!);
		timing.showDog(12);
		timingEvent(opened[0]!, { type: 'start' });
		expect(timing.state.phase).toBe('running');
		timingEvent(opened[0]!, { type: 'stop', elapsed: 3863 });
		expect(timing.state.phase).toBe('stopped');
		expect(timing.shownTime).toBe(3863);
		expect(heldStops(timing.state)).toEqual([]);
		expect(timing.state.stops.at(-1)).toMatchObject({ assignedTo: 12, elapsed: 3863 });
	});

	it("sets another ring's held stops aside when the steward moves to a screen of a new ring", async () => {
		const timing = await freshApp();
		const ring1 = timing.follow(RING_1);
		connect(opened[0]!);
		// No dog on screen: the stop is held for the steward.
		timingEvent(opened[0]!, { type: 'start' });
		timingEvent(opened[0]!, { type: 'stop', elapsed: 4010 });
		const [held] = heldStops(timing.state);
		expect(held).toMatchObject({ elapsed: 4010 });
		ring1();
		timing.follow(RING_2);
		expect(opened.map((s) => [s.url, s.closed])).toEqual([
			[RING_1, true],
			[RING_2, false]
		]);
		expect(heldStops(timing.state)).toEqual([]);
		expect(timing.used.has(held!.seq)).toBe(true);
		// The dog on screen on ring 2 cannot be given ring 1's time.
		expect(() => timing.assign(held!.seq, 30)).toThrow();
	});

	it('forgets a run in progress when nothing follows the gates any more', async () => {
		const timing = await freshApp();
		const release = timing.follow(RING_1);
		connect(opened[0]!);
		timing.showDog(12);
		timingEvent(opened[0]!, { type: 'start' });
		expect(timing.state.phase).toBe('running');
		release();
		vi.advanceTimersByTime(2_000);
		expect(timing.state.phase).toBe('idle');
		expect(timing.state.run).toBeNull();
	});

	it('asks a refused stream again from the next screen (the phone may have joined meanwhile)', async () => {
		const timing = await freshApp();
		timing.follow(RING_1);
		opened[0]!.status = 401;
		opened[0]!.fail(2);
		expect(timing.problem).toBe('stream-unauthorized');
		// Nothing asks again by itself: a refused stream is not retried in a loop.
		expect(opened).toHaveLength(1);
		timing.follow(RING_1);
		expect(opened).toHaveLength(2);
		expect(opened[0]!.closed).toBe(true);
		connect(opened[1]!);
		expect(timing.problem).toBeNull();
		expect(timing.state.connection).toBe('connected');
	});

	it('says the chronometer is lost when the ring laptop loses it, and a stop after that is held', async () => {
		const timing = await freshApp();
		timing.follow(RING_1);
		connect(opened[0]!);
		timing.showDog(12);
		timingEvent(opened[0]!, { type: 'start' });
		opened[0]!.emit('status', JSON.stringify({ connected: false, detail: 'serial port closed' }));
		expect(timing.problem).toBe('chronometer-lost');
		expect(timing.detail).toBe('serial port closed');
		opened[0]!.emit('status', JSON.stringify({ connected: true }));
		timingEvent(opened[0]!, { type: 'stop', elapsed: 3990 });
		// The gates may have missed something meanwhile: the steward decides.
		expect(heldStops(timing.state)).toHaveLength(1);
		expect(heldStops(timing.state)[0]).toMatchObject({ elapsed: 3990, assignedTo: null });
	});

	it('keeps the hand stopwatch preference of this device', async () => {
		const first = await freshApp();
		await first.load();
		expect(first.stopwatchOn).toBe(false);
		await first.setStopwatch(true);
		const later = await freshApp();
		await later.load();
		expect(later.stopwatchOn).toBe(true);
	});
});
