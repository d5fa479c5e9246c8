/**
 * What public views show of a competition: its handlers' names in full, as initials or not at
 * all, and each run's results live or only once the secretary released them (issue 33, part 3;
 * docs/results.md, "Public views"). One rule for both ends: the embedded service answers a viewer
 * with `publicDogRun` of every dog run (a hidden name is never sent), and the app's public screens
 * (the big screen, the follow view, a sheet printed for posting) apply it to whatever copy the
 * device has, a steward's full one included. Pure, imports nothing.
 *
 * This is the event laptop's own state, not the interface's: it is never published upstream.
 */

export const HANDLER_NAMES = ['full', 'initials', 'hidden'] as const;
/** How handlers' names show on public views. */
export type HandlerNames = (typeof HANDLER_NAMES)[number];

export const RESULTS_MODES = ['live', 'released'] as const;
/** `live`: results show as they are recorded; `released`: only a run the secretary released. */
export type ResultsMode = (typeof RESULTS_MODES)[number];

/** Most runs a competition's released list holds (a large event has about 200). */
export const MAX_RELEASED_RUNS = 2000;

/** A competition's settings for public views. */
export interface Publication {
	handlerNames: HandlerNames;
	results: ResultsMode;
	/** The runs whose results were released (used when `results` is `released`). */
	releasedRuns: readonly number[];
}

/** Without settings (a service that has none): everything shows, as before. */
export const OPEN_PUBLICATION: Publication = {
	handlerNames: 'full',
	results: 'live',
	releasedRuns: []
};

/**
 * What a public screen applies while it does not know a competition's settings (a service that
 * has them, not read yet): nothing it might not show.
 */
export const STRICT_PUBLICATION: Publication = {
	handlerNames: 'hidden',
	results: 'released',
	releasedRuns: []
};

/** Whether the results of `runId` show on public views. */
export const resultsShown = (p: Publication, runId: number): boolean =>
	p.results === 'live' || p.releasedRuns.includes(runId);

/** The first letter of a name's piece, upper case where that is one letter ("ß" stays). */
function initial(piece: string): string {
	const first = /\p{L}/u.exec(piece)?.[0];
	if (first === undefined) return '';
	const upper = first.toLocaleUpperCase();
	return `${[...upper].length === 1 ? upper : first}.`;
}

/**
 * "Jana Marie" → "J. M."; "Nováková-Malá" → "N.-M."; composed or not ("Šárka" → "Š."); quotes
 * and other marks before the first letter are skipped; an empty name stays empty. Applied to
 * initials it gives them again.
 */
export function initialsOf(name: string): string {
	return name
		.normalize('NFC')
		.trim()
		.split(/\s+/)
		.map((part) =>
			part
				.split('-')
				.map(initial)
				.filter((i) => i !== '')
				.join('-')
		)
		.filter((part) => part !== '')
		.join(' ');
}

/** The handler's names as public views show them; the identifier only in full. */
export function publicCompetitor<
	C extends { firstname: string; lastname: string; identifier: string }
>(competitor: C, names: HandlerNames): C {
	if (names === 'full') return competitor;
	if (names === 'hidden') return { ...competitor, firstname: '', lastname: '', identifier: '' };
	return {
		...competitor,
		firstname: initialsOf(competitor.firstname),
		lastname: initialsOf(competitor.lastname),
		identifier: ''
	};
}

/** Marks a result kept back until its run is released: whether the dog has run, nothing more. */
export interface Withheld {
	done: boolean;
}

/** The result fields of a dog run (the interface's names). */
interface ResultFields {
	time: number | null;
	faults: number;
	refusals: number;
	disqualified: boolean;
	absence: boolean;
}

/** Whether a dog has run (a time, disqualified or absent), or is marked done while withheld. */
export function ranPublicly(d: ResultFields & { withheld?: Withheld }): boolean {
	if (d.withheld) return d.withheld.done;
	return d.time !== null || d.disqualified || d.absence;
}

/**
 * A dog run of run `runId` as public views may show it under `p`: the handler's names by the
 * setting and, while the run's results are not shown, no result (time null, no faults, refusals,
 * disqualification or absence) and `withheld: { done }` in their place. Applying it twice gives
 * the same: a copy a viewer was sent keeps its `withheld`.
 */
export function publicDogRun<
	D extends ResultFields & {
		competitor: { firstname: string; lastname: string; identifier: string };
		withheld?: Withheld;
	}
>(d: D, runId: number, p: Publication): D & { withheld?: Withheld } {
	const competitor = publicCompetitor(d.competitor, p.handlerNames);
	if (resultsShown(p, runId) && !d.withheld) {
		return competitor === d.competitor ? d : { ...d, competitor };
	}
	return {
		...d,
		competitor,
		time: null,
		faults: 0,
		refusals: 0,
		disqualified: false,
		absence: false,
		withheld: { done: ranPublicly(d) }
	};
}

/** The settings a PUT asks for, checked; a message naming the field when they are not valid. */
export function checkPublicationPatch(
	body: Record<string, unknown>
): { ok: true; patch: Partial<Publication> } | { ok: false; message: string } {
	const patch: { -readonly [K in keyof Publication]?: Publication[K] } = {};
	if (Object.keys(body).length === 0) {
		return { ok: false, message: 'Send at least one of handlerNames, results or releasedRuns' };
	}
	for (const key of Object.keys(body)) {
		if (key !== 'handlerNames' && key !== 'results' && key !== 'releasedRuns') {
			return {
				ok: false,
				message: `Unknown field '${key}'; send handlerNames, results or releasedRuns`
			};
		}
	}
	const { handlerNames, results, releasedRuns } = body;
	if (handlerNames !== undefined) {
		if (!HANDLER_NAMES.includes(handlerNames as HandlerNames)) {
			return { ok: false, message: `handlerNames must be one of ${HANDLER_NAMES.join(', ')}` };
		}
		patch.handlerNames = handlerNames as HandlerNames;
	}
	if (results !== undefined) {
		if (!RESULTS_MODES.includes(results as ResultsMode)) {
			return { ok: false, message: `results must be one of ${RESULTS_MODES.join(', ')}` };
		}
		patch.results = results as ResultsMode;
	}
	if (releasedRuns !== undefined) {
		if (
			!Array.isArray(releasedRuns) ||
			releasedRuns.length > MAX_RELEASED_RUNS ||
			!releasedRuns.every((id) => Number.isSafeInteger(id) && (id as number) >= 1)
		) {
			return {
				ok: false,
				message: `releasedRuns must be a list of at most ${MAX_RELEASED_RUNS} run ids`
			};
		}
		patch.releasedRuns = [...new Set(releasedRuns as number[])].sort((a, b) => a - b);
	}
	return { ok: true, patch };
}
