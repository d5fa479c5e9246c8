/**
 * The follow view's "your turn" alerts: the switch, what the phone allows, the ring's measured
 * pace and the alerts given, kept on the phone (settings) so that a reload neither forgets the
 * pace nor alerts twice. Deciding is $lib/ui/view/turn's; this keeps the state and gives an alert its
 * three signals: a vibration, a sound and a notification where the spectator granted it. No push
 * service: the view alerts while it is open (docs/results.md, "Your turn").
 */
import { getSetting, setSetting } from '$lib/db/settings-store';
import {
	alertsDue,
	notePace,
	PACE_FRESH_MS,
	paceOf,
	type Alerted,
	type PacePoint,
	type TurnCandidate
} from '../view/turn';

/** What the phone lets the view do when a dog is next. */
export type NotifyPermission = 'granted' | 'denied' | 'default' | 'unsupported';

/** The three signals of an alert; the browser's by default, a test's own where it passes them. */
export interface AlertSignals {
	permission(): NotifyPermission;
	/** Asks for notifications (on a tap); what the spectator answered. */
	requestPermission(): Promise<NotifyPermission>;
	/** Readies the sound on a tap (a browser plays none before one). */
	unlockSound(): void;
	vibrate(): void;
	sound(): void;
	notify(title: string, body: string, tag: string): Promise<void>;
}

export interface TurnAlert<T extends TurnCandidate = TurnCandidate> {
	id: string;
	candidate: T;
}

const ENABLED = 'turnAlerts';
const NOTED = 'turnAlertsNoted';
/** Per ring followed: a view of another ring (another tab) keeps its own. */
const alertedKey = (competitionId: number, ringId: number) =>
	`turnAlerted:${competitionId}:${ringId}`;
const paceKey = (competitionId: number, ringId: number) => `ringPace:${competitionId}:${ringId}`;

/** Shown at most this many at once; older ones go. */
const SHOWN = 3;

export class TurnAlerts<T extends TurnCandidate = TurnCandidate> {
	enabled = $state(false);
	permission = $state<NotifyPermission>('unsupported');
	/** The platform note was read once ("Got it"). */
	noted = $state(true);
	/** Alerts on screen, newest first, until dismissed. */
	shown = $state<TurnAlert<T>[]>([]);
	#points = $state<PacePoint[]>([]);
	#alerted: Alerted = {};
	#loaded = $state(false);
	#ring: { competitionId: number; ringId: number } | null = null;
	readonly #signals: AlertSignals;

	constructor(signals: AlertSignals = browserSignals()) {
		this.#signals = signals;
	}

