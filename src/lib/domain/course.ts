/**
 * Course times from the track, as the FCI rules set them: the standard course time (SCT) is the
 * track length divided by a speed the judge chooses (typically 2.5 – 5.1 m/s); the maximal course
 * time (MCT) is a multiple of the SCT (usually 1.5 – 2×) or, at some events, the length divided by a
 * slower speed. Organisers round to whole seconds in their own way, so the rounding is a choice.
 * The results are suggestions that fill the fields; the steward can still change them.
 */

/** 'up': whole seconds, never less time than the speed gives; 'none': hundredths, as timers measure. */
export type Rounding = 'up' | 'nearest' | 'none';
export const ROUNDINGS: readonly Rounding[] = ['up', 'nearest', 'none'];
/** Whole seconds, rounded up: no dog is given less time than the chosen speed allows. */
export const DEFAULT_ROUNDING: Rounding = 'up';
/** The usual multiple of the SCT for the MCT (FCI: 1.5 – 2×). */
export const DEFAULT_MAXIMAL_FACTOR = 1.5;

/** How the MCT is set: a multiple of the (rounded) SCT, or the track length at a slower speed. */
export type MaximalRule = { factor: number } | { speed: number };

export interface CourseTimes {
	standardTime: number;
	maximalTime: number;
}

const positive = (n: number) => Number.isFinite(n) && n > 0;

/**
 * Seconds rounded as the organiser chooses. A quotient such as 160 / 3.2 may come out of float
 * division a hair off (50.00000000000001); it is snapped to a millionth first, so "up" gives 50.
 */
export function roundSeconds(seconds: number, rounding: Rounding): number {
	const snapped = Math.round(seconds * 1e6) / 1e6;
	switch (rounding) {
		case 'up':
			return Math.ceil(snapped);
		case 'nearest':
			return Math.round(snapped);
		case 'none':
			return Math.round(snapped * 100) / 100;
	}
}

/** Track length (m) ÷ speed (m/s), rounded; null unless both are positive numbers. */
export function timeFromSpeed(
	trackLength: number,
	speed: number,
	rounding: Rounding = DEFAULT_ROUNDING
): number | null {
	if (!positive(trackLength) || !positive(speed)) return null;
	return roundSeconds(trackLength / speed, rounding);
}

/** A multiple of the standard time, rounded; null unless both are positive numbers. */
export function timeFromFactor(
	standardTime: number,
	factor: number,
	rounding: Rounding = DEFAULT_ROUNDING
): number | null {
	if (!positive(standardTime) || !positive(factor)) return null;
	return roundSeconds(standardTime * factor, rounding);
}

/**
 * SCT from the track length and the judge's speed, and MCT by the event's rule (a multiple of that
 * rounded SCT, as published, or the length at its own speed), both rounded alike. null when an
 * input is missing or not positive.
 */
export function courseTimes(
	trackLength: number,
	speed: number,
	maximal: MaximalRule,
	rounding: Rounding = DEFAULT_ROUNDING
): CourseTimes | null {
	const standardTime = timeFromSpeed(trackLength, speed, rounding);
	if (standardTime === null) return null;
	const maximalTime = maximalFor(standardTime, trackLength, maximal, rounding);
	return maximalTime === null ? null : { standardTime, maximalTime };
}

/**
 * The MCT by the event's rule: a multiple of the (rounded, published) SCT, or the track length at
 * a slower speed; rounded alike. null when an input is not positive.
 */
export function maximalFor(
	standardTime: number,
	trackLength: number,
	rule: MaximalRule,
	rounding: Rounding
): number | null {
	return 'factor' in rule
		? timeFromFactor(standardTime, rule.factor, rounding)
		: timeFromSpeed(trackLength, rule.speed, rounding);
}
