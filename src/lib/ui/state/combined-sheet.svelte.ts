import { untrack } from 'svelte';
import { SvelteMap } from 'svelte/reactivity';
import type { RunRow } from '$lib/db/db';
import * as queries from '$lib/db/queries';
import { fetchDogRuns } from '$lib/sync/browse';
import { serviceClient } from '../browser/service-client';
import { connectivity } from './connectivity.svelte';
import { errorText } from '../view/error-text';
import { byStart, type StoredRun } from '../view/combined-view';
import { Live } from './live.svelte';
import { entriesByKey } from '../view/run-view';

/**
 * One chosen run as the device has it: stored with its dogs; its row stored but not its dogs (the
 * run was listed, never opened, and the competition not made available offline); or not at all.
 */
export type ChosenRun =
	| { id: number; state: 'stored'; stored: StoredRun }
	| { id: number; state: 'no-dogs'; run: RunRow }
	| { id: number; state: 'unknown' };

/**
 * Why a chosen run cannot be combined: not on the device (offline, or not asked yet), being read
 * from the service, or the words of a failed read.
 */
export interface CombineProblem {
	id: number;
	/** null: not even the run is stored (its name is unknown). */
	run: RunRow | null;
	reason: 'not-stored' | 'reading' | 'failed';
	/** The failed read's words. */
	message?: string;
}

/**
 * The chosen runs as stored, in the order of the day. A run whose dog runs are not stored counts
 * as stored with no dogs only when the competition's download completed (then it has none).
 * A run of another competition is left out.
 */
export async function readChosenRuns(
	competitionId: number,
	ids: readonly number[]
): Promise<ChosenRun[]> {
	const download = await queries.download(competitionId);
	const downloaded = download?.completedAt != null;
	const chosen = await Promise.all(
		ids.map(async (id): Promise<ChosenRun | null> => {
			const read = await queries.runWithDogRuns(id);
			if (!read) return { id, state: 'unknown' };
			const { run, dogRuns, entries } = read;
			if (run.competitionId !== competitionId) return null;
			if (dogRuns.length === 0 && !downloaded) return { id, state: 'no-dogs', run };
			return { id, state: 'stored', stored: { run, dogRuns, entries } };
		})
	);
	const known = chosen.filter((c): c is ChosenRun => c !== null);
	const runOf = (c: ChosenRun) =>
		c.state === 'stored' ? c.stored.run : c.state === 'no-dogs' ? c.run : null;
	return known.sort((a, b) => {
		const [ra, rb] = [runOf(a), runOf(b)];
		return ra && rb ? byStart(ra, rb) : ra ? -1 : rb ? 1 : a.id - b.id;
	});
}

/**
 * What the combined results read: the competition's stored runs (to offer) and the chosen runs,
 * live from IndexedDB, so the list works offline. Online, a chosen run whose dogs are not stored
 * is read once through its `dogRuns` link (as opening it would), and stored. Create during
 * component initialisation (Live uses $effect).
 */
export class CombinedSheet {
	readonly competitionRuns: Live<RunRow[], number | undefined>;
	readonly chosen: Live<ChosenRun[], { competitionId: number | undefined; ids: number[] }>;
	/** Runs being read from the service now, and why a read failed, by run id. */
	readonly reading = new SvelteMap<number, 'reading' | { failed: string }>();
	/** Runs read from the service on this screen: without dogs stored, they have none. */
	// A map, not a SvelteSet: the first screen already loads SvelteMap, and nothing else needs Set.
	readonly #read = new SvelteMap<number, true>();
	/** Runs asked for on this screen: not reactive, it only keeps one read per run. */
	// eslint-disable-next-line svelte/prefer-svelte-reactivity
	readonly #asked = new Set<number>();

	/** The chosen runs that can be combined, in the order of the day. */
	stored = $derived.by((): StoredRun[] =>
		this.chosen.current.flatMap((c) =>
			c.state === 'stored'
				? [c.stored]
				: c.state === 'no-dogs' && this.#read.has(c.id)
					? [{ run: c.run, dogRuns: [], entries: entriesByKey([]) }]
					: []
		)
	);

	/** The chosen runs that cannot be combined yet, and why: not on the device, being read, failed. */
	problems = $derived.by((): CombineProblem[] =>
		this.chosen.current.flatMap((c): CombineProblem[] => {
			if (c.state === 'stored' || this.#read.has(c.id)) return [];
			const run = c.state === 'no-dogs' ? c.run : null;
			const reading = this.reading.get(c.id);
			if (reading === undefined) return [{ id: c.id, run, reason: 'not-stored' }];
			if (reading === 'reading') return [{ id: c.id, run, reason: 'reading' }];
			return [{ id: c.id, run, reason: 'failed', message: reading.failed }];
		})
	);

	constructor(competitionId: () => number | undefined, ids: () => number[]) {
		this.competitionRuns = new Live(
			competitionId,
			async (id) => (id === undefined ? [] : queries.competitionRuns(id)),
			[] as RunRow[]
		);
		this.chosen = new Live(
			() => ({ competitionId: competitionId(), ids: ids() }),
			async ({ competitionId, ids }) =>
				competitionId === undefined || ids.length === 0 ? [] : readChosenRuns(competitionId, ids),
			[] as ChosenRun[]
		);
		$effect(() => {
			if (!connectivity.online) return;
			const missing = this.chosen.current.flatMap((c) => (c.state === 'no-dogs' ? [c.run] : []));
			untrack(() => {
				for (const run of missing) if (!this.#asked.has(run.id)) void this.#readRun(run);
			});
		});
	}

	async #readRun(run: RunRow): Promise<void> {
		this.#asked.add(run.id);
		this.reading.set(run.id, 'reading');
		try {
			await fetchDogRuns(await serviceClient(), run.data, run.competitionId);
			this.#read.set(run.id, true);
			this.reading.delete(run.id);
		} catch (error) {
			this.reading.set(run.id, { failed: errorText(error) });
			// Asked again when the signal comes back or the choice changes.
			this.#asked.delete(run.id);
		}
	}
}
