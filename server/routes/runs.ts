// Competition runs: a competition's paged runs (by judge and ring), one run, and the PUT that
// changes its course parameters (track length, standard and maximal time).
import { requireRun, runVersion, writableRun } from '../changes/run-change.ts';
import { pagedEnvelope } from '../http/hal.ts';
import { runResource } from '../http/representations.ts';
import { parseId, parseIdParam, parsePage, validateCompetitionRunPatch } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import type { Route } from './route.ts';

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
		writes: writableRun(validateCompetitionRunPatch),
		async get(ex, { repo, etags, api, params }) {
			const run = await requireRun(repo, parseId('runId', params[0] ?? ''));
			etags.send(ex, runResource(api, run), runVersion(run));
		}
	}
];
