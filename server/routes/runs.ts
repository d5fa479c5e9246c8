// Competition runs: a competition's paged runs (by judge and ring), one run, and the PUT that
// changes its course parameters (track length, standard and maximal time).
import { badRequest } from '../errors.ts';
import { pagedEnvelope } from '../hal.ts';
import type { Versioned } from '../middleware/etag.ts';
import { runResource, type Repository, type RunRow } from '../resources.ts';
import { parseId, parseIdParam, parsePage, validateCompetitionRunPatch } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import { found, type Route } from './route.ts';

/** The competition run `id`; throws 404 when there is none. */
export const requireRun = (repo: Repository, id: number): RunRow =>
	found(repo.run(id), `Competition run ${id}`);

/** What If-Match of a PUT of a competition run is about. */
const versionOf = (r: RunRow): Versioned => ({
	kind: 'competitionRun',
	id: r.id,
	version: r.version
});

export const runRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/runs$/,
		get(ex, { repo, etags, api, params, query }) {
			const cid = parseId('competitionId', params[0] ?? '');
			const judgeId = parseIdParam('judgeId', query.get('judgeId')) ?? null;
			const ringId = parseIdParam('ringId', query.get('ringId')) ?? null;
			const page = parsePage(query);
			requireCompetition(repo, cid);
			const filter = { cid, judgeId, ringId };
			const total = repo.countRuns(filter);
			const rows = repo.runPage(filter, page.size, page.page * page.size);
			etags.send(
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
		current: (repo, id) => versionOf(requireRun(repo, id)),
		ringOf(repo, id) {
			const run = requireRun(repo, id);
			return { id: run.ring_id, name: run.ring_name };
		},
		get(ex, { repo, etags, api, params }) {
			const run = requireRun(repo, parseId('runId', params[0] ?? ''));
			etags.send(ex, runResource(api, run), versionOf(run));
		},
		put(ex, { repo, etags, push, api, id, json, logApplied }) {
			const current = requireRun(repo, id);
			etags.checkIfMatch(ex.req, versionOf(current));
			const patch = validateCompetitionRunPatch(json);
			const st = patch.standardTimeMs ?? current.standard_time_ms;
			const mt = patch.maximalTimeMs ?? current.maximal_time_ms;
			if (mt < st) {
				throw badRequest(
					`Field 'maximalTime' (${mt / 1000}) must be greater than or equal to 'standardTime' (${st / 1000})`
				);
			}
			const updated = found(
				repo.db.transaction(() => {
					repo.updateRun(current, patch);
					const row = repo.run(id);
					if (row) logApplied(`updated competitionRun ${id} to version ${row.version}`);
					return row;
				})(),
				`Competition run ${id}`
			);
			const template = etags.send(ex, runResource(api, updated), versionOf(updated));
			push?.publish(updated.competition_id, 'run', template);
			ex.summary = `updated competitionRun ${id} to version ${updated.version}`;
		}
	}
];
