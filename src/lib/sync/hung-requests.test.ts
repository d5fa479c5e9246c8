import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../api/hal-client';
import { HungRequests } from './hung-requests';

class FakeClock {
	time = 1_000_000;
	readonly timers = new Map<number, { at: number; fn: () => void }>();
	#next = 1;
	now = (): number => this.time;
	setTimeout = (fn: () => void, ms: number): unknown => {
		const id = this.#next++;
		this.timers.set(id, { at: this.time + ms, fn });
		return id;
	};
	clearTimeout = (handle: unknown): void => void this.timers.delete(handle as number);
	advance(ms: number): void {
		const end = this.time + ms;
		for (;;) {
			const due = [...this.timers.entries()]
				.filter(([, t]) => t.at <= end)
				.sort((a, b) => a[1].at - b[1].at)[0];
			if (!due) break;
			this.timers.delete(due[0]);
			this.time = due[1].at;
			due[1].fn();
		}
		this.time = end;
	}
}

/** A link whose requests never answer (until aborted): what a dropped link does. */
const deadLink: FetchLike = (_input, init) =>
	new Promise((_resolve, reject) => {
		init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
	});

function setUp() {
	const clock = new FakeClock();
	const suspects: number[] = [];
	const hung = new HungRequests({
		hangAfterMs: 2_000,
		onSuspect: () => suspects.push(clock.time),
		clock
	});
	const fetch = hung.wrap(deadLink);
	const send = () => {
		const outcome = { settled: false, error: null as unknown };
		fetch('http://upstream.example/api/v1/dogRuns/1', {}).catch((e: unknown) => {
			outcome.settled = true;
			outcome.error = e;
		});
		return outcome;
	};
	/** An answer of the service to a request sent at `startedAt`, known now. */
	const answered = (startedAt: number, status = 200) =>
		hung.observe({ startedAt, at: clock.time, status });
	return { clock, hung, suspects, send, answered };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('HungRequests', () => {
	it('asks the prober to look once a request has gone unanswered for hangAfterMs', () => {
		const { clock, suspects, send } = setUp();
		send();
		clock.advance(1_999);
		expect(suspects).toEqual([]);
		clock.advance(1);
		expect(suspects).toEqual([1_002_000]);
	});

	it('ends a suspect request when a request sent after it is answered, as a network failure', async () => {
		const { clock, hung, send, answered } = setUp();
		const lost = send();
		clock.advance(2_500);
		// The probe went at 2.0 s and is answered now: the link works, the old request is lost.
		answered(1_002_000);
		await settle();
		expect(lost.settled).toBe(true);
		expect(String(lost.error)).toMatch(/no answer while the service answered others/);
		expect(hung.aborted).toBe(1);
	});

	it('leaves alone a request younger than the bar, and one sent after the answered one', async () => {
		const { clock, hung, send, answered } = setUp();
		clock.advance(100);
		const young = send();
		clock.advance(1_000);
		answered(clock.time - 50);
		await settle();
		expect(young.settled).toBe(false);
		clock.advance(5_000);
		// An answer to a request sent before `young` says nothing of it.
		answered(1_000_000);
		await settle();
		expect(young.settled).toBe(false);
		expect(hung.aborted).toBe(0);
	});

	it('is no answer: a refused probe (network) or a sign-in page revives nothing', async () => {
		const { clock, hung, send } = setUp();
		const lost = send();
		clock.advance(3_000);
		hung.observe({ startedAt: clock.time - 100, at: clock.time, code: 'network' });
		hung.observe({ startedAt: clock.time - 100, at: clock.time, status: 200, code: 'not-json' });
		await settle();
		expect(lost.settled).toBe(false);
		expect(hung.aborted).toBe(0);
	});

	it('learns a slow service: the bar is three times its slowest answer, and doubles after an abort', async () => {
		const { clock, hung, send, answered } = setUp();
		expect(hung.barMs).toBe(2_000);
		// A PUT took 1.5 s: the bar rises to 4.5 s.
		hung.observe({ startedAt: clock.time - 1_500, at: clock.time, status: 200 });
		expect(hung.barMs).toBe(4_500);
		const slow = send();
		clock.advance(4_000);
		answered(clock.time - 10);
		await settle();
		expect(slow.settled).toBe(false);
		clock.advance(600);
		answered(clock.time - 10);
		await settle();
		expect(slow.settled).toBe(true);
		expect(hung.barMs).toBe(4_500);
	});

	it('doubles its bar after each abort, and is back at its base after a quiet minute', async () => {
		const { clock, hung, send, answered } = setUp();
		const first = send();
		clock.advance(2_100);
		answered(clock.time - 10);
		await settle();
		expect(first.settled).toBe(true);
		expect(hung.barMs).toBe(4_000);
		const second = send();
		clock.advance(4_100);
		answered(clock.time - 10);
		await settle();
		expect(second.settled).toBe(true);
		expect(hung.barMs).toBe(8_000);
		clock.advance(61_000);
		expect(hung.barMs).toBe(2_000);
	});

	it('forgets a request once it settles: no suspect timer is left behind', async () => {
		const clock = new FakeClock();
		const hung = new HungRequests({ hangAfterMs: 2_000, onSuspect: () => {}, clock });
		const fetch = hung.wrap(async () => new Response('{}'));
		await fetch('http://upstream.example/', {});
		expect(clock.timers.size).toBe(0);
	});
});
