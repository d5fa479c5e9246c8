/**
 * The capture screen's choice between the gates, the hand stopwatch and the keypad, for the dog on
 * screen: a stop from the gates fills Time for the dog that was on screen from the start to the
 * stop (never another), a time already in the field is never replaced (the steward is asked), a
 * stop that cannot be this dog's is held with why, and the stopwatch takes the keypad's place where
 * the steward wants it. The decisions are pure ($lib/timing/gate-fill, ./timing-view); this is
 * their state for one visit to one dog, and the actions the screen's buttons call.
 *
 * Create during component initialisation: the fill decision is an effect.
 */
import { untrack } from 'svelte';
import type { ClockState, HeldStop } from '$lib/timing/run-clock';
import type { TimingErrorCode } from '$lib/timing/errors';
import { gateFill, hundredthsOf } from '$lib/timing/gate-fill';
import { heldStops, offerFor } from '$lib/timing/run-clock';
import type { CaptureForm } from './capture-form.svelte';
import { timingView, type TimingView } from './timing-view';

/** What the choice needs of the device's timing ($lib/ui/state/timing). */
export interface TimingLike {
	readonly state: ClockState;
	readonly used: Set<number>;
	readonly source: string | null;
	readonly problem: TimingErrorCode | null;
	readonly stopwatchOn: boolean;
	readonly stopwatchRunning: boolean;
	assign(seq: number, dogRunId: number): number;
	dismiss(seq: number): void;
	tapStopwatch(): void;
	resetStopwatch(): void;
}

export interface GateChoiceDeps {
	timing: TimingLike;
	form: CaptureForm;
	/** The dog run on screen. */
	dog: () => number;
	/** The form holds that dog's values. */
	ready: () => boolean;
	/** A save is under way: it loads the form when done, and the decision waits for it. */
	saving: () => boolean;
	/** A time in seconds as the field shows it ("38,63"). */
	format: (seconds: number) => string;
}

/** A stop and where the time in the field came from. */
export interface FilledStop {
	seq: number;
	elapsed: number;
	via: 'gates' | 'stopwatch';
}

/** After Stop, the stopwatch's target stays this long (its tap's click must not hit a key). */
export const PAD_HOLD_MS = 500;

export class GateChoice {
	readonly #deps: GateChoiceDeps;
	/** The stop whose time the field was filled with (and from where), for its mark. */
	gate = $state<FilledStop | null>(null);
	/** A stop for this dog while the field held another time: the steward chooses. */
	ask = $state<{ seq: number; elapsed: number } | null>(null);
	/** The steward chose the keypad over the stopwatch for this dog. */
	keypadChosen = $state(false);
	padHold = $state(false);
	/**
	 * Stops this visit to the dog has filled in or asked about. They become decided (`used`, never
	 * offered again) only when the steward saves the dog or keeps their own time: leaving without
	 * saving and coming back fills the time again. Not reactive on purpose: the fill decision reads
	 * it, and a change must not decide again.
	 */
	// eslint-disable-next-line svelte/prefer-svelte-reactivity -- not reactive on purpose (above)
	#formStops = new Set<number>();

