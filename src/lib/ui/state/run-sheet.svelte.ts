import type { CompetitionRow, DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import * as queries from '$lib/db/queries';
import type { CourseParams } from '$lib/domain/types';
import { Live } from './live.svelte';
import { courseOf, entriesByKey } from '../view/run-view';

/** One part of the sheet's reading: its value, and whether the reading has answered. */
export interface Part<T> {
	readonly current: T;
	readonly loaded: boolean;
}

const NO_DOG_RUNS: DogRunRow[] = [];

/**
 * What the secretary's outputs of one run (results, start list, scribe sheets) read: the device's
 * copy of the run, its dogs in start order, its competition, and the unsent edits laid over them.
 * Everything comes from IndexedDB, so every output works offline. Create during component
 * initialisation (Live uses $effect).
 */
export class RunSheet {
	/**
	 * The run, its dogs and their unsent edits in one live query: read apart, the run could show
	 * before its dogs when a download stored both (two queries answer one after the other), and a
	 * sheet printed at that moment said "No dog runs in this run."
	 */
	readonly #all: Live<Awaited<ReturnType<typeof queries.runWithDogRuns>>, number>;
	readonly run: Part<RunRow | undefined>;
	readonly dogRuns: Part<DogRunRow[]>;
	readonly entries: Part<ReadonlyMap<string, OutboxEntry>>;
	readonly competition: Part<CompetitionRow | undefined>;
	/** The competition's reading, with the id it answered for. */
	readonly #competition: Live<
		{ id: number | undefined; row: CompetitionRow | undefined } | undefined,
		number | undefined
	>;

	// A derived, so the competition is read again only when the run's competition changes, not on
	// every live update of the run row.
	#competitionId = $derived.by(() => this.run.current?.competitionId);

	/** The course with an unsent edit of it laid over; null until the run is read. */
	course = $derived.by((): CourseParams | null => {
		const run = this.run.current;
		return run ? courseOf(run, queries.unsentFor(this.entries.current, 'run', run.id)) : null;
	});

	constructor(id: () => number) {
		this.#all = new Live(id, (id) => queries.runWithDogRuns(id), undefined);
		const all = this.#all;
		const part = <T>(pick: () => T): Part<T> => ({
			get current() {
				return pick();
			},
			get loaded() {
				return all.loaded;
			}
		});
		const noEntries = entriesByKey([]);
		this.run = part(() => all.current?.run);
		this.dogRuns = part(() => all.current?.dogRuns ?? NO_DOG_RUNS);
		this.entries = part(() => all.current?.entries ?? noEntries);
		this.#competition = new Live(
			() => this.#competitionId,
			async (competitionId) => ({
				id: competitionId,
				row: competitionId === undefined ? undefined : await queries.competition(competitionId)
			}),
			undefined
		);
		const competition = this.#competition;
		this.competition = {
			get current() {
				return competition.current?.row;
			},
			get loaded() {
				return competition.loaded;
			}
		};
	}

	/** Read, and not (or no longer) stored. */
	get missing(): boolean {
		return this.run.loaded && !this.run.current;
	}

	/**
	 * The run, its dogs and its competition have all answered. The competition is a second query:
	 * counted as loaded only once it has answered for this run's competition, or a sheet printed as
	 * soon as the run showed lacked the competition's name.
	 */
	get loaded(): boolean {
		if (!this.#all.loaded) return false;
		const run = this.run.current;
		return !run || this.#competition.current?.id === run.competitionId;
	}
}
