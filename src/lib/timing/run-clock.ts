/**
 * The run clock: what the chronometer of one ring is doing, fed by TimingEvents (from any source),
 * the connection's state, the dog the capture screen shows, and the steward's decisions. Pure:
 * `step(state, input, now)` returns the next state; `now` is a monotonic clock in ms
 * (performance.now()), never the wall clock.
 *
 * The rule it exists for: a stop is never put on the wrong dog. A stop is OFFERED to a dog (the
 * capture screen fills Time, marked "from the gates", and the steward confirms with Save & next)
 * only when all of these hold: it has a time; nothing about it is doubtful (no flag); a start was
 * seen for it; and the dog on screen when it arrived is the dog that was on screen when the run
 * started. Any other stop is HELD: shown, with why, until the steward assigns it to a dog or
 * dismisses it. A second stop never overwrites the first.
 *
 * Phases of the run: idle → running (start) → stopped (stop) | failed (a sensor failed mid-run);
 * reset → idle. The connection (connected / disconnected) and the sensors (ok / fail) are
 * reported beside the phase, so that the screen can say "cable pulled" during a run.
 *
 * Long because it is one state machine whose every input can change which dog a stop belongs to;
 * kept in one place, the rule above is checked against all of them (run-clock.test.ts).
 */
import { TimingError } from './errors.ts';
import type { GarbageReason, TimingEvent } from '../contract/timing-events.ts';

export type DogRunId = number;

export type ClockPhase = 'idle' | 'running' | 'stopped' | 'failed';

/** Why a stop is held rather than offered (codes: the UI words them). */
export type StopFlag =
	/** No start was seen for it: the time may be the chronometer's clock, not the run's. */
	| 'no-start'
	/** Its timestamp was earlier than the start's: the chronometer's clock wrapped or restarted. */
	| 'before-start'
	/** The chronometer gave no time with it. */
	| 'no-time'
	/** Its time is shorter than an intermediate time of the same run: the clock wrapped. */
	| 'clock-wrapped'
	/** The run already had a stop: this one is shown, never put in the first one's place. */
	| 'second-stop'
	/** A sensor failed during the run. */
	| 'after-fail'
	/** The connection to the chronometer dropped during the run: events may have been lost. */
	| 'after-disconnect';

export interface HeldStop {
	/** Numbers the stops of this clock, to assign or dismiss one. */
	seq: number;
	/** Hundredths, truncated; null when there is no usable time. */
	elapsed: number | null;
	flags: readonly StopFlag[];
	/** `now` when it arrived. */
	at: number;
	/** The dog on screen when its run started (null: no start seen, or no dog on screen). */
	startedFor: DogRunId | null;
	/** The dog it was offered or assigned to; null while held. */
	assignedTo: DogRunId | null;
	dismissed: boolean;
}

export interface RunState {
	/** `now` at the start (for a run joined late: estimated from an intermediate). */
	startedAt: number;
	startedFor: DogRunId | null;
	/** The start was not seen: joined after it (an intermediate came first). */
	missedStart: boolean;
	/** Last intermediate time, hundredths. */
	intermediate: number | null;
	sensorFailed: boolean;
	/** The connection dropped while it ran. */
	interrupted: boolean;
}

export interface ClockState {
	phase: ClockPhase;
	connection: 'unknown' | 'connected' | 'disconnected';
	/** Code of the last connection problem (e.g. a TimingError code), for the screen. */
	connectionProblem: string | null;
	sensor: 'unknown' | 'ok' | 'fail';
	dogOnScreen: DogRunId | null;
	/** The current (or last) run; null when idle. */
	run: RunState | null;
	/** The stop that ended the current run (phase `stopped`). */
	stop: HeldStop | null;
	/** Recent stops, oldest first: every one still held, and the last few decided. */
	stops: readonly HeldStop[];
	/** A second identical stop line was ignored (a chronometer that repeats its stop). */
	duplicates: number;
	/** Running start countdown or course walk. */
	countdown: { startedAt: number; seconds: number } | null;
	walk: { startedAt: number; seconds: number } | null;
	/** Last unreadable line from the chronometer, for the screen. */
	garbage: { line: string; reason: GarbageReason; at: number } | null;
	/** A start came while a run had no stop yet: that run's time is lost. */
	lostRuns: number;
	nextSeq: number;
}

