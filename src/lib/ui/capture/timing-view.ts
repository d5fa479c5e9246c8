/**
 * What the capture screen shows of the timing, decided from what it knows: whether the running
 * time takes the Time field's place, whether the hand stopwatch takes the keypad's, and what the
 * timing has to say about itself. Pure: ./gate-choice passes the facts.
 */
import type { TimingErrorCode } from '$lib/timing/errors';

export interface TimingFacts {
	/** The form of the dog on screen is filled (nothing is shown of another dog). */
	ready: boolean;
	/** The run clock's phase. */
	phase: string;
	/** The dog whose run is under way (null: nobody on screen at its start). */
	runFor: number | null | undefined;
	dogOnScreen: number;
	/** What feeds the clock: gates, a USB chronometer, the stopwatch; null: nothing. */
	source: string | null;
	problem: TimingErrorCode | null;
	sensorFailed: boolean;
	/** The steward typed in the Time field since it was filled. */
	timeTyped: boolean;
	timeText: string;
	absence: boolean;
	stopwatchOn: boolean;
	stopwatchRunning: boolean;
	/** The steward chose the keypad over the stopwatch for this dog. */
	keypadChosen: boolean;
	/** The stopwatch's pad is held a moment after its stop (the tap's click must not hit a key). */
	padHold: boolean;
}

export type TimingNote =
	{ kind: 'problem'; code: TimingErrorCode } | { kind: 'sensor-failed' } | { kind: 'other-dog' };

export interface TimingView {
	running: boolean;
	/** The running time takes the Time field's place until the steward types there. */
	showClock: boolean;
	/** A run is under way for another dog than the one on screen. */
	runningElsewhere: boolean;
	/** The stopwatch's Start / Stop target takes the keypad's place. */
	showStopwatch: boolean;
	/** What the timing has to say (a lost connection, a failed sensor, another dog's run). */
	note: TimingNote | null;
}

export function timingView(f: TimingFacts): TimingView {
	const running = f.ready && (f.phase === 'running' || f.phase === 'failed');
	const runningElsewhere =
		running && f.runFor !== null && f.runFor !== undefined && f.runFor !== f.dogOnScreen;
	const showStopwatch =
		f.padHold ||
		(f.stopwatchOn &&
			f.source === null &&
			!f.keypadChosen &&
			!f.absence &&
			(f.stopwatchRunning || f.timeText === ''));
	let note: TimingNote | null = null;
	if (f.source !== null && f.problem) note = { kind: 'problem', code: f.problem };
	else if (f.sensorFailed && f.source !== null) note = { kind: 'sensor-failed' };
	else if (runningElsewhere) note = { kind: 'other-dog' };
	return { running, showClock: running && !f.timeTyped, runningElsewhere, showStopwatch, note };
}
