/**
 * "Your turn" on a spectator's phone: the ring's pace as this phone measured it, how long a
 * marked dog has left, and when to alert its handler (at "to the gate", again at "at the start").
 * Pure: the follow view observes the ring and keeps the points and the alerts given on the phone;
 * this decides.
 *
 * The pace is measured, not assumed: each time the ring's queue shrinks by one dog the view notes
 * when. A dog runs every 40–60 s at a real ring, but a ring with long courses, a slow judge or a
 * course walk runs otherwise, and "about 6 min" must be this ring's.
 */
import { TO_GATE } from './board';

/** When the ring's queue was seen at a length. */
export interface PacePoint {
	at: number;
	/** Dogs waiting on the ring (the one at the start included). */
	remaining: number;
	/**
	 * Not a dog's start: the first sight after the view opened, the copy up to date again after a
	 * time without news, or a queue that grew (a result undone). The time from the point before it
	 * and to the point after it is not one dog's.
	 */
	base?: boolean;
}

/** Points kept per ring (on the phone, across visits). */
export const PACE_KEPT = 12;
/** One-dog steps the pace is the median of, the newest. */
export const PACE_STEPS = 8;
/** Fewer measured steps than this: no pace yet, and no time is promised. */
export const PACE_MIN_STEPS = 2;
/** A gap longer than this between two dogs is a break (a course walk, lunch), not a dog's time. */
export const BREAK_MS = 5 * 60_000;
/**
 * A step shorter than this is no dog's run (the fastest take 25 s on course, with the walk in and
 * out more): news arriving in two parts, such as the stored copy and then the live one.
 */
export const MIN_STEP_MS = 10_000;

/**
 * The copy is guessed on from for at most this long without news: past it the ring may have
 * stopped (a course walk, a break, the day's end), and a guess would alert for nothing. The view
 * then says only how old its news is.
 */
export const GUESS_MS = 10 * 60_000;
/** A pace measured longer ago than this (an earlier visit, yesterday) is not this ring's now. */
export const PACE_FRESH_MS = 60 * 60_000;

/** `points` with the queue seen at `remaining` dogs at `at`; unchanged when it is the same. */
export function notePace(
	points: readonly PacePoint[],
	remaining: number,
	at: number,
	base = false
): PacePoint[] {
	const last = points.at(-1);
	if (!base && last && last.remaining === remaining) return [...points];
	if (last && remaining > last.remaining) base = true;
	const point: PacePoint = base ? { at, remaining, base } : { at, remaining };
	return [...points, point].slice(-PACE_KEPT);
}

/**
 * Milliseconds per dog: the median of the newest one-dog steps (a step of several dogs at once
 * is news arriving late, not the ring's pace; a break is not a dog), or null while fewer than
 * PACE_MIN_STEPS were seen. Steps that ended before `since` are not counted.
 */
export function paceOf(points: readonly PacePoint[], since = -Infinity): number | null {
	const steps: number[] = [];
	for (let i = 1; i < points.length; i++) {
		const before = points[i - 1]!;
		const after = points[i]!;
		if (after.at < since) continue;
		const ms = after.at - before.at;
		if (after.base || before.base || before.remaining - after.remaining !== 1) continue;
		if (ms < MIN_STEP_MS || ms > BREAK_MS) continue;
		steps.push(ms);
	}
	const newest = steps.slice(-PACE_STEPS).sort((a, b) => a - b);
	if (newest.length < PACE_MIN_STEPS) return null;
	const mid = newest.length >> 1;
	return newest.length % 2 ? newest[mid]! : (newest[mid - 1]! + newest[mid]!) / 2;
}

export type TurnStage = 'waiting' | 'gate' | 'start';

/** A marked dog's place in the ring's queue, as the phone's copy has it. */
export interface QueuePlace {
	/** Dogs before it (0: at the start). */
	before: number;
}

export interface TurnEstimate {
	/** Dogs before it now: the copy's, less those the pace says ran since (when the copy is old). */
	before: number;
	stage: TurnStage;
	/** Time until its start at the ring's pace; null: no pace measured yet. */
	leftMs: number | null;
	/** Worked out from an old copy (`ageMs` old): the ring went on without this phone hearing. */
	estimated: boolean;
}

export const stageOf = (before: number): TurnStage =>
	before <= 0 ? 'start' : before <= TO_GATE ? 'gate' : 'waiting';

/**
 * Where a dog `before` dogs from the start is now. `ageMs`: how old the copy is when the phone
 * cannot hear from the ring (0 while it is live); with a pace, that many dogs' time has passed,
 * up to GUESS_MS: an older copy is the copy's place, and no time is promised.
 */
export function estimateTurn(before: number, paceMs: number | null, ageMs = 0): TurnEstimate {
	if (paceMs === null || paceMs <= 0 || ageMs > GUESS_MS) {
		return { before, stage: stageOf(before), leftMs: null, estimated: false };
	}
	const age = Math.max(0, ageMs);
	const ran = Math.min(before, Math.floor(age / paceMs));
	const now = before - ran;
	return {
		before: now,
		stage: stageOf(now),
		leftMs: Math.max(0, before * paceMs - age),
		estimated: age > 0 && ran > 0
	};
}

/**
 * The alerts given, per marked dog and run: the last stage alerted from news, and the last one
 * alerted from a guess ('gate?', 'start?'). A guess alerts a stage once; the news alerts it once
 * more, since a guess may be early (the ring paused) and the news is what to go by.
 */
export type AlertedStage = 'gate' | 'start' | 'gate?' | 'start?';
export type Alerted = Readonly<Record<string, readonly AlertedStage[]>>;

export const alertKey = (runId: number, dogId: number) => `${runId}:${dogId}`;

const RANK: Record<TurnStage, number> = { waiting: 0, gate: 1, start: 2 };

export interface TurnCandidate {
	runId: number;
	dogId: number;
	estimate: TurnEstimate;
}

/** The highest stage alerted so, news (`guessed` false) or guess. */
function highest(given: readonly AlertedStage[], guessed: boolean): number {
	let rank = 0;
	for (const g of given) {
		if (g.endsWith('?') !== guessed) continue;
		rank = Math.max(rank, RANK[g.replace('?', '') as TurnStage]);
	}
	return rank;
}

/**
 * The alerts due: each dog whose stage is past the last one alerted for it in that run, from news
 * and from guesses apart (so "to the gate" once, "at the start" once, nothing again on a reload
 * or a second look; a guess does not use up the news' alert), and the record with them. Dogs no
 * longer in `now` keep no record.
 */
export function alertsDue<T extends TurnCandidate>(
	now: readonly T[],
	alerted: Alerted
): { due: T[]; alerted: Alerted } {
	const next: Record<string, AlertedStage[]> = {};
	const due: T[] = [];
	for (const candidate of now) {
		const key = alertKey(candidate.runId, candidate.dogId);
		const given = Array.isArray(alerted[key]) ? alerted[key] : [];
		const { stage, estimated } = candidate.estimate;
		// A guess never alerts what the news already did.
		const past = Math.max(highest(given, false), estimated ? highest(given, true) : 0);
		if (stage !== 'waiting' && RANK[stage] > past) {
			due.push(candidate);
			const mark: AlertedStage = estimated ? `${stage}?` : stage;
			next[key] = [...given, mark];
		} else if (given.length > 0) {
			next[key] = [...given];
		}
	}
	return { due, alerted: next };
}

/** Whole minutes to say for `leftMs` ("about 6 min"); 0: any moment now. */
export const minutesLeft = (leftMs: number): number => Math.round(leftMs / 60_000);