export type ClockInput =
	| TimingEvent
	| { type: 'connected' }
	| { type: 'disconnected'; problem?: string }
	| { type: 'dog-on-screen'; dogRunId: DogRunId | null }
	/** The steward puts a stop on a dog (a held one, or moves an offered one). */
	| { type: 'assign'; seq: number; dogRunId: DogRunId }
	/** The steward sets a held stop aside (the time is typed by hand, or it was noise). */
	| { type: 'dismiss'; seq: number };

/** Decided stops kept for the screen besides the held ones. */
export const KEEP_DECIDED = 5;
/** Held stops kept at most (oldest set aside first): memory stays bounded. */
export const MAX_HELD = 50;
/** The countdown warns when this many seconds or fewer are left. */
export const COUNTDOWN_WARN_S = 5;

export function initialClock(): ClockState {
	return {
		phase: 'idle',
		connection: 'unknown',
		connectionProblem: null,
		sensor: 'unknown',
		dogOnScreen: null,
		run: null,
		stop: null,
		stops: [],
		duplicates: 0,
		countdown: null,
		walk: null,
		garbage: null,
		lostRuns: 0,
		nextSeq: 1
	};
}

/** The next state after `input` at monotonic time `now` (ms). Never throws. */
export function step(state: ClockState, input: ClockInput, now: number): ClockState {
	switch (input.type) {
		case 'ready':
			return { ...state, sensor: 'ok' };
		case 'fail':
			if (state.run && (state.phase === 'running' || state.phase === 'failed')) {
				return {
					...state,
					sensor: 'fail',
					phase: 'failed',
					run: { ...state.run, sensorFailed: true }
				};
			}
			return { ...state, sensor: 'fail' };
		case 'start': {
			const unfinished = state.phase === 'running' || state.phase === 'failed';
			// A start while the connection is down is one replayed after it came back: when it
			// really happened, and for which dog, is not known.
			const blind = state.connection === 'disconnected';
			return {
				...state,
				phase: 'running',
				run: {
					startedAt: now,
					startedFor: blind ? null : state.dogOnScreen,
					missedStart: false,
					intermediate: null,
					sensorFailed: state.sensor === 'fail',
					interrupted: blind
				},
				stop: null,
				countdown: null,
				lostRuns: state.lostRuns + (unfinished ? 1 : 0)
			};
		}
		case 'intermediate': {
			if (state.run && (state.phase === 'running' || state.phase === 'failed')) {
				return { ...state, run: { ...state.run, intermediate: input.elapsed } };
			}
			// Joined mid-run (the start came before this screen listened): the running time is
			// known from the intermediate, but not the dog it started for.
			return {
				...state,
				phase: 'running',
				run: {
					startedAt: now - input.elapsed * 10,
					startedFor: null,
					missedStart: true,
					intermediate: input.elapsed,
					sensorFailed: state.sensor === 'fail',
					interrupted: false
				},
				stop: null,
				countdown: null
			};
		}
		case 'stop':
			return onStop(state, input, now);
		case 'reset':
			return { ...state, phase: 'idle', run: null, stop: null, countdown: null };
		case 'countdown':
			return {
				...state,
				countdown: input.seconds > 0 ? { startedAt: now, seconds: input.seconds } : null
			};
		case 'walk':
			return {
				...state,
				walk: input.seconds > 0 ? { startedAt: now, seconds: input.seconds } : null
			};
		case 'garbage':
			return { ...state, garbage: { line: input.line, reason: input.reason, at: now } };
		case 'connected':
			return { ...state, connection: 'connected', connectionProblem: null };
		case 'disconnected': {
			const running = state.run && (state.phase === 'running' || state.phase === 'failed');
			return {
				...state,
				connection: 'disconnected',
				connectionProblem: input.problem ?? null,
				run: running && state.run ? { ...state.run, interrupted: true } : state.run
			};
		}
		case 'dog-on-screen':
			return { ...state, dogOnScreen: input.dogRunId };
		case 'assign':
			return updateStop(state, input.seq, (s) =>
				s.elapsed === null ? s : { ...s, assignedTo: input.dogRunId, dismissed: false }
			);
		case 'dismiss':
			return updateStop(state, input.seq, (s) => ({ ...s, dismissed: true }));
		default:
			return state;
	}
}

