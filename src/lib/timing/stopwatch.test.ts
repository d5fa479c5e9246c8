import { describe, expect, it } from 'vitest';
import type { TimingEvent } from '../contract/timing-events';
import { Stopwatch } from './stopwatch';

function clockAt(...times: number[]): () => number {
	let i = 0;
	return () => times[Math.min(i++, times.length - 1)] ?? 0;
}

describe('Stopwatch', () => {
	it('starts on a tap and stops on the next, truncating to hundredths', () => {
		const events: TimingEvent[] = [];
		const watch = new Stopwatch({ now: clockAt(1000.4, 39_639.9), onEvent: (e) => events.push(e) });
		watch.tap();
		watch.tap();
		expect(events).toEqual([{ type: 'start' }, { type: 'stop', elapsed: 3863 }]);
	});

	it('ignores a double tap after the start and after the stop', () => {
		let t = 0;
		const watch = new Stopwatch({ now: () => t });
		expect(watch.tap()).toEqual({ type: 'start' });
		t = 120;
		expect(watch.tap()).toBeNull();
		expect(watch.running).toBe(true);
		t = 38_630;
		expect(watch.tap()).toEqual({ type: 'stop', elapsed: 3863 });
		t = 38_900;
		expect(watch.tap()).toBeNull();
		expect(watch.running).toBe(false);
		t = 38_930;
		expect(watch.tap()).toEqual({ type: 'start' });
	});

	it('shows the running time, truncated, and resets without a time', () => {
		let t = 0;
		const watch = new Stopwatch({ now: () => t });
		expect(watch.elapsed()).toBeNull();
		watch.tap();
		t = 12_349;
		expect(watch.elapsed()).toBe(1234);
		expect(watch.reset()).toEqual({ type: 'reset' });
		expect(watch.running).toBe(false);
		expect(watch.tap()).toEqual({ type: 'start' });
	});
});