	/**
	 * Milliseconds per dog on the ring, as this phone saw it within the last PACE_FRESH_MS before
	 * `now`; null: not measured (lately).
	 */
	paceAt(now: number): number | null {
		return paceOf(this.#points, now - PACE_FRESH_MS);
	}

	/** The stored state is read: alerts may be decided. */
	get loaded(): boolean {
		return this.#loaded;
	}

	/** Reads what the phone kept for the ring followed (once per ring). */
	async load(competitionId: number, ringId: number): Promise<void> {
		this.#ring = { competitionId, ringId };
		this.permission = this.#signals.permission();
		const [enabled, alerted, points, noted] = await Promise.all([
			getSetting<boolean>(ENABLED),
			getSetting<Alerted>(alertedKey(competitionId, ringId)),
			getSetting<PacePoint[]>(paceKey(competitionId, ringId)),
			getSetting<boolean>(NOTED)
		]).catch(() => [undefined, undefined, undefined, undefined] as const);
		this.enabled = enabled === true;
		this.#alerted = alerted && typeof alerted === 'object' ? alerted : {};
		this.#points = Array.isArray(points) ? points : [];
		this.noted = noted === true;
		this.#loaded = true;
	}

	/** The switch, on a tap: readies the sound and asks for notifications while the tap lasts. */
	async enable(): Promise<void> {
		this.#signals.unlockSound();
		this.enabled = true;
		void this.#keep(ENABLED, true);
		if (this.#signals.permission() === 'default') {
			this.permission = await this.#signals.requestPermission();
		} else {
			this.permission = this.#signals.permission();
		}
	}

	disable(): void {
		this.enabled = false;
		void this.#keep(ENABLED, false);
	}

	/** Any tap on the view readies the sound again (after a reload the browser forgot it). */
	touched(): void {
		if (this.enabled) this.#signals.unlockSound();
	}

	note(): void {
		this.noted = true;
		void this.#keep(NOTED, true);
	}

	/**
	 * The ring's queue seen at `remaining` dogs now. `base`: not a dog's start (the view opened,
	 * or its copy is up to date again after a time without news).
	 */
	observe(remaining: number, at: number, base = false): void {
		const points = notePace(this.#points, remaining, at, base);
		if (points.length === this.#points.length && points.at(-1) === this.#points.at(-1)) return;
		this.#points = points;
		if (this.#ring) {
			const { competitionId, ringId } = this.#ring;
			void this.#keep(paceKey(competitionId, ringId), $state.snapshot(points));
		}
	}

	/**
	 * The marked dogs' places now: alerts those due (their words from `words`), and forgets the
	 * dogs no longer waiting. Nothing before the phone's state is read.
	 */
	check(candidates: readonly T[], words: (c: T) => { title: string; body: string }): void {
		if (!this.#loaded) return;
		const { due, alerted } = alertsDue(candidates, this.#alerted);
		const changed = JSON.stringify(alerted) !== JSON.stringify(this.#alerted);
		this.#alerted = alerted;
		if (changed && this.#ring) {
			const { competitionId, ringId } = this.#ring;
			void this.#keep(alertedKey(competitionId, ringId), alerted);
		}
		if (due.length === 0 || !this.enabled) return;
		const fresh = due.map((candidate) => ({
			id: `${candidate.runId}:${candidate.dogId}:${candidate.estimate.stage}`,
			candidate
		}));
		this.shown = [...fresh, ...this.shown.filter((a) => !fresh.some((f) => f.id === a.id))].slice(
			0,
			SHOWN
		);
		this.#signals.vibrate();
		this.#signals.sound();
		if (this.permission === 'granted') {
			for (const { id, candidate } of fresh) {
				const { title, body } = words(candidate);
				void this.#signals.notify(title, body, id).catch(() => undefined);
			}
		}
	}

	dismiss(id: string): void {
		this.shown = this.shown.filter((a) => a.id !== id);
	}

	/** Nothing else depends on it: a failed write only loses it on the next visit. */
	async #keep(key: string, value: unknown): Promise<void> {
		await setSetting(key, value).catch(() => undefined);
	}
}

/** Two short beeps and three pulses: heard and felt at a ring-side, not a ringtone. */
const PULSES = [300, 150, 300, 150, 300];

/** The browser's own signals. */
export function browserSignals(): AlertSignals {
	let audio: AudioContext | undefined;
	const hasNotifications = () => typeof Notification !== 'undefined';
	return {
		permission: () => (hasNotifications() ? Notification.permission : 'unsupported'),
		requestPermission: async () => {
			if (!hasNotifications()) return 'unsupported';
			try {
				return await Notification.requestPermission();
			} catch {
				return Notification.permission;
			}
		},
		unlockSound: () => {
			if (typeof AudioContext === 'undefined') return;
			audio ??= new AudioContext();
			if (audio.state === 'suspended') void audio.resume().catch(() => undefined);
		},
		vibrate: () => {
			// Not on iPhones; elsewhere only after a tap on the page, which marking a dog was.
			if (typeof navigator.vibrate === 'function') navigator.vibrate(PULSES);
		},
		sound: () => {
			if (!audio || audio.state !== 'running') return;
			for (const [start, hz] of [
				[0, 880],
				[0.3, 1175]
			] as const) {
				const tone = audio.createOscillator();
				const gain = audio.createGain();
				tone.frequency.value = hz;
				gain.gain.setValueAtTime(0.4, audio.currentTime + start);
				gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + start + 0.25);
				tone.connect(gain).connect(audio.destination);
				tone.start(audio.currentTime + start);
				tone.stop(audio.currentTime + start + 0.25);
			}
		},
		notify: async (title, body, tag) => {
			// Android's Chrome shows a page's notification only through its worker.
			const registration =
				'serviceWorker' in navigator
					? await navigator.serviceWorker.getRegistration().catch(() => undefined)
					: undefined;
			if (registration) {
				await registration.showNotification(title, {
					body,
					tag,
					icon: '/icons/icon-192.png',
					data: { url: location.href }
				});
			} else {
				new Notification(title, { body, tag });
			}
		}
	};
}
