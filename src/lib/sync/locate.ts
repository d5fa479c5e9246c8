/**
 * Finds on the service what an address names when the device does not have it: a shared link
 * opened cold. A competition is named by its id; a run or a dog run by theirs alone (`/runs/15`,
 * `/dog-runs/123` say nothing of their competition). Links only, as everywhere: the entry point
 * with its documented parameters (the competitions in progress, then every page), each
 * competition's `competitionRuns`, each run's `dogRuns`; never a URI built from an id.
 *
 * A run or a dog run is looked for in the competitions in progress first, then in the others
 * nearest today, and only in a few of them (SEARCH): a dog run's competition has to be read in
 * full to find it. What was not found is said with how far the search went.
 */
import type { HalClient } from '$lib/api/hal-client';
import { requireLink } from '$lib/api/links';
import { CompetitionRunSchema, CompetitionSchema, type Competition } from '$lib/api/schemas';
import {
	keepCompetition,
	readCompetition,
	type DownloadOptions,
	type DownloadProgress
} from './download';
import { patientPages, type Patience } from './patience';
import { reachability } from './reachability';

export type Wanted =
	| { kind: 'competition'; id: number }
	| { kind: 'run'; id: number }
	| { kind: 'dogRun'; id: number };

/** How far a search goes. */
export interface SearchBounds {
	/** Competitions per page of the list (its documented `size`). */
	pageSize: number;
	/** Pages of the competition list read at most, the competitions in progress included. */
	listPages: number;
	/** Competitions whose runs are looked through for a run. */
	runCompetitions: number;
	/** Competitions read in full for a dog run (each is a download's worth of requests). */
	dogRunCompetitions: number;
}

export const SEARCH: SearchBounds = {
	pageSize: 100,
	listPages: 10,
	runCompetitions: 10,
	dogRunCompetitions: 3
};

export type SearchProgress =
	/** Reading the competition list: how many competitions so far. */
	| { step: 'list'; listed: number }
	/** Looking through one competition (its runs, or everything for a dog run). */
	| {
			step: 'competition';
			/** 1-based: the competition being looked through, of `of`. */
			at: number;
			of: number;
			name: string;
			/** A dog run's search reads the competition in full: its runs so far. */
			read?: DownloadProgress;
	  };

export type Located =
	/** The competition that has it (a competition, or a run's): read it as the screen needs. */
	| { found: 'competition'; competition: Competition }
	/** A dog run's competition, read in full to find it, and kept on the device as a download. */
	| { found: 'kept'; competition: Competition }
	/**
	 * Not there: `looked` competitions were looked through (for a competition, the list read) of
	 * `listed` on the service as far as it was read; `bounded` when the search stopped at its
	 * bound before the end.
	 */
	| { found: false; looked: number; listed: number; bounded: boolean };

export interface LocateOptions {
	signal?: AbortSignal;
	/** YYYY-MM-DD, the device's local date: the search starts nearest it. */
	today?: string;
	onProgress?: (progress: SearchProgress) => void;
	bounds?: Partial<SearchBounds>;
	/** The wait before asking again after a busy answer (the app's backoff policy). */
	busyDelayMs?: () => number;
	/** How many requests a full read has in flight (as a download). */
	concurrency?: number;
}

