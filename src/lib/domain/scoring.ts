/**
 * Provisional FCI scoring and ranking of one competition run (agility-rules.md). The results
 * service stays the authority; these figures are labelled provisional by the UI.
 *
 * All arithmetic runs on integer thousandths (course times may carry three decimals), so
 * 68.17 - 65 is exactly 3.17 and never 3.1700000000000017.
 */
import { ELIMINATING_REFUSALS } from './validation';
import type { CourseParams, DogRunResult } from './types';

export type ScoreStatus = 'pending' | 'absent' | 'eliminated' | 'finished';
export type Grade = 'V' | 'VD' | 'D' | 'BO' | 'DIS';
export type EliminationReason = 'disqualified' | 'third-refusal' | 'over-maximal-time';

export interface Score {
	status: ScoreStatus;
	/** 5 x faults + 5 x refusals; 0 unless finished. */
	courseFaults: number;
	/** max(0, time - SCT), exact; 0 unless finished. */
	timeFaults: number;
	/** courseFaults + timeFaults; 0 unless finished. */
	total: number;
	/** m/s, 2 decimals; null unless finished with a track length. */
	speed: number | null;
	/** Band of the total; 'DIS' when eliminated; null when pending or absent. */
	grade: Grade | null;
	eliminationReason?: EliminationReason;
}

export interface RankedEntry<Id extends number | string = number | string> {
	id: Id;
	score: Score;
	/** Competition rank (1, 2, 2, 4); null for eliminated, absent and pending dogs. */
	rank: number | null;
}

/** Penalty points per fault and per refusal. */
export const FAULT_PENALTY = 5;
export const REFUSAL_PENALTY = 5;

/** Lower bounds of the grade bands, in penalty points. */
const GRADE_BANDS: readonly [number, Grade][] = [
	[26, 'BO'],
	[16, 'D'],
	[6, 'VD'],
	[0, 'V']
];

const milli = (value: number): number => Math.round(value * 1000);

interface Scored {
	score: Score;
	/** Sort keys in integer thousandths, finished runs only. */
	totalMilli: number;
	courseFaults: number;
	timeMilli: number;
}

function unscored(status: ScoreStatus, grade: Grade | null, reason?: EliminationReason): Score {
	const score: Score = { status, courseFaults: 0, timeFaults: 0, total: 0, speed: null, grade };
	if (reason) score.eliminationReason = reason;
	return score;
}

function gradeOf(totalMilli: number): Grade {
	for (const [from, grade] of GRADE_BANDS) if (totalMilli >= from * 1000) return grade;
	return 'V';
}

function usableCourse(course: CourseParams | null): course is CourseParams {
	return course !== null && course.standardTime > 0 && Number.isFinite(course.standardTime);
}

function scoreWithKeys(course: CourseParams | null, r: DogRunResult): Scored {
	const keys = { totalMilli: 0, courseFaults: 0, timeMilli: 0 };
	if (r.absence) return { score: unscored('absent', null), ...keys };

	// The most specific reason wins: the disqualified flag is often set because of the other two.
	const overMaximal =
		course !== null &&
		course.maximalTime > 0 &&
		r.time !== null &&
		milli(r.time) > milli(course.maximalTime);
	const reason: EliminationReason | null =
		r.refusals >= ELIMINATING_REFUSALS
			? 'third-refusal'
			: overMaximal
				? 'over-maximal-time'
				: r.disqualified
					? 'disqualified'
					: null;
	if (reason) return { score: unscored('eliminated', 'DIS', reason), ...keys };

	// Without a time, or without a standard time to measure it against, nothing can be scored yet.
	if (r.time === null || !Number.isFinite(r.time) || r.time <= 0 || !usableCourse(course)) {
		return { score: unscored('pending', null), ...keys };
	}

	const courseFaults = FAULT_PENALTY * r.faults + REFUSAL_PENALTY * r.refusals;
	const timeMilli = milli(r.time);
	const timeFaultsMilli = Math.max(0, timeMilli - milli(course.standardTime));
	const totalMilli = courseFaults * 1000 + timeFaultsMilli;
	const lengthHundredths = Math.round(course.trackLength * 100);
	const speed =
		lengthHundredths > 0
			? // speed in hundredths = round(100 * length / time); both operands are integers here.
				Math.round((lengthHundredths * 1000) / timeMilli) / 100
			: null;
	return {
		score: {
			status: 'finished',
			courseFaults,
			timeFaults: timeFaultsMilli / 1000,
			total: totalMilli / 1000,
			speed,
			grade: gradeOf(totalMilli)
		},
		totalMilli,
		courseFaults,
		timeMilli
	};
}

/**
 * Scores one dog run. Absence wins over everything; then elimination (3rd refusal, time over MCT,
 * the disqualified flag); then a run without a time, or without a course to score it against, is
 * pending; otherwise it is finished and graded by its total.
 */
export function score(course: CourseParams | null, r: DogRunResult): Score {
	return scoreWithKeys(course, r).score;
}

const CATEGORY: Record<ScoreStatus, number> = { finished: 0, eliminated: 1, absent: 2, pending: 3 };

/**
 * Orders the dogs of one run: finished dogs by total, then fewer course faults, then faster time;
 * then eliminated, absent, and pending dogs, each group in the order given. Dogs equal on total,
 * course faults and time share a rank (1, 2, 2, 4). One sort, O(n log n).
 */
export function rankRun<Id extends number | string>(
	entries: readonly { id: Id; result: DogRunResult }[],
	course: CourseParams | null
): RankedEntry<Id>[] {
	const rows = entries.map((e, index) => ({
		id: e.id,
		index,
		category: 0,
		...scoreWithKeys(course, e.result)
	}));
	for (const row of rows) row.category = CATEGORY[row.score.status];
	rows.sort(
		(a, b) =>
			a.category - b.category ||
			a.totalMilli - b.totalMilli ||
			a.courseFaults - b.courseFaults ||
			a.timeMilli - b.timeMilli ||
			a.index - b.index
	);

	const ranked: RankedEntry<Id>[] = [];
	let previous: (typeof rows)[number] | undefined;
	let rank = 0;
	rows.forEach((row, position) => {
		if (row.category !== 0) {
			ranked.push({ id: row.id, score: row.score, rank: null });
			return;
		}
		const tied =
			previous !== undefined &&
			previous.totalMilli === row.totalMilli &&
			previous.courseFaults === row.courseFaults &&
			previous.timeMilli === row.timeMilli;
		if (!tied) rank = position + 1;
		ranked.push({ id: row.id, score: row.score, rank });
		previous = row;
	});
	return ranked;
}
