import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimingError } from './errors';
import type { TimingEvent } from '../contract/timing-events';
import {
	countdownLeft,
	displayTime,
	heldStops,
	initialClock,
	offerFor,
	RunClock,
	step,
	type ClockInput,
	type ClockState,
	type StopFlag
} from './run-clock';

/** Feeds inputs one per 100 ms from t = 0; returns the state after the last. */
function run(inputs: ClockInput[], from: ClockState = initialClock()): ClockState {
	return inputs.reduce((state, input, i) => step(state, input, i * 100), from);
}

const dog = (dogRunId: number | null): ClockInput => ({ type: 'dog-on-screen', dogRunId });
const start: ClockInput = { type: 'start' };
const stop = (elapsed?: number, flag?: 'no-start' | 'before-start'): ClockInput => {
	const e: TimingEvent = { type: 'stop' };
	if (elapsed !== undefined) e.elapsed = elapsed;
	if (flag !== undefined) e.flag = flag;
	return e;
};

describe('run clock: which dog a stop goes to', () => {
	it('offers a clean stop to the dog that was on screen at the start and still is', () => {
		const s = run([{ type: 'connected' }, dog(7), start, stop(3863)]);
		expect(s.phase).toBe('stopped');
		expect(offerFor(s, 7)).toEqual({ seq: 1, elapsed: 3863 });
		expect(heldStops(s)).toEqual([]);
	});

	type Case = [string, ClockInput[], StopFlag[]];
	const cases: Case[] = [
		['another dog on screen when it stops', [dog(7), start, dog(8), stop(3863)], []],
		['no dog on screen at the start', [start, dog(8), stop(3863)], []],
		['no start seen', [dog(7), stop(3863)], ['no-start']],
		['the parser saw no start', [dog(7), start, stop(3863, 'no-start')], ['no-start']],
		['a stop before the start', [dog(7), start, stop(undefined, 'before-start')], ['before-start']],
		['a bare STOP', [dog(7), start, stop()], ['no-time']],
		[
			'a stop shorter than an intermediate',
			[dog(7), start, { type: 'intermediate', elapsed: 2000 }, stop(1500)],
			['clock-wrapped']
		],
		[
			'a sensor failed during the run',
			[dog(7), start, { type: 'fail' }, stop(3863)],
			['after-fail']
		],
		[
			'the cable was pulled during the run',
			[dog(7), start, { type: 'disconnected' }, { type: 'connected' }, stop(3863)],
			['after-disconnect']
		],
		[
			// The phone's connection dropped; once back, the service replays the run it missed
			// (start and stop) before it says connected again: not a run this screen saw.
			'the start and stop are replayed after the connection was lost',
			[{ type: 'connected' }, dog(7), { type: 'disconnected' }, start, stop(3863)],
			['after-disconnect']
		],
		[
			'the start is replayed, the stop comes live',
			[
				{ type: 'connected' },
				dog(7),
				{ type: 'disconnected' },
				start,
				{ type: 'connected' },
				stop(3863)
			],
			['after-disconnect']
		],
		[
			'the run was joined after its start',
			[dog(7), { type: 'intermediate', elapsed: 1000 }, stop(3863)],
			['no-start']
		]
	];
	it.each(cases)('holds the stop when %s', (_name, inputs, flags) => {
		const s = run(inputs);
		expect(offerFor(s, 7)).toBeNull();
		expect(offerFor(s, 8)).toBeNull();
		const held = heldStops(s);
		expect(held).toHaveLength(1);
		expect(held[0]?.flags).toEqual(flags);
	});

	it('remembers the dog the run started for, for the steward to see', () => {
		const s = run([dog(7), start, dog(8), stop(3863)]);
		expect(heldStops(s)[0]).toMatchObject({ startedFor: 7, elapsed: 3863, assignedTo: null });
	});

	it('offers again to the dog when the steward comes back to it, never to the next dog', () => {
		let s = run([dog(7), start, stop(3863), dog(8)]);
		expect(offerFor(s, 8)).toBeNull();
		s = step(s, dog(7), 1000);
		expect(offerFor(s, 7)?.elapsed).toBe(3863);
	});

	it('puts a held stop on the dog the steward assigns it to', () => {
		let s = run([dog(7), start, dog(8), stop(3863)]);
		s = step(s, { type: 'assign', seq: 1, dogRunId: 7 }, 1000);
		expect(heldStops(s)).toEqual([]);
		expect(offerFor(s, 7)).toEqual({ seq: 1, elapsed: 3863 });
		expect(s.stop?.assignedTo).toBe(7);
	});

	it('never assigns a stop without a time; it can be dismissed', () => {
		let s = run([dog(7), start, stop()]);
		s = step(s, { type: 'assign', seq: 1, dogRunId: 7 }, 1000);
		expect(offerFor(s, 7)).toBeNull();
		s = step(s, { type: 'dismiss', seq: 1 }, 1100);
		expect(heldStops(s)).toEqual([]);
	});
});

