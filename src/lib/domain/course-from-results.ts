/**
 * The standard course time (SCT) from the results of the run itself, as international trials set
 * it: the FCI Agility Regulations (2018, section on the SCT) say "the SCT is determined by time of
 * the fastest dog with the fewest course faults + 15% and rounded up to the nearest second";
 * AgilityContest (jonsito/AgilityContest, Resultados.php, evalTRS) offers that as "best result +"
 * and also "3 best average +". docs/results.md cites both and says what is chosen here.
 *
 * Which runs count: those with a time that were neither eliminated (disqualified) nor absent.
 * They are ranked by course faults (faults and refusals; not time faults, which depend on the SCT
 * being set), then by time: the reference is the fastest run among those with the fewest course
 * faults, not simply the fastest time. The mean of three takes the first three of that ranking;
 * with fewer counted so far it takes those, and says so (`counted`).
 *
 * Pure: the results in, the suggestion out, recomputed as results come in.
 */
import { roundSeconds, type Rounding } from './course';

/** What the SCT is taken from: the reference run, or the mean of the first three. */
export type ResultsBase = 'fastest' | 'meanOfThree';
export const RESULTS_BASES: readonly ResultsBase[] = ['fastest', 'meanOfThree'];
/** The FCI's margin at international trials (and at the world championships), in per cent. */
export const DEFAULT_MARGIN_PERCENT = 15;
/** The largest margin taken: beyond doubling the time it is not an SCT from the results. */
export const MAX_MARGIN_PERCENT = 100;

/** A dog's result as the run screen holds it (the service's, or the phone's unsent edit). */
export interface CourseResult {
	id: number;
	time: number | null;
	faults: number;
	refusals: number;
	disqualified: boolean;
	absence: boolean;
}

export interface ResultsRule {
	base: ResultsBase;
	/** The margin added to the base time, per cent (15: the FCI's). */
	percent: number;
	rounding: Rounding;
}

export interface ResultsSuggestion<R extends CourseResult = CourseResult> {
	/** The runs the SCT is taken from, in ranking order (one, or up to three). */
	from: R[];
	/** Runs that count so far (with a time, not eliminated, not absent). */
	counted: number;
	/** The base: the reference time, or the mean of the first three, seconds (hundredths). */
	baseTime: number;
	standardTime: number;
}

/** Course faults of a run (each fault and each refusal is 5 points): the first ranking key. */
const courseFaults = (r: CourseResult): number => r.faults + r.refusals;

/** The runs that count, ranked: fewest course faults first, then the fastest. */
export function countingResults<R extends CourseResult>(results: readonly R[]): R[] {
	return results
		.filter((r) => r.time !== null && r.time > 0 && !r.disqualified && !r.absence)
		.sort((a, b) => courseFaults(a) - courseFaults(b) || a.time! - b.time! || a.id - b.id);
}

/** The SCT the rule gives from `results`; null while no run counts or the margin is not valid. */
export function standardFromResults<R extends CourseResult>(
	results: readonly R[],
	rule: ResultsRule
): ResultsSuggestion<R> | null {
	const { percent } = rule;
	if (!Number.isFinite(percent) || percent < 0 || percent > MAX_MARGIN_PERCENT) return null;
	const ranked = countingResults(results);
	const from = ranked.slice(0, rule.base === 'fastest' ? 1 : 3);
	if (from.length === 0) return null;
	// In hundredths, as timers measure: no float drift in the mean.
	const cents = from.reduce((sum, r) => sum + Math.round(r.time! * 100), 0) / from.length;
	const baseTime = Math.round(cents) / 100;
	const standardTime = roundSeconds((cents * (100 + percent)) / 10_000, rule.rounding);
	return { from, counted: ranked.length, baseTime, standardTime };
}