export async function locate(
	client: HalClient,
	wanted: Wanted,
	options: LocateOptions = {}
): Promise<Located> {
	const bounds = { ...SEARCH, ...options.bounds };
	const patience: Patience = {
		signal: options.signal,
		busyDelayMs: options.busyDelayMs ?? (() => reachability.backgroundDelayMs(Math.random))
	};
	const listing = await listCompetitions(client, bounds, patience, options, wanted);
	if (listing.found) return { found: 'competition', competition: listing.found };
	if (wanted.kind === 'competition') {
		return {
			found: false,
			looked: listing.competitions.length,
			listed: listing.competitions.length,
			bounded: listing.bounded
		};
	}

	const order = searchOrder(listing.competitions, options.today ?? localToday());
	const limit =
		wanted.kind === 'run' ? bounds.runCompetitions : Math.max(0, bounds.dogRunCompetitions);
	const candidates = order.slice(0, limit);
	for (const [i, competition] of candidates.entries()) {
		options.signal?.throwIfAborted();
		const step = { step: 'competition', at: i + 1, of: candidates.length, name: competition.name };
		options.onProgress?.(step as SearchProgress);
		if (wanted.kind === 'run') {
			const href = requireLink(competition._links, 'competitionRuns').href;
			for await (const page of patientPages(
				client,
				href,
				'competitionRuns',
				CompetitionRunSchema,
				patience
			)) {
				if (page.items.some((run) => run.id === wanted.id)) {
					return { found: 'competition', competition };
				}
			}
		} else {
			const readOptions: DownloadOptions = {
				signal: options.signal,
				busyDelayMs: patience.busyDelayMs,
				concurrency: options.concurrency,
				onProgress: (read) => options.onProgress?.({ ...step, step: 'competition', read })
			};
			const read = await readCompetition(client, competition, readOptions);
			if (read.dogRuns.some((row) => row.id === wanted.id)) {
				await keepCompetition(read);
				return { found: 'kept', competition };
			}
		}
	}
	return {
		found: false,
		looked: candidates.length,
		listed: listing.competitions.length,
		bounded: listing.bounded || order.length > candidates.length
	};
}

interface Listing {
	competitions: Competition[];
	/** The list was longer than the pages read. */
	bounded: boolean;
	/** The competition wanted, when that is what the search is for. */
	found?: Competition;
}

/**
 * The service's competitions: those in progress first (the list's `state` filter), then every
 * page of the whole list, each competition once, up to `listPages` pages in all. Looking for a
 * competition, it stops where it is found.
 */
async function listCompetitions(
	client: HalClient,
	bounds: SearchBounds,
	patience: Patience,
	options: LocateOptions,
	wanted: Wanted
): Promise<Listing> {
	const byId = new Map<number, Competition>();
	let pagesLeft = bounds.listPages;
	let bounded = false;
	for (const query of [{ state: 'IN_PROGRESS' }, {}]) {
		const href = client.competitionsUrl({ ...query, size: bounds.pageSize });
		let last = true;
		for await (const page of patientPages(
			client,
			href,
			'competitions',
			CompetitionSchema,
			patience
		)) {
			pagesLeft--;
			for (const competition of page.items) byId.set(competition.id, competition);
			options.onProgress?.({ step: 'list', listed: byId.size });
			const found = wanted.kind === 'competition' ? byId.get(wanted.id) : undefined;
			if (found) return { competitions: [...byId.values()], bounded: false, found };
			last = page.page.number + 1 >= page.page.totalPages;
			if (pagesLeft <= 0) break;
		}
		if (pagesLeft <= 0) {
			bounded = !last;
			break;
		}
	}
	return { competitions: [...byId.values()], bounded };
}

/** The device's date, YYYY-MM-DD. */
function localToday(): string {
	const d = new Date();
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);

/** Days from `today` to the competition's days (0 while it is on). */
export function daysAway(competition: { dateFrom: string; dateTo: string }, today: string): number {
	const t = dayNumber(today);
	const from = dayNumber(competition.dateFrom);
	const to = dayNumber(competition.dateTo);
	if (t < from) return from - t;
	if (t > to) return t - to;
	return 0;
}

/**
 * The order a search looks through competitions: those in progress, then the others nearest
 * today (the next one before the last one at the same distance), ties by id.
 */
export function searchOrder<
	T extends { id: number; state: string; dateFrom: string; dateTo: string }
>(competitions: readonly T[], today: string): T[] {
	const key = (c: T) => ({
		running: c.state === 'IN_PROGRESS' ? 0 : 1,
		away: daysAway(c, today),
		past: c.dateTo < today ? 1 : 0
	});
	return [...competitions].sort((a, b) => {
		const [ka, kb] = [key(a), key(b)];
		return ka.running - kb.running || ka.away - kb.away || ka.past - kb.past || a.id - b.id;
	});
}
