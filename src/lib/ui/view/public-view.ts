/**
 * A ring as its public views show it (the big screen, the follow view): every dog run through the
 * competition's settings ($lib/contract/publication), whatever copy the device has: a steward's
 * full one, or the public one a viewer was sent. Unsent edits of this device are laid over first
 * and then go the same way: a public screen shows no result the settings keep back, recorded here
 * or not. Pure.
 */
import { publicDogRun, type Publication } from '$lib/contract/publication';
import { overlay } from '$lib/domain/overlay';
import { unsentFor, type EntriesByKey } from '$lib/db/keys';
import type { RingRun } from '$lib/db/ring-queries';

export interface PublicRing {
	runs: RingRun[];
	/** Only the runs' unsent course edits: the dog runs' are in `runs` already. */
	entries: EntriesByKey;
}

export function publicRing(
	stored: { runs: readonly RingRun[]; entries: EntriesByKey },
	p: Publication
): PublicRing {
	const runs = stored.runs.map(({ run, dogRuns }) => ({
		run,
		dogRuns: dogRuns.map((row) => {
			const seen = overlay(row.data, unsentFor(stored.entries, 'dogRun', row.id));
			return { ...row, data: publicDogRun(seen, run.id, p) };
		})
	}));
	const entries = new Map([...stored.entries].filter(([, e]) => e.kind === 'run'));
	return { runs, entries };
}

/** A handler's name as public views show it (already applied to the copy): "" when hidden. */
export const handlerName = (c: { firstname: string; lastname: string }): string =>
	`${c.firstname} ${c.lastname}`.trim();
