import type { CompetitionRow, DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import * as queries from '$lib/db/queries';
import type { CourseParams } from '$lib/domain/types';
import { Live } from './live.svelte';
import { courseOf, entriesByKey } from './run-view';

/**
 * What the secretary's outputs of one run (results, start list, scribe sheets) read: the device's
 * copy of the run, its dogs in start order, its competition, and the unsent edits laid over them.
 * Everything comes from IndexedDB, so every output works offline. Create during component
 * initialisation (Live uses $effect).
 */
export class RunSheet {
	readonly run: Live<RunRow | undefined, number>;
	readonly dogRuns: Live<DogRunRow[], number>;
	readonly entries: Live<ReadonlyMap<string, OutboxEntry>, number>;
	readonly competition: Live<CompetitionRow | undefined, number | undefined>;

	// A derived, so the competition is read again only when the run's competition changes, not on
	// every live update of the run row.
	#competitionId = $derived.by(() => this.run.current?.competitionId);

	/** The course with an unsent edit of it laid over; null until the run is read. */
	course = $derived.by((): CourseParams | null => {
		const run = this.run.current;
		return run ? courseOf(run, queries.unsentFor(this.entries.current, 'run', run.id)) : null;
	});

	constructor(id: () => number) {
		this.run = new Live(id, (id) => queries.run(id), undefined as RunRow | undefined);
		this.dogRuns = new Live(id, (id) => queries.dogRunsInOrder(id), [] as DogRunRow[]);
		this.entries = new Live(id, (id) => queries.runEntries(id), entriesByKey([]));
		this.competition = new Live(
			() => this.#competitionId,
			async (competitionId) =>
				competitionId === undefined ? undefined : queries.competition(competitionId),
			undefined as CompetitionRow | undefined
		);
	}

	/** Read, and not (or no longer) stored. */
	get missing(): boolean {
		return this.run.loaded && !this.run.current;
	}

	get loaded(): boolean {
		return this.run.loaded && this.dogRuns.loaded;
	}
}
