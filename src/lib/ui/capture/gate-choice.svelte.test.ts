import { flushSync } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimingErrorCode } from '$lib/timing/errors';
import { RunClock, type ClockInput, type ClockState } from '$lib/timing/run-clock';
import { CaptureForm } from './capture-form.svelte';
import { GateChoice, type TimingLike } from './gate-choice.svelte';
import { timingView } from './timing-view';

/** The device's timing as the capture screen sees it, fed by the test through a real run clock. */
class FakeTiming implements TimingLike {
	readonly #clock = new RunClock();
	state = $state.raw<ClockState>(this.#clock.state);
	used = new Set<number>();
	source = $state<string | null>('gates');
	problem = $state<TimingErrorCode | null>(null);
	stopwatchOn = $state(false);
	stopwatchRunning = false;
	feed(...inputs: ClockInput[]) {
		for (const input of inputs) this.state = this.#clock.feed(input);
		flushSync();
	}
	showDog(id: number | null) {
		this.feed({ type: 'dog-on-screen', dogRunId: id });
	}
	assign(seq: number, dogRunId: number): number {
		const { elapsed } = this.#clock.assign(dogRunId, seq);
		this.state = this.#clock.state;
		return elapsed;
	}
	dismiss(seq: number) {
		this.used.add(seq);
		this.state = this.#clock.feed({ type: 'dismiss', seq } as ClockInput);
	}
	tapStopwatch() {}
	resetStopwatch() {}
}

const cleanups: Array<() => void> = [];
afterEach(() => {
	while (cleanups.length) cleanups.pop()!();
});

function setUp() {
	const timing = new FakeTiming();
	const form = new CaptureForm();
	const screen = $state({ dog: 7, ready: true, saving: false });
	let choice!: GateChoice;
	cleanups.push(
		$effect.root(() => {
			choice = new GateChoice({
				timing,
				form,
				dog: () => screen.dog,
				ready: () => screen.ready,
				saving: () => screen.saving,
				format: (s) => s.toFixed(2).replace('.', ',')
			});
		})
	);
	form.load(
		{ time: null, faults: 0, refusals: 0, disqualified: false, absence: false },
		null,
		String
	);
	timing.feed({ type: 'connected' });
	timing.showDog(7);
	return { timing, form, screen, choice };
}

describe('GateChoice', () => {
	it('fills Time from the gates for the dog on screen from start to stop, marked from the gates', () => {
		const { timing, form, choice } = setUp();
		timing.feed({ type: 'start' }, { type: 'stop', elapsed: 3863 });
		expect(form.timeText).toBe('38,63');
		expect(choice.fromGate).toBe('gates');
		expect(choice.ask).toBeNull();
	});

	it('never replaces a typed time: it asks, and Keep decides the stop for good', () => {
		const { timing, form, choice } = setUp();
		form.press('4', ',');
		form.press('0', ',');
		timing.feed({ type: 'start' }, { type: 'stop', elapsed: 3863 });
		expect(form.timeText).toBe('40');
		expect(choice.ask).toEqual({ seq: 1, elapsed: 3863 });
		choice.keepTyped(1);
		expect(choice.ask).toBeNull();
		expect(timing.used.has(1)).toBe(true);
	});

	it('Use takes the gates’ time over a typed one', () => {
		const { timing, form, choice } = setUp();
		form.press('4', ',');
		timing.feed({ type: 'start' }, { type: 'stop', elapsed: 3863 });
		choice.fill(choice.ask!);
		expect(form.timeText).toBe('38,63');
		expect(choice.fromGate).toBe('gates');
	});

	it('leaving without saving and coming back fills the time again; after a save it does not', () => {
		const { timing, form, screen, choice } = setUp();
		timing.feed({ type: 'start' }, { type: 'stop', elapsed: 3863 });
		expect(form.timeText).toBe('38,63');
		// Another dog, then back to this one: a new visit.
		form.load(
			{ time: null, faults: 0, refusals: 0, disqualified: false, absence: false },
			null,
			String
		);
		choice.reset();
		screen.dog = 7;
		timing.showDog(7);
		flushSync();
		expect(form.timeText).toBe('38,63');
		choice.saved();
		form.load(
			{ time: null, faults: 0, refusals: 0, disqualified: false, absence: false },
			null,
			String
		);
		choice.reset();
		timing.showDog(7);
		expect(form.timeText).toBe('');
	});

	it('waits while a save is under way', () => {
		const { timing, form, screen } = setUp();
		screen.saving = true;
		timing.feed({ type: 'start' }, { type: 'stop', elapsed: 3863 });
		expect(form.timeText).toBe('');
		screen.saving = false;
		flushSync();
		expect(form.timeText).toBe('38,63');
	});

	it('holds a stop whose run started for another dog, and puts it here on one tap', () => {
		const { timing, form, screen, choice } = setUp();
		timing.feed({ type: 'start' });
		// The steward moved on during the run.
		screen.dog = 8;
		timing.showDog(8);
		timing.feed({ type: 'stop', elapsed: 4100 });
		expect(form.timeText).toBe('');
		expect(choice.held.map((s) => s.seq)).toEqual([1]);
		expect(choice.startedFor).toBe(7);
		choice.putHere(1);
		expect(form.timeText).toBe('41,00');
	});

	it('sets every held stop aside at once', () => {
		const { timing, choice, screen } = setUp();
		screen.dog = 9;
		timing.showDog(null);
		timing.feed(
			{ type: 'start' },
			{ type: 'stop', elapsed: 1 },
			{ type: 'start' },
			{ type: 'stop', elapsed: 2 }
		);
		timing.showDog(9);
		expect(choice.held).toHaveLength(2);
		choice.setAllAside();
		flushSync();
		expect(choice.held).toHaveLength(0);
	});
});

describe('timingView', () => {
	const facts = {
		ready: true,
		phase: 'idle',
		runFor: null,
		dogOnScreen: 7,
		source: 'gates',
		problem: null,
		sensorFailed: false,
		timeTyped: false,
		timeText: '',
		absence: false,
		stopwatchOn: false,
		stopwatchRunning: false,
		keypadChosen: false,
		padHold: false
	};

	it('shows the running time in the field’s place until the steward types', () => {
		expect(timingView({ ...facts, phase: 'running', runFor: 7 }).showClock).toBe(true);
		expect(timingView({ ...facts, phase: 'running', runFor: 7, timeTyped: true }).showClock).toBe(
			false
		);
		expect(timingView({ ...facts, phase: 'running', ready: false }).showClock).toBe(false);
	});

	it('names another dog’s run, a failed sensor and a lost connection, the connection first', () => {
		expect(timingView({ ...facts, phase: 'running', runFor: 8 }).note).toEqual({
			kind: 'other-dog'
		});
		expect(timingView({ ...facts, sensorFailed: true }).note).toEqual({ kind: 'sensor-failed' });
		expect(
			timingView({ ...facts, sensorFailed: true, problem: 'stream-refused' as TimingErrorCode })
				.note
		).toEqual({ kind: 'problem', code: 'stream-refused' });
		expect(timingView({ ...facts, source: null, sensorFailed: true }).note).toBeNull();
	});

	it.each([
		[{ stopwatchOn: true, source: null }, true],
		[{ stopwatchOn: true, source: null, timeText: '38,63' }, false],
		[{ stopwatchOn: true, source: null, timeText: '38,63', stopwatchRunning: true }, true],
		[{ stopwatchOn: true, source: 'gates' }, false],
		[{ stopwatchOn: true, source: null, keypadChosen: true }, false],
		[{ stopwatchOn: true, source: null, absence: true }, false],
		[{ stopwatchOn: false, source: null }, false],
		[{ padHold: true }, true]
	])('the stopwatch takes the keypad’s place with %o: %s', (more, shown) => {
		expect(timingView({ ...facts, ...more }).showStopwatch).toBe(shown);
	});
});
