/**
 * The ring's timing on this device, for the screens: one run clock for the app's life (so a run
 * started on one dog's screen is known on the next), fed by whichever source the ring has:
 * - the service's timer stream (the ring's `timer` link: a chronometer cabled to the ring laptop),
 *   followed while a screen of that ring asks for it;
 * - a chronometer plugged into this device (Web Serial), connected from the ring board;
 * - the hand stopwatch (a preference), tapped on the capture screen.
 * The rules (which dog a stop belongs to) are the clock's ($lib/timing/run-clock); this module only
 * wires sources to it and gives the screens a reactive state and a ticking `now`.
 */
import { getSetting, setSetting } from '$lib/db/settings-store';
import { openSignedStream } from '$lib/sync/streams';
import type { TimingErrorCode } from '$lib/timing/errors';
import { TimerStream } from '$lib/timing/event-stream';
import {
	countdownLeft,
	displayTime,
	heldStops,
	initialClock,
	RunClock,
	walkLeft,
	type ClockState,
	type DogRunId
} from '$lib/timing/run-clock';
import { Stopwatch } from '$lib/timing/stopwatch';
import { choosePort, SerialTimer, webSerial } from '$lib/timing/web-serial';

export const SETTING_STOPWATCH = 'stopwatch';
/** A stream no screen follows any more stays open this long (moving between dogs). */
const STREAM_GRACE_MS = 2_000;

export type TimingSource = 'gates' | 'serial' | 'stopwatch';

class Timing {
	readonly #clock = new RunClock();
	/** The clock's state: every screen reads this. */
	state = $state.raw<ClockState>(initialClock());
	/** performance.now(), ticking while something runs (a run, a countdown, the course walk). */
	now = $state(0);
	/** The hand stopwatch is wanted on the capture screen (a preference of this device). */
	stopwatchOn = $state(false);
	/** What feeds the clock now; null: nothing (times are typed). */
	source = $state<TimingSource | null>(null);
	/** The last problem of the source in a code ($lib/ui/view/error-text words it); null: none. */
	problem = $state<TimingErrorCode | null>(null);
	/** The service's own words on its chronometer (a detail line). */
	detail = $state<string | null>(null);
	/** Stops already put in a form, or turned down, on this device: never offered again. */
	readonly used = new Set<number>();

	readonly #stopwatch = new Stopwatch({ onEvent: (event) => this.#clock.feed(event) });
	#stream: TimerStream | null = null;
	#streamHref: string | null = null;
	#streamUsers = 0;
	#graceTimer: ReturnType<typeof setTimeout> | null = null;
	#serial: SerialTimer | null = null;
	#frame = 0;
	#loaded = false;