function onStop(
	state: ClockState,
	input: Extract<TimingEvent, { type: 'stop' }>,
	now: number
): ClockState {
	const elapsed = input.elapsed ?? null;
	const run = state.run;
	if (state.phase === 'stopped' && state.stop) {
		// A chronometer that repeats its stop line: the same time again is no news.
		if (elapsed !== null && elapsed === state.stop.elapsed && input.flag === undefined) {
			return { ...state, duplicates: state.duplicates + 1 };
		}
		const second = makeStop(state, elapsed, ['second-stop', ...stopFlags(input, run)], now);
		return withStop(state, { ...second, startedFor: run?.startedFor ?? null });
	}
	const active = run && (state.phase === 'running' || state.phase === 'failed') ? run : null;
	const flags = stopFlags(input, active);
	// A stop while the connection is down is a replayed one: it ended a run nobody saw end here.
	if (state.connection === 'disconnected' && !flags.includes('after-disconnect')) {
		flags.push('after-disconnect');
	}
	const held = makeStop(state, elapsed, flags, now);
	const startedFor = active?.startedFor ?? null;
	const offered =
		flags.length === 0 &&
		elapsed !== null &&
		startedFor !== null &&
		startedFor === state.dogOnScreen;
	const stop: HeldStop = { ...held, startedFor, assignedTo: offered ? startedFor : null };
	return { ...withStop(state, stop), phase: 'stopped', stop, countdown: null };
}

/** Everything doubtful about a stop, in a fixed order. */
function stopFlags(
	input: Extract<TimingEvent, { type: 'stop' }>,
	run: RunState | null
): StopFlag[] {
	const flags: StopFlag[] = [];
	if (input.flag === 'before-start') flags.push('before-start');
	else if (input.elapsed === undefined) flags.push('no-time');
	if (input.flag === 'no-start' || !run || run.missedStart) flags.push('no-start');
	if (
		run &&
		run.intermediate !== null &&
		input.elapsed !== undefined &&
		input.elapsed < run.intermediate
	) {
		flags.push('clock-wrapped');
	}
	if (run?.sensorFailed) flags.push('after-fail');
	if (run?.interrupted) flags.push('after-disconnect');
	return flags;
}

function makeStop(
	state: ClockState,
	elapsed: number | null,
	flags: StopFlag[],
	now: number
): HeldStop {
	return {
		seq: state.nextSeq,
		elapsed,
		flags,
		at: now,
		startedFor: null,
		assignedTo: null,
		dismissed: false
	};
}

/** Adds a stop to the list, keeping every held one (up to MAX_HELD) and the last decided ones. */
function withStop(state: ClockState, stop: HeldStop): ClockState {
	return { ...state, stops: prune([...state.stops, stop]), nextSeq: state.nextSeq + 1 };
}

function prune(stops: readonly HeldStop[]): HeldStop[] {
	const held = stops.filter(isHeld);
	const decided = stops.filter((s) => !isHeld(s));
	const keepHeld = new Set(held.slice(-MAX_HELD));
	const keepDecided = new Set(decided.slice(-KEEP_DECIDED));
	return stops.filter((s) => keepHeld.has(s) || keepDecided.has(s));
}

