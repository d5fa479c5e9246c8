/**
 * What the capture screen does with a stop the run clock offers to the dog on screen (pure). The
 * steward still confirms every time with Save; this only decides whether the time goes into the
 * Time field by itself:
 * - `fill`: the field is empty (or already holds this very time);
 * - `ask`: the field holds another time — typed by the steward, the dog's stored result (a rerun),
 *   or an earlier stop (the next dog started while this one was still on screen): both are shown
 *   and the steward picks. A time in the field is never replaced behind the steward's back;
 * - `none`: nothing new: no offer, a stop this form has already dealt with (`seen`), or one the
 *   steward decided on before, by saving the dog or keeping their own time (`used`), so that coming
 *   back to correct the dog does not put it there again.
 */
export type GateFill =
	| { kind: 'none' }
	| { kind: 'fill'; seq: number; elapsed: number }
	| { kind: 'ask'; seq: number; elapsed: number };

export interface GateFillInput {
	/** The stop offered (or assigned) to the dog on screen: `offerFor(state, dog)`. */
	offer: { seq: number; elapsed: number } | null;
	/** Stops decided on this device (saved, or turned down). */
	used: ReadonlySet<number>;
	/** Stops this form (this visit to the dog) has already filled or asked about. */
	seen: ReadonlySet<number>;
	/** The time the field holds now, in hundredths (null: empty or not a time). */
	fieldTime: number | null;
}

export function gateFill({ offer, used, seen, fieldTime }: GateFillInput): GateFill {
	if (!offer || used.has(offer.seq) || seen.has(offer.seq)) return { kind: 'none' };
	if (fieldTime === null || fieldTime === offer.elapsed) return { kind: 'fill', ...offer };
	return { kind: 'ask', ...offer };
}

/** Hundredths of a time in seconds (as the form parses it), or null. */
export function hundredthsOf(seconds: number | null): number | null {
	return seconds === null ? null : Math.round(seconds * 100);
}