	constructor() {
		this.#clock.subscribe((state) => {
			this.state = state;
			this.#tick();
		});
	}

	/** Reads the stopwatch preference once (the layout calls this at start). */
	async load(): Promise<void> {
		if (this.#loaded) return;
		this.#loaded = true;
		this.stopwatchOn = (await getSetting<boolean>(SETTING_STOPWATCH)) === true;
	}

	async setStopwatch(on: boolean): Promise<void> {
		this.stopwatchOn = on;
		await setSetting(SETTING_STOPWATCH, on);
	}

	/** The capture screen shows this dog (null: none). */
	showDog(dogRunId: DogRunId | null): void {
		this.#clock.showDog(dogRunId);
	}

	/**
	 * Follow a ring's timer stream while the returned function is not called (a screen's effect).
	 * Several screens may follow the same ring; moving to another ring's screen switches streams.
	 */
	follow(href: string | undefined): () => void {
		// A chronometer on this device's USB feeds the clock: the service's stream would too.
		if (!href || typeof fetch === 'undefined' || this.source === 'serial') return () => {};
		if (this.#graceTimer) clearTimeout(this.#graceTimer);
		this.#graceTimer = null;
		// A stream the service refused is asked again by the next screen that follows it (the
		// phone may have joined meanwhile).
		const refused = this.problem === 'stream-refused' || this.problem === 'stream-unauthorized';
		if (this.#streamHref === href && refused) this.#closeStream();
		if (this.#streamHref !== href) {
			const switching = this.#streamHref !== null;
			this.#closeStream();
			// Another ring's stops are not this ring's to put on a dog: set aside.
			if (switching) for (const stop of heldStops(this.state)) this.dismiss(stop.seq);
			this.#openStream(href);
		}
		this.#streamUsers++;
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.#streamUsers--;
			if (this.#streamUsers > 0) return;
			this.#graceTimer = setTimeout(() => {
				this.#graceTimer = null;
				if (this.#streamUsers === 0) this.#closeStream();
			}, STREAM_GRACE_MS);
		};
	}

	#openStream(href: string): void {
		const stream = new TimerStream({
			open: openSignedStream,
			onEvent: (event) => this.#clock.feed(event),
			onStatus: (status) => this.#sourceStatus(status)
		});
		this.#stream = stream;
		this.#streamHref = href;
		this.source = 'gates';
		stream.connect(href);
	}

	/** What a source (the service's stream, a USB chronometer) says of its connection. */
	#sourceStatus(status: { connected: boolean; problem?: TimingErrorCode; detail?: string }): void {
		this.problem = status.problem ?? null;
		this.detail = status.detail ?? null;
		this.#clock.feed(
			status.connected
				? { type: 'connected' }
				: { type: 'disconnected', ...(status.problem ? { problem: status.problem } : {}) }
		);
	}

	#closeStream(): void {
		if (!this.#stream) return;
		this.#stream.close();
		this.#stream = null;
		this.#streamHref = null;
		if (this.source === 'gates') {
			this.source = null;
			this.problem = null;
			this.detail = null;
			this.#clock.feed({ type: 'disconnected' });
			// Nothing reads the gates any more: a run on now would never see its stop.
			this.#clock.feed({ type: 'reset' });
		}
	}

	/** Web Serial is offered by this browser. */
	get serialSupported(): boolean {
		return webSerial() !== undefined;
	}

	/** Asks for a port and reads the chronometer on it (call from a tap). Throws a TimingError. */
	async connectSerial(): Promise<void> {
		const port = await choosePort();
		await this.#serial?.stop();
		const serial = new SerialTimer(port, {
			onEvent: (event) => this.#clock.feed(event),
			onStatus: (status) => this.#sourceStatus(status)
		});
		this.#serial = serial;
		this.source = 'serial';
		await serial.start();
	}

	async disconnectSerial(): Promise<void> {
		await this.#serial?.stop();
		this.#serial = null;
		if (this.source === 'serial') this.source = null;
	}

	/** A tap on the stopwatch target: starts or stops (a double tap is ignored). */
	tapStopwatch(): void {
		this.#stopwatch.tap();
	}

	/** Abandons the stopwatch's run (a false start): no time. */
	resetStopwatch(): void {
		this.#stopwatch.reset();
	}

	get stopwatchRunning(): boolean {
		// Read the clock's state so that screens update with it.
		return this.state.phase === 'running' && this.#stopwatch.running;
	}

	/** Puts a stop on a dog; returns its time in hundredths. Throws a TimingError. */
	assign(seq: number, dogRunId: DogRunId): number {
		return this.#clock.assign(dogRunId, seq).elapsed;
	}

	dismiss(seq: number): void {
		this.used.add(seq);
		this.#clock.dismiss(seq);
	}

	/** The judge's signal: the handler has `seconds` to start. */
	startCountdown(seconds: number): void {
		this.#clock.feed({ type: 'countdown', seconds });
	}

	startWalk(seconds: number): void {
		this.#clock.feed({ type: 'walk', seconds });
	}

	/** Running or stopped time in hundredths, as of `now`. */
	get shownTime(): number | null {
		return displayTime(this.state, this.now);
	}

	get countdown(): number | null {
		return countdownLeft(this.state, this.now);
	}

	get walk(): number | null {
		return walkLeft(this.state, this.now);
	}

	/** Keeps `now` moving with the screen's frames while anything runs. */
	#tick(): void {
		if (this.#frame || typeof requestAnimationFrame === 'undefined') return;
		const frame = () => {
			this.now = performance.now();
			const s = this.state;
			const active =
				s.phase === 'running' ||
				s.phase === 'failed' ||
				countdownLeft(s, this.now) !== null ||
				walkLeft(s, this.now) !== null;
			this.#frame = active ? requestAnimationFrame(frame) : 0;
		};
		this.#frame = requestAnimationFrame(frame);
	}
}

export const timing = new Timing();