function updateStop(
	state: ClockState,
	seq: number,
	change: (stop: HeldStop) => HeldStop
): ClockState {
	const index = state.stops.findIndex((s) => s.seq === seq);
	const found = state.stops[index];
	if (!found) return state;
	const updated = change(found);
	if (updated === found) return state;
	const stops = prune(state.stops.map((s) => (s.seq === seq ? updated : s)));
	return { ...state, stops, stop: state.stop?.seq === seq ? updated : state.stop };
}

function isHeld(stop: HeldStop): boolean {
	return stop.assignedTo === null && !stop.dismissed;
}

/** The stops waiting for the steward, oldest first. */
export function heldStops(state: ClockState): HeldStop[] {
	return state.stops.filter(isHeld);
}

/**
 * The time the capture screen may put on `dogRunId` (the latest stop offered or assigned to it),
 * or null. The steward still confirms with Save & next.
 */
export function offerFor(
	state: ClockState,
	dogRunId: DogRunId | null
): { seq: number; elapsed: number } | null {
	if (dogRunId === null) return null;
	for (let i = state.stops.length - 1; i >= 0; i--) {
		const s = state.stops[i];
		if (s && s.assignedTo === dogRunId && !s.dismissed && s.elapsed !== null) {
			return { seq: s.seq, elapsed: s.elapsed };
		}
	}
	return null;
}

/** The time to show large, in hundredths: running, or the stop's; null when there is none. */
export function displayTime(state: ClockState, now: number): number | null {
	if ((state.phase === 'running' || state.phase === 'failed') && state.run) {
		return Math.max(0, Math.trunc((now - state.run.startedAt) / 10));
	}
	if (state.phase === 'stopped') return state.stop?.elapsed ?? null;
	return null;
}

/** Whole seconds left of the start countdown (rounded up), or null when none runs or it ended. */
export function countdownLeft(state: ClockState, now: number): number | null {
	return secondsLeft(state.countdown, now);
}

/** Whole seconds left of the course walk, or null. */
export function walkLeft(state: ClockState, now: number): number | null {
	return secondsLeft(state.walk, now);
}

function secondsLeft(t: { startedAt: number; seconds: number } | null, now: number): number | null {
	if (!t) return null;
	const left = Math.ceil((t.startedAt + t.seconds * 1000 - now) / 1000);
	return left > 0 ? left : null;
}

/**
 * The run clock as an object: holds the state, reads the monotonic clock it is given, and tells
 * subscribers of every change (a Svelte `$state` wrapper subscribes).
 */
export class RunClock {
	#state: ClockState = initialClock();
	readonly #now: () => number;
	readonly #listeners = new Set<(state: ClockState) => void>();

	constructor(now: () => number = () => performance.now()) {
		this.#now = now;
	}

	get state(): ClockState {
		return this.#state;
	}

	feed(input: ClockInput): ClockState {
		const next = step(this.#state, input, this.#now());
		if (next !== this.#state) {
			this.#state = next;
			for (const listener of this.#listeners) listener(next);
		}
		return next;
	}

	/** The capture screen shows this dog (null: no dog). */
	showDog(dogRunId: DogRunId | null): void {
		this.feed({ type: 'dog-on-screen', dogRunId });
	}

	/**
	 * Puts a held stop (by default the oldest) on a dog and returns its time for the Time field.
	 * Throws TimingError `unknown-stop` (no such stop held) or `no-time` (type it by hand).
	 */
	assign(dogRunId: DogRunId, seq?: number): { seq: number; elapsed: number } {
		const stop =
			seq === undefined
				? heldStops(this.#state)[0]
				: this.#state.stops.find((s) => s.seq === seq && !s.dismissed);
		if (!stop) throw new TimingError('unknown-stop');
		if (stop.elapsed === null) throw new TimingError('no-time');
		this.feed({ type: 'assign', seq: stop.seq, dogRunId });
		return { seq: stop.seq, elapsed: stop.elapsed };
	}

	dismiss(seq: number): void {
		this.feed({ type: 'dismiss', seq });
	}

	subscribe(listener: (state: ClockState) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}
}
