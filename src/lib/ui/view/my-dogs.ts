/**
 * A spectator's own dogs on the ring they follow: when each is next (at the start, to the gate,
 * or how many dogs before it), or how it did. Pure: the spectators' view loads the ring's runs
 * and the marks kept on the phone, this decides.
 */
import type { DogRunRow, RunRow } from '$lib/db/db';
import type { EntriesByKey } from '$lib/db/keys';
import { TO_GATE, waitingDogs, type RingRun } from './board';
import { courseOf, runView, type DogRunView } from './run-view';
import { handlerName } from './public-view';
import { unsentFor } from '$lib/db/keys';

/** A dog marked on this phone: kept with its name, which shows even when it is not on the ring. */
export interface MarkedDog {
	id: number;
	name: string;
	handler: string;
}

export type MyDogStatus =
	| { kind: 'start'; run: RunRow; startNo: number }
	/** Called to the gate: `before` dogs run first (1 to TO_GATE). */
	| { kind: 'gate'; run: RunRow; startNo: number; before: number }
	| { kind: 'waiting'; run: RunRow; startNo: number; before: number }
	/** Nothing left for it on the ring: its last result. */
	| { kind: 'done'; run: RunRow; startNo: number; view: DogRunView }
	/** Not in the ring's runs on this phone. */
	| { kind: 'elsewhere' };

export interface MyDog {
	dog: MarkedDog;
	status: MyDogStatus;
}

const dogOf = (row: DogRunRow) => row.data.dog.id;

/** Each marked dog's status, in the order they come on the ring (the done and the others last). */
export function myDogs(
	runs: readonly RingRun[],
	entries: EntriesByKey,
	marked: readonly MarkedDog[]
): MyDog[] {
	const queue = waitingDogs(runs, entries);
	const order = new Map<number, number>();
	const out = marked.map((dog): MyDog => {
		const before = queue.findIndex((d) => dogOf(d.row) === dog.id);
		if (before >= 0) {
			order.set(dog.id, before);
			const { run, startNo } = queue[before]!;
			if (before === 0) return { dog, status: { kind: 'start', run, startNo } };
			const kind = before <= TO_GATE ? 'gate' : 'waiting';
			return { dog, status: { kind, run, startNo, before } };
		}
		for (let i = runs.length - 1; i >= 0; i--) {
			const { run, dogRuns } = runs[i]!;
			if (!dogRuns.some((row) => dogOf(row) === dog.id)) continue;
			const course = courseOf(run, unsentFor(entries, 'run', run.id));
			const view = runView(dogRuns, entries, course).find((v) => dogOf(v.row) === dog.id)!;
			order.set(dog.id, queue.length + runs.length - i);
			return { dog, status: { kind: 'done', run, startNo: view.row.order + 1, view } };
		}
		return { dog, status: { kind: 'elsewhere' } };
	});
	const rank = (d: MyDog) => order.get(d.dog.id) ?? Infinity;
	return out.sort((a, b) => rank(a) - rank(b));
}

/** Every dog of the ring's runs once (the first time it starts), for the spectator to find. */
export function ringDogs(runs: readonly RingRun[]): MarkedDog[] {
	const seen = new Map<number, MarkedDog>();
	for (const { dogRuns } of runs) {
		for (const { data } of dogRuns) {
			if (seen.has(data.dog.id)) continue;
			seen.set(data.dog.id, {
				id: data.dog.id,
				name: data.dog.name,
				handler: handlerName(data.competitor)
			});
		}
	}
	return [...seen.values()];
}

/** The dogs whose name or handler contains every word typed (any case, any accents). */
export function findDogs(dogs: readonly MarkedDog[], typed: string): MarkedDog[] {
	const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
	const words = fold(typed).split(/\s+/).filter(Boolean);
	if (words.length === 0) return [];
	return dogs.filter((d) => {
		const text = fold(`${d.name} ${d.handler}`);
		return words.every((w) => text.includes(w));
	});
}
