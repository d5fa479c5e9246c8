// Competition runs: a competition's paged runs (by judge and ring), one run, and the PUT that
// changes its course parameters (track length, standard and maximal time).
import { maximalBelowStandard } from '../../src/lib/contract/fields.ts';
import { badRequest } from '../errors.ts';
import { pagedEnvelope } from '../hal.ts';
import type { Versioned } from '../middleware/etag.ts';
import { type Repository, type RunRow } from '../resources.ts';
import { runResource } from '../representations.ts';
import {
	parseId,
	parseIdParam,
	parsePage,
	validateCompetitionRunPatch,
	type CompetitionRunPatch
} from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import { commitChange } from './commit-change.ts';
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
			const { api, id, json } = call;
			let patch: CompetitionRunPatch | undefined;
			await commitChange(ex, call, {
				event: 'run',
				read: (repo) => requireRun(repo, id),
				versionOf,
				check(current) {
					patch ??= validateCompetitionRunPatch(json);
					const st = patch.standardTimeMs ?? current.standard_time_ms;
					const mt = patch.maximalTimeMs ?? current.maximal_time_ms;
					if (maximalBelowStandard(st / 1000, mt / 1000)) {
						throw badRequest(
							`Field 'maximalTime' (${mt / 1000}) must be greater than or equal to 'standardTime' (${st / 1000})`
						);
					}
				},
				update: (repo, current) => repo.updateRun(current, patch ?? {}),
				shown: async (_repo, row) => ({
					value: runResource(api, row),
					competitionId: row.competition_id
				})
			});
		}
	}
];