	readonly fieldTime = $derived.by(() => hundredthsOf(this.#deps.form.entry.time));
	/** Where the time in the field came from, while it is still that stop's time. */
	readonly fromGate = $derived.by(() =>
		this.gate !== null && this.fieldTime === this.gate.elapsed ? this.gate.via : null
	);
	/** Stops held (not this dog's to take): shown in the keypad's place with why. */
	readonly held = $derived.by((): readonly HeldStop[] =>
		this.#deps.ready() ? heldStops(this.#deps.timing.state) : []
	);
	readonly view = $derived.by((): TimingView => {
		const { timing, form } = this.#deps;
		return timingView({
			ready: this.#deps.ready(),
			phase: timing.state.phase,
			runFor: timing.state.run?.startedFor,
			dogOnScreen: this.#deps.dog(),
			source: timing.source,
			problem: timing.problem,
			sensorFailed: timing.state.sensor === 'fail',
			timeTyped: form.timeTyped,
			timeText: form.timeText,
			absence: form.absence,
			stopwatchOn: timing.stopwatchOn,
			stopwatchRunning: timing.stopwatchRunning,
			keypadChosen: this.keypadChosen,
			padHold: this.padHold
		});
	});
	/** The dog the first held stop's run started for, when that is not the dog on screen. */
	readonly startedFor = $derived.by((): number | undefined => {
		const first = this.held[0];
		const dog = this.#deps.dog();
		return first?.startedFor !== null && first?.startedFor !== dog ? first?.startedFor : undefined;
	});

	constructor(deps: GateChoiceDeps) {
		this.#deps = deps;
		$effect(() => this.#decide());
	}

	/** A new dog on screen: nothing of the last one's stops. */
	reset(): void {
		this.gate = null;
		this.ask = null;
		// eslint-disable-next-line svelte/prefer-svelte-reactivity -- as #formStops
		this.#formStops = new Set();
		this.keypadChosen = false;
	}

	/** The dog is saved: every stop this visit dealt with is decided. */
	saved(): void {
		for (const seq of this.#formStops) this.#deps.timing.used.add(seq);
		this.ask = null;
	}

	/** The steward keeps the time they typed over the gates' (the stop is decided). */
	keepTyped(seq: number): void {
		this.#deps.timing.used.add(seq);
		this.ask = null;
	}

	/** Puts a stop's time in the field, marked with where it came from. */
	fill(stop: { seq: number; elapsed: number }): void {
		const { form, format, timing } = this.#deps;
		this.#formStops.add(stop.seq);
		form.fillTime(format(stop.elapsed / 100));
		if (form.absence) form.absence = false;
		this.gate = { ...stop, via: timing.source === null ? 'stopwatch' : 'gates' };
		this.ask = null;
	}

	/** A held stop goes on the dog on screen. Throws a TimingError. */
	putHere(seq: number): void {
		const elapsed = this.#deps.timing.assign(seq, this.#deps.dog());
		this.fill({ seq, elapsed });
	}

	/** A held stop goes on the dog its run started for (the screen then shows that dog). */
	putOn(seq: number, dogRunId: number): void {
		this.#deps.timing.assign(seq, dogRunId);
	}

	/** Every held stop is set aside (a backlog of gate tests, runs while no dog was on screen). */
	setAllAside(): void {
		for (const stop of this.held) this.#deps.timing.dismiss(stop.seq);
	}

	get stopwatchRunning(): boolean {
		return this.#deps.timing.stopwatchRunning;
	}

	resetStopwatch(): void {
		this.#deps.timing.resetStopwatch();
	}

	tapStopwatch(): void {
		const { timing } = this.#deps;
		const stopping = timing.stopwatchRunning;
		timing.tapStopwatch();
		if (!stopping) return;
		this.padHold = true;
		setTimeout(() => (this.padHold = false), PAD_HOLD_MS);
	}

	/** Typing the time instead: the stopwatch's run (a false start) is abandoned. */
	typeTime(): void {
		if (this.#deps.timing.stopwatchRunning) this.#deps.timing.resetStopwatch();
		this.keypadChosen = true;
	}

	/** The fill decision, each time the clock or the dog on screen changes. */
	#decide(): void {
		const { timing, ready, saving, dog } = this.#deps;
		if (!ready() || saving()) return;
		const decision = gateFill({
			offer: offerFor(timing.state, dog()),
			used: timing.used,
			seen: this.#formStops,
			fieldTime: untrack(() => this.fieldTime)
		});
		if (decision.kind === 'none') return;
		this.#formStops.add(decision.seq);
		if (decision.kind === 'fill') untrack(() => this.fill(decision));
		else this.ask = { seq: decision.seq, elapsed: decision.elapsed };
	}
}
