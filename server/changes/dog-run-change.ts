// A change of a dog run's result (time, faults, refusals, disqualified, absence): how a PUT of
// one, or the mirror's pull of the upstream's, reads, checks, updates and shows it.
import type { Fields } from '../../src/lib/contract/fields.ts';
import { found } from '../http/errors.ts';
import { dogRunResource } from '../http/representations.ts';
import type { Versioned } from '../middleware/etag.ts';
import type { DogRunRow, Repository } from '../store/repository.ts';
import type { DogRunPatch } from '../validation.ts';
import type { Change, Writable } from './commit-change.ts';
import { lazy } from './lazy.ts';
import { requireRun } from './run-change.ts';

/** The dog run `id`; throws 404 when there is none. */
export const requireDogRun = async (repo: Repository, id: number): Promise<DogRunRow> =>
	found(await repo.dogRun(id), `Dog run ${id}`);

/** What If-Match of a PUT of a dog run is about: its own fields, not the run it embeds. */
export const dogRunVersion = (d: DogRunRow): Versioned => ({
	kind: 'dogRun',
	id: d.id,
	version: d.version
});

/** The editable fields of a dog run, in the interface's names and units. */
export function dogRunFields(d: DogRunRow): Fields {
	return {
		time: d.time_cs === null ? null : d.time_cs / 100,
		faults: d.faults,
		refusals: d.refusals,
		disqualified: d.disqualified === 1,
		absence: d.absence === 1
	};
}

/** A change of dog run `id`'s result by `patch` (checked when first asked: 400). */
export function dogRunChange(api: string, id: number, patch: () => DogRunPatch): Change<DogRunRow> {
	return {
		event: 'dogRun',
		read: (repo) => requireDogRun(repo, id),
		versionOf: dogRunVersion,
		check() {
			patch();
		},
		update: (repo, current) => repo.updateDogRun(current, patch()),
		async shown(repo, row) {
			const run = await requireRun(repo, row.competition_run_id);
			return { value: dogRunResource(api, row, run), competitionId: run.competition_id };
		},
		upstream: {
			fields: dogRunFields,
			target: (row) => ({ kind: 'dogRun', id: row.id, runId: row.competition_run_id })
		}
	};
}

/** A PUT of a dog run: its ring is its run's (read only when a steward's rings are checked). */
export function writableDogRun(
	validate: (json: Record<string, unknown>) => DogRunPatch
): Writable<DogRunRow> {
	return {
		change: (api, id, json) =>
			dogRunChange(
				api,
				id,
				lazy(() => validate(json()))
			),
		async ringOf(repo, dogRun) {
			const run = await requireRun(repo, dogRun.competition_run_id);
			return { id: run.ring_id, name: run.ring_name };
		}
	};
}
