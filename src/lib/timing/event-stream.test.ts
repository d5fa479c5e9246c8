import { describe, expect, it } from 'vitest';
import type { TimingEvent } from '../contract/timing-events';
import { timerHref, TimerStream, type StreamStatus } from './event-stream';
import { FakeEventSource } from './test-support';

function follow() {
	const sources: FakeEventSource[] = [];
	const events: TimingEvent[] = [];
	const statuses: StreamStatus[] = [];
	const stream = new TimerStream({
		open: (url) => {
			const s = new FakeEventSource(url);
			sources.push(s);
			return s;
		},
		onEvent: (e) => events.push(e),
		onStatus: (s) => statuses.push(s)
	});
	return { stream, sources, events, statuses };
}

describe('timerHref', () => {
	it('finds the timer link of a ring, never assumes one', () => {
		expect(timerHref({ _links: { timer: { href: '/api/v1/rings/2/timer' } } })).toBe(
			'/api/v1/rings/2/timer'
		);
		expect(timerHref({ _links: {} })).toBeUndefined();
		expect(timerHref({})).toBeUndefined();
	});
});

describe('TimerStream', () => {
	it('relays timing events, validated, without the service fields', () => {
		const { stream, sources, events } = follow();
		stream.connect('/timer');
		const s = sources[0]!;
		expect(s.url).toBe('/timer');
		s.open();
		s.emit('timing', JSON.stringify({ type: 'start', receivedAt: 1 }));
		s.emit('timing', JSON.stringify({ type: 'stop', elapsed: 3863, receivedAt: 2 }));
		s.emit('timing', JSON.stringify({ type: 'stop', elapsed: 38.63 }));
		s.emit('timing', JSON.stringify({ type: 'stop', elapsed: -1 }));
		s.emit('timing', JSON.stringify({ type: 'launch' }));
		s.emit('timing', 'not json');
		expect(events).toEqual([{ type: 'start' }, { type: 'stop', elapsed: 3863 }]);
	});

	it('is connected only when the stream is open and the service has its chronometer', () => {
		const { stream, sources, statuses } = follow();
		stream.connect('/timer');
		const s = sources[0]!;
		s.open();
		expect(statuses).toEqual([]);
		s.emit('status', JSON.stringify({ connected: true, source: 'serial', detail: 'ok', since: 1 }));
		s.emit('status', JSON.stringify({ connected: false, detail: 'cable', since: 2 }));
		s.fail(0);
		s.fail(0);
		s.open();
		s.emit('status', JSON.stringify({ connected: true, detail: 'ok', since: 3 }));
		expect(statuses).toEqual([
			{ connected: true, detail: 'ok' },
			{ connected: false, problem: 'chronometer-lost', detail: 'cable' },
			{ connected: false, problem: 'stream-lost' },
			// Reopened: nothing until the service says again (after its replay).
			{ connected: true, detail: 'ok' }
		]);
	});

	it('delivers the events replayed after a reconnection before it says connected again', () => {
		const order: string[] = [];
		const sources: FakeEventSource[] = [];
		const stream = new TimerStream({
			open: (url) => {
				const source = new FakeEventSource(url);
				sources.push(source);
				return source;
			},
			onEvent: (e) => order.push(e.type),
			onStatus: (s) => order.push(s.connected ? 'connected' : `lost:${s.problem}`)
		});
		stream.connect('/timer');
		const s = sources[0]!;
		s.open();
		s.emit('status', JSON.stringify({ connected: true }));
		s.fail(0);
		s.open();
		s.emit('timing', JSON.stringify({ type: 'start' }));
		s.emit('timing', JSON.stringify({ type: 'stop', elapsed: 3863 }));
		s.emit('status', JSON.stringify({ connected: true }));
		expect(order).toEqual(['connected', 'lost:stream-lost', 'start', 'stop', 'connected']);
	});

	it('says when the browser gives up on the stream', () => {
		const { stream, sources, statuses } = follow();
		stream.connect('/timer');
		sources[0]!.fail(2);
		expect(statuses).toEqual([{ connected: false, problem: 'stream-refused' }]);
	});

	it('says so when the service refuses the stream to this device (401, 403)', () => {
		for (const status of [401, 403]) {
			const { stream, sources, statuses } = follow();
			stream.connect('/timer');
			sources[0]!.status = status;
			sources[0]!.fail(2);
			expect(statuses).toEqual([{ connected: false, problem: 'stream-unauthorized' }]);
		}
	});

	it('closes the old stream when following another and ignores its late events', () => {
		const { stream, sources, events } = follow();
		stream.connect('/a');
		stream.connect('/b');
		expect(sources[0]!.closed).toBe(true);
		sources[0]!.emit('timing', JSON.stringify({ type: 'start' }));
		expect(events).toEqual([]);
		stream.close();
		expect(sources[1]!.closed).toBe(true);
	});
});
