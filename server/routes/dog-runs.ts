// Dog runs: a run's paged start list, the next dog runs of a ring, one dog run, and the PUT that
// records its result (time, faults, refusals, disqualified, absence).
import { notFound } from '../errors.ts';
import { pagedEnvelope } from '../hal.ts';
import type { Versioned } from '../middleware/etag.ts';
import { dogRunResource, type DogRunRow, type Repository, type RunRow } from '../resources.ts';
import { parseId, parsePage, validateDogRunPatch } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import { found, type Route } from './route.ts';
import { requireRun } from './runs.ts';

/** The dog run `id`; throws 404 when there is none. */
const requireDogRun = (repo: Repository, id: number): DogRunRow =>
	found(repo.dogRun(id), `Dog run ${id}`);

/** What If-Match of a PUT of a dog run is about: its own fields, not the run it embeds. */
const versionOf = (d: DogRunRow): Versioned => ({ kind: 'dogRun', id: d.id, version: d.version });

/** Dog run resources of rows from several runs, each run read once. */
function dogRunsWithRuns(repo: Repository, api: string, rows: DogRunRow[]): unknown[] {
	const cache = new Map<number, RunRow>();
	return rows.map((d) => {
		let run = cache.get(d.competition_run_id);
		if (!run) {
			run = requireRun(repo, d.competition_run_id);
			cache.set(run.id, run);
		}
		return dogRunResource(api, d, run);
	});
}

export const dogRunRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/nextDogRunsForRing\/([^/]+)$/,
		get(ex, { repo, etags, api, params, query }) {
			const cid = parseId('competitionId', params[0] ?? '');
			const ringId = parseId('ringId', params[1] ?? '');
			const page = parsePage(query);
			requireCompetition(repo, cid);
			if (!repo.ring(cid, ringId)) throw notFound(`Ring ${ringId} not found in competition ${cid}`);
			const total = repo.countNext(cid, ringId);
			const rows = repo.nextPage(cid, ringId, page.size, page.page * page.size);
			etags.send(
				ex,
				pagedEnvelope({
					href: `${api}/competitions/${cid}/nextDogRunsForRing/${ringId}`,
					params: [],
					page,
					total,
					collection: 'dogRuns',
					items: dogRunsWithRuns(repo, api, rows)
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/competitionRuns\/([^/]+)\/dogRuns$/,
		get(ex, { repo, etags, api, params, query }) {
			const id = parseId('runId', params[0] ?? '');
			const page = parsePage(query);
			const run = requireRun(repo, id);
			const total = repo.countDogRuns(id);
			const rows = repo.dogRunPage(id, page.size, page.page * page.size);
			etags.send(
				ex,
				pagedEnvelope({
					href: `${api}/competitionRuns/${id}/dogRuns`,
					params: [],
					page,
					total,
					collection: 'dogRuns',
					items: rows.map((d) => dogRunResource(api, d, run))
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/dogRuns\/([^/]+)$/,
		kind: 'dogRun',
		current: (repo, id) => versionOf(requireDogRun(repo, id)),
		ringOf(repo, id) {
			const run = requireRun(repo, requireDogRun(repo, id).competition_run_id);
			return { id: run.ring_id, name: run.ring_name };
		},
		get(ex, { repo, etags, api, params }) {
			const d = requireDogRun(repo, parseId('runId', params[0] ?? ''));
			const run = requireRun(repo, d.competition_run_id);
			etags.send(ex, dogRunResource(api, d, run), versionOf(d));
		},
		put(ex, { repo, etags, push, api, id, json, logApplied }) {
			const current = requireDogRun(repo, id);
			etags.checkIfMatch(ex.req, versionOf(current));
			const patch = validateDogRunPatch(json);
			const updated = found(
				repo.db.transaction(() => {
					repo.updateDogRun(current, patch);
					const row = repo.dogRun(id);
					if (row) logApplied(`updated dogRun ${id} to version ${row.version}`);
					return row;
				})(),
				`Dog run ${id}`
			);
			const run = requireRun(repo, updated.competition_run_id);
			const template = etags.send(ex, dogRunResource(api, updated, run), versionOf(updated));
			push?.publish(run.competition_id, 'dogRun', template);
			ex.summary = `updated dogRun ${id} to version ${updated.version}`;
		}
	}
];
