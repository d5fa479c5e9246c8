// A change of a competition run's course (track length, standard and maximal time): how a PUT of
// one, or the mirror's pull of the upstream's, reads, checks, updates and shows it.
import { maximalBelowStandard, type Fields } from '../../src/lib/contract/fields.ts';
import { badRequest, found } from '../http/errors.ts';
import { runResource } from '../http/representations.ts';
import type { Versioned } from '../middleware/etag.ts';
import type { Repository, RunRow } from '../store/repository.ts';
import type { CompetitionRunPatch } from '../validation.ts';
import type { Change, Writable } from './commit-change.ts';
import { lazy } from './lazy.ts';

/** The competition run `id`; throws 404 when there is none. */
export const requireRun = async (repo: Repository, id: number): Promise<RunRow> =>
	found(await repo.run(id), `Competition run ${id}`);

/** What If-Match of a PUT of a competition run is about. */
export const runVersion = (r: RunRow): Versioned => ({
	kind: 'competitionRun',
	id: r.id,
	version: r.version
});

/** The course parameters of a competition run, in the interface's names and units. */
export function runFields(r: RunRow): Fields {
	return {
		trackLength: r.track_length,
		standardTime: r.standard_time_ms / 1000,
		maximalTime: r.maximal_time_ms / 1000
	};
}

/** A change of run `id`'s course by `patch` (checked when first asked, with MCT ≥ SCT: 400). */
export function runChange(
	api: string,
	id: number,
	patch: () => CompetitionRunPatch
): Change<RunRow> {
	return {
		event: 'run',
		read: (repo) => requireRun(repo, id),
		versionOf: runVersion,
		check(current) {
			const p = patch();
			const st = p.standardTimeMs ?? current.standard_time_ms;
			const mt = p.maximalTimeMs ?? current.maximal_time_ms;
			if (maximalBelowStandard(st / 1000, mt / 1000)) {
				throw badRequest(
					`Field 'maximalTime' (${mt / 1000}) must be greater than or equal to 'standardTime' (${st / 1000})`
				);
			}
		},
		update: (repo, current) => repo.updateRun(current, patch()),
		shown: async (_repo, row) => ({
			value: runResource(api, row),
			competitionId: row.competition_id
		}),
		upstream: {
			fields: runFields,
			target: (row) => ({ kind: 'run', id: row.id, runId: row.id })
		}
	};
}

/** A PUT of a run: its ring is its own. */
export function writableRun(
	validate: (json: Record<string, unknown>) => CompetitionRunPatch
): Writable<RunRow> {
	return {
		change: (api, id, json) =>
			runChange(
				api,
				id,
				lazy(() => validate(json()))
			),
		ringOf: async (_repo, run) => ({ id: run.ring_id, name: run.ring_name })
	};
}
