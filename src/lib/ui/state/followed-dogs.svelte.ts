import { untrack } from 'svelte';
import { getSetting, setSetting } from '$lib/db/settings-store';
import { i18n, t } from '$lib/i18n/i18n.svelte';
import { waitingDogs } from '../view/board';
import { myDogs, type MarkedDog, type MyDog } from '../view/my-dogs';
import { estimateTurn, minutesLeft, type TurnCandidate } from '../view/turn';
import { clock } from './clock.svelte';
import { live } from './live-updates.svelte';
import type { RingWatch } from './ring-watch.svelte';
import { TurnAlerts } from './turn-alerts.svelte';

/** Where the marks are kept (this phone only). */
const MARKS = 'followedDogs';

/** A marked dog's next start, as "your turn" follows it. */
export type Turn = TurnCandidate & { dog: MarkedDog; runName: string; startNo: number };

/**
 * The dogs a spectator follows on a ring (the follow view): the marks, kept on this phone and
 * never sent; where each marked dog is now ($lib/ui/view/my-dogs); and "your turn"
 * ($lib/ui/view/turn): the ring's pace as seen here, and the alerts it gives (TurnAlerts). Create
 * during component initialisation: it runs effects.
 */
export class FollowedDogs {
	marks = $state<MarkedDog[]>([]);
	/** The marks kept on the phone are read: before that, no dog is known to be marked. */
	marksLoaded = $state(false);
	readonly turns = new TurnAlerts<Turn>();
	/** Where each marked dog is now. */
	readonly mine: MyDog[];
	/** The runs of the marked dogs' next starts: kept current too. */
	readonly nextRuns: number[];
	/** The marked dogs' next starts, with their estimates. */
	readonly now: Turn[];
	/** How old the copy is while the phone cannot hear from the ring (0 while it can). */
	readonly #newsAge: number;
	readonly #ring: RingWatch;
	/**
	 * Since when the view hears from the ring (0: it does not). Until the first live update after
	 * that has landed, and at that update, the queue is the stored copy catching up: a base, not a
	 * dog's start. After it, each shorter queue is a dog.
	 */
	#hearingSince = 0;
	#caughtUp = false;

	constructor(ring: RingWatch, ids: () => { competitionId: number; ringId: number }) {
		this.#ring = ring;
		this.mine = $derived(myDogs(ring.shown.runs, ring.shown.entries, this.marks));
		this.nextRuns = $derived(
			this.mine.flatMap((d) => (d.status.kind === 'elsewhere' ? [] : [d.status.run.id]))
		);
		this.#newsAge = $derived(ring.connected ? 0 : clock.now - (ring.updatedAt ?? clock.now));
		this.now = $derived(
			this.mine.flatMap((d) => {
				const s = d.status;
				if (s.kind !== 'start' && s.kind !== 'gate' && s.kind !== 'waiting') return [];
				const before = s.kind === 'start' ? 0 : s.before;
				return [
					{
						runId: s.run.id,
						dogId: d.dog.id,
						dog: d.dog,
						runName: s.run.data.name,
						startNo: s.startNo,
						estimate: estimateTurn(before, this.turns.paceAt(clock.now), this.#newsAge)
					}
				];
			})
		);
		const remaining = $derived(waitingDogs(ring.shown.runs, ring.shown.entries).length);

		$effect(() => untrack(() => void this.#loadMarks()));
		$effect(() => {
			const { competitionId, ringId } = ids();
			void this.turns.load(competitionId, ringId);
		});
		$effect(() => {
			if (!this.turns.loaded || !ring.stored.loaded) return;
			const left = remaining;
			const updatedAt = live.lastUpdateAt ?? 0;
			if (!ring.connected) {
				this.#hearingSince = 0;
				this.#caughtUp = false;
				return;
			}
			this.#hearingSince ||= Date.now();
			const fresh = updatedAt >= this.#hearingSince;
			untrack(() => this.turns.observe(left, Date.now(), !(fresh && this.#caughtUp)));
			this.#caughtUp = fresh;
		});
		$effect(() => {
			const now = this.now;
			if (ring.stored.loaded && this.marksLoaded) untrack(() => this.turns.check(now, this.words));
		});
	}

	async #loadMarks(): Promise<void> {
		const stored = await getSetting<MarkedDog[]>(MARKS).catch(() => undefined);
		if (Array.isArray(stored)) this.marks = stored;
		this.marksLoaded = true;
	}

	isMarked(dogId: number): boolean {
		return this.marks.some((m) => m.id === dogId);
	}

	toggle(dog: MarkedDog): void {
		this.marks = this.isMarked(dog.id)
			? this.marks.filter((m) => m.id !== dog.id)
			: [...this.marks, dog];
		// Nothing else depends on it: a failure only loses the mark on the next visit.
		void setSetting(MARKS, $state.snapshot(this.marks)).catch(() => undefined);
	}

	/** "about 6 min", with how old the news is when the phone lost the ring. */
	leftText(turn: Turn): string {
		const { leftMs, stage, estimated } = turn.estimate;
		if (leftMs === null || (stage === 'start' && !estimated)) return '';
		const minutes = minutesLeft(leftMs);
		const left = minutes > 0 ? t('turn.left', { minutes }) : t('turn.anyMoment');
		const at = this.#ring.updatedAt;
		if (this.#newsAge <= 0 || at === null) return left;
		return `${left} · ${t('turn.fromNews', { age: i18n.ago(at, clock.now) })}`;
	}

	/** The alert's words for a turn (the banner's and the notification's). */
	readonly words = (turn: Turn): { title: string; body: string } => {
		const { stage, estimated } = turn.estimate;
		const key = stage === 'start' ? 'start' : 'gate';
		const title = t(
			estimated ? `turn.probably${key === 'start' ? 'Start' : 'Gate'}` : `turn.${key}`,
			{ dog: turn.dog.name }
		);
		const where = t('turn.where', { run: turn.runName, startNo: turn.startNo });
		const left = this.leftText(turn);
		return { title, body: left ? `${where} · ${left}` : where };
	};

	/** How long until a marked dog's turn, in words; "" when nothing is to say. */
	leftOf(dogId: number): string {
		const turn = this.now.find((x) => x.dogId === dogId);
		return turn ? this.leftText(turn) : '';
	}
}
