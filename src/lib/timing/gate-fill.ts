/**
 * What the capture screen does with a stop the run clock offers to the dog on screen (pure). The
 * steward still confirms every time with Save & next; this only decides whether the time goes into
 * the Time field by itself:
 * - `fill`: the field is the steward's to overwrite (they have not typed in it since the dog was
 *   shown, or it holds an earlier time from the gates);
 * - `ask`: they typed a time by hand: both are shown and the steward picks one (their typing is
 *   never overwritten behind their back);
 * - `none`: nothing new (no offer, or this stop was already put in a form once: coming back to the
 *   dog after saving must not put it there again over a correction).
 */
export type GateFill =
	| { kind: 'none' }
	| { kind: 'fill'; seq: number; elapsed: number }
	| { kind: 'ask'; seq: number; elapsed: number };

export interface GateFillInput {
	/** The stop offered (or assigned) to the dog on screen: `offerFor(state, dog)`. */
	offer: { seq: number; elapsed: number } | null;
	/** Stops already put in a form (or turned down) on this device. */
	used: ReadonlySet<number>;
	/** The steward typed in the Time field since the form was filled. */
	typed: boolean;
	/** The time the field holds now, in hundredths (null: empty or not a time). */
	fieldTime: number | null;
}

export function gateFill({ offer, used, typed, fieldTime }: GateFillInput): GateFill {
	if (!offer || used.has(offer.seq)) return { kind: 'none' };
	if (fieldTime === offer.elapsed) return { kind: 'fill', ...offer };
	if (typed && fieldTime !== null) return { kind: 'ask', ...offer };
	return { kind: 'fill', ...offer };
}

/** Hundredths of a time in seconds (as the form parses it), or null. */
export function hundredthsOf(seconds: number | null): number | null {
	return seconds === null ? null : Math.round(seconds * 100);
}