describe('run clock: bad input from the chronometer', () => {
	it('never lets a second stop overwrite the first: it is held, flagged', () => {
		const s = run([dog(7), start, stop(3863), stop(4100)]);
		expect(offerFor(s, 7)).toEqual({ seq: 1, elapsed: 3863 });
		expect(s.stop?.elapsed).toBe(3863);
		expect(heldStops(s)).toMatchObject([{ seq: 2, elapsed: 4100, flags: ['second-stop'] }]);
	});

	it('ignores a repeated identical stop line', () => {
		const s = run([dog(7), start, stop(3863), stop(3863)]);
		expect(s.duplicates).toBe(1);
		expect(heldStops(s)).toEqual([]);
	});

	it('says the cable was pulled, mid-run, and keeps the run running', () => {
		const s = run([dog(7), start, { type: 'disconnected', problem: 'read-failed' }]);
		expect(s).toMatchObject({
			phase: 'running',
			connection: 'disconnected',
			connectionProblem: 'read-failed',
			run: { interrupted: true }
		});
	});

	it('goes to failed when a sensor fails mid-run, and back to ready on OK', () => {
		let s = run([dog(7), start, { type: 'fail' }]);
		expect(s.phase).toBe('failed');
		expect(s.sensor).toBe('fail');
		s = step(s, { type: 'ready' }, 1000);
		expect(s.sensor).toBe('ok');
	});

	it('resets to idle, keeping held stops for the steward', () => {
		const s = run([dog(7), start, dog(8), stop(3863), { type: 'reset' }]);
		expect(s.phase).toBe('idle');
		expect(s.run).toBeNull();
		expect(heldStops(s)).toHaveLength(1);
	});

	it('counts a run that never stopped when the next one starts', () => {
		const s = run([dog(7), start, dog(8), start]);
		expect(s.lostRuns).toBe(1);
		expect(s.run?.startedFor).toBe(8);
	});

	it('shows the last garbage line without changing the run', () => {
		const s = run([dog(7), start, { type: 'garbage', line: 'ST?P', reason: 'noise' }]);
		expect(s.phase).toBe('running');
		expect(s.garbage).toMatchObject({ line: 'ST?P', reason: 'noise' });
	});
});

describe('run clock: what the screen shows', () => {
	it('shows the running time from the monotonic clock, truncated, then the stop', () => {
		let s = step(initialClock(), start, 1000);
		expect(displayTime(s, 39_639)).toBe(3863);
		s = step(s, stop(3862), 39_700);
		expect(displayTime(s, 50_000)).toBe(3862);
	});

	it('estimates the running time of a run joined at an intermediate', () => {
		const s = step(initialClock(), { type: 'intermediate', elapsed: 1000 }, 50_000);
		expect(displayTime(s, 55_000)).toBe(1500);
	});

	it('counts the start countdown down, and a start ends it', () => {
		let s = step(initialClock(), { type: 'countdown', seconds: 15 }, 0);
		expect(countdownLeft(s, 0)).toBe(15);
		expect(countdownLeft(s, 10_001)).toBe(5);
		expect(countdownLeft(s, 15_000)).toBeNull();
		s = step(s, start, 3000);
		expect(countdownLeft(s, 3000)).toBeNull();
	});
});

describe('RunClock', () => {
	it('assigns the oldest held stop and returns its time', () => {
		let t = 0;
		const clock = new RunClock(() => (t += 100));
		const seen: string[] = [];
		clock.subscribe((s) => seen.push(s.phase));
		clock.showDog(7);
		clock.feed({ type: 'start' });
		clock.showDog(8);
		clock.feed({ type: 'stop', elapsed: 3863 });
		expect(clock.assign(7)).toEqual({ seq: 1, elapsed: 3863 });
		expect(offerFor(clock.state, 7)?.elapsed).toBe(3863);
		expect(seen).toContain('stopped');
	});

	it('throws coded errors: no held stop, no time', () => {
		const clock = new RunClock(() => 0);
		expect(() => clock.assign(7)).toThrow(TimingError);
		clock.feed({ type: 'stop' });
		expect(() => clock.assign(7)).toThrowError(expect.objectContaining({ code: 'no-time' }));
	});
});

describe('run clock properties', () => {
	const dogId = fc.constantFrom(1, 2, 3, null);
	const input: fc.Arbitrary<ClockInput> = fc.oneof(
		dogId.map((d) => dog(d)),
		fc.constantFrom<ClockInput>(
			{ type: 'start' },
			{ type: 'fail' },
			{ type: 'ready' },
			{ type: 'reset' },
			{ type: 'disconnected' },
			{ type: 'connected' },
			{ type: 'stop' }
		),
		fc.nat({ max: 10_000 }).map((elapsed): ClockInput => ({ type: 'stop', elapsed })),
		fc.nat({ max: 10_000 }).map((elapsed): ClockInput => ({ type: 'intermediate', elapsed })),
		fc
			.nat({ max: 10_000 })
			.map((elapsed): ClockInput => ({ type: 'stop', elapsed, flag: 'no-start' }))
	);

	it('only ever offers a clean stop, to the dog on screen at its start and at its arrival', () => {
		fc.assert(
			fc.property(fc.array(input, { maxLength: 40 }), (inputs) => {
				let s = initialClock();
				inputs.forEach((i, n) => {
					const before = s;
					s = step(s, i, n * 100);
					if (i.type !== 'stop' || s.stops.length === 0) return;
					const last = s.stops[s.stops.length - 1];
					if (!last || last.seq !== before.nextSeq || last.assignedTo === null) return;
					expect(last.flags).toEqual([]);
					expect(last.assignedTo).toBe(before.dogOnScreen);
					expect(last.assignedTo).toBe(before.run?.startedFor);
				});
			})
		);
	});

	it('never changes the time of the stop that ended a run', () => {
		fc.assert(
			fc.property(fc.array(input, { maxLength: 40 }), (inputs) => {
				let s = initialClock();
				for (const [n, i] of inputs.entries()) {
					const before = s.stop;
					s = step(s, i, n * 100);
					if (before && s.stop?.seq === before.seq) expect(s.stop.elapsed).toBe(before.elapsed);
				}
			})
		);
	});
});
