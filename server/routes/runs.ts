// Competition runs: a competition's paged runs (by judge and ring), one run, and the PUT that
// changes its course parameters (track length, standard and maximal time).
import { maximalBelowStandard } from '../../src/lib/contract/fields.ts';
import { badRequest } from '../http/errors.ts';
import { pagedEnvelope } from '../http/hal.ts';
import type { Versioned } from '../middleware/etag.ts';
import { type Repository, type RunRow } from '../resources.ts';
import { runResource } from '../http/representations.ts';
import {
	parseId,
	parseIdParam,
	parsePage,
	validateCompetitionRunPatch,
	type CompetitionRunPatch
} from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import type { Fields } from '../../src/lib/contract/fields.ts';
import { commitChange, type Change } from './commit-change.ts';
import { lazy } from './lazy.ts';
import { found, type Route } from './route.ts';

/** The competition run `id`; throws 404 when there is none. */
export const requireRun = async (repo: Repository, id: number): Promise<RunRow> =>
	found(await repo.run(id), `Competition run ${id}`);

/** What If-Match of a PUT of a competition run is about. */
const versionOf = (r: RunRow): Versioned => ({
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
		versionOf,
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
		fields: runFields,
		target: (row) => ({ kind: 'run', id: row.id, runId: row.id })
	};
}

export const runRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/runs$/,
		paged: true,
		async get(ex, { repo, etags, api, params, query }) {
			const cid = parseId('competitionId', params[0] ?? '');
			const judgeId = parseIdParam('judgeId', query.get('judgeId')) ?? null;
			const ringId = parseIdParam('ringId', query.get('ringId')) ?? null;
			const page = parsePage(query);
			await requireCompetition(repo, cid);
			const filter = { cid, judgeId, ringId };
			const total = await repo.countRuns(filter);
			const rows = await repo.runPage(filter, page.size, page.page * page.size);
			etags.sendList(
				ex,
				pagedEnvelope({
					href: `${api}/competitions/${cid}/runs`,
					params: [
						['judgeId', judgeId === null ? undefined : String(judgeId)],
						['ringId', ringId === null ? undefined : String(ringId)]
					],
					page,
					total,
					collection: 'competitionRuns',
					items: rows.map((row) => runResource(api, row))
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/competitionRuns\/([^/]+)$/,
		kind: 'competitionRun',
		current: async (repo, id) => versionOf(await requireRun(repo, id)),
		async ringOf(repo, id) {
			const run = await requireRun(repo, id);
			return { id: run.ring_id, name: run.ring_name };
		},
		async get(ex, { repo, etags, api, params }) {
			const run = await requireRun(repo, parseId('runId', params[0] ?? ''));
			etags.send(ex, runResource(api, run), versionOf(run));
		},
		async put(ex, call) {
			const patch = lazy(() => validateCompetitionRunPatch(call.json));
			await commitChange(ex, call, runChange(call.api, call.id, patch));
		}
	}
];
