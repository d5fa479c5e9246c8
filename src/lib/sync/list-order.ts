/**
 * In which order a download asks for the pages of its lists, sharing a few connections. Each
 * request ranks for a free slot (./pool's PrioritySlots):
 *
 * 1. the list of runs, which leads to every other list;
 * 2. a dog-run list whose pages left would end the download after everything else (its chain of
 *    `next` links, one page after another, is as long as the rest of the work spread over every
 *    slot): the longest of them first, so the download does not end on one list read alone;
 * 3. a dog-run list's first page, which tells how many pages follow;
 * 4. any other list's next page, the list with the fewest pages left first: lists then end one
 *    after another all along the download, each stored as soon as it ends, instead of all of
 *    them ending together at the end (as when the longest always went first).
 */
import type { Priority } from './pool';

/** The pages of one list: where it is, once a page is in. */
export interface PageAt {
	/** This page's number, from 0. */
	number: number;
	totalPages: number;
}

/** How one list's requests rank: its first request, then the next after each page read. */
export interface ListRank {
	first: Priority;
	next(page: PageAt): Priority;
}

const RUNS_LIST = Number.POSITIVE_INFINITY;
/** Ranks 2 are above it, ranks 4 below it (a list has fewer pages than this). */
const FIRST_PAGE = 1e9;
/** A list is urgent a little before its chain alone would end the download. */
const MARGIN = 0.8;

export const RUNS_LIST_RANK: ListRank = { first: RUNS_LIST, next: () => RUNS_LIST };

/** The dog-run lists of one download: how much is left to read, and each list's rank. */
export class ListOrder {
	/** Pages of started lists not yet asked for. */
	#unread = 0;
	/** Lists whose first page is not in yet (one page each, as far as is known). */
	#unstarted = 0;

	constructor(readonly slots: number) {}

	/** A list found: ranks for its requests. */
	list(): ListRank {
		this.#unstarted++;
		return {
			first: FIRST_PAGE,
			next: ({ number, totalPages }) => {
				const left = Math.max(0, totalPages - number - 1);
				if (number === 0) {
					this.#unstarted--;
					this.#unread += left;
				} else this.#unread--;
				// Worked out when a slot is free: a list waiting becomes urgent as the rest is read.
				return () => this.#rank(left);
			}
		};
	}

	#rank(left: number): number {
		const rest = this.#unread + this.#unstarted;
		return left * this.slots >= MARGIN * rest ? FIRST_PAGE + left : FIRST_PAGE - left;
	}
}
