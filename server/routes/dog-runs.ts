// Dog runs: a run's paged start list, the next dog runs of a ring, one dog run, and the PUT that
// records its result (time, faults, refusals, disqualified, absence).
import { requireDogRun, dogRunVersion, writableDogRun } from '../changes/dog-run-change.ts';
import { requireRun } from '../changes/run-change.ts';
import { notFound } from '../http/errors.ts';
import { pagedEnvelope } from '../http/hal.ts';
import { publicDogRunValue } from '../http/public-view.ts';
import { dogRunResource } from '../http/representations.ts';
import { publicationOf } from '../store/publication-table.ts';
import type { DogRunRow, Repository, RunRow } from '../store/repository.ts';
import { parseId, parsePage, validateDogRunPatch } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import type { Route, RouteCall } from './route.ts';

type Shown = (value: Record<string, unknown>) => Record<string, unknown>;

/**
 * How the caller is shown the dog runs of competition `cid`: as they are to the event's staff,
 * as public views show them to the public (read in the answer's snapshot).
 */
async function shownTo(call: RouteCall, cid: number): Promise<Shown> {
	if (call.auth.audienceOf(call.caller) === 'staff') return (value) => value;
	const publication = await publicationOf(call.repo.sql, cid);
	return (value) => publicDogRunValue(value, publication);
}

/** Dog run resources of rows from several runs, each run read once. */
async function dogRunsWithRuns(
	repo: Repository,
	api: string,
	rows: DogRunRow[],
	shown: Shown
): Promise<unknown[]> {
	const cache = new Map<number, RunRow>();
	const items: unknown[] = [];
	for (const d of rows) {
		let run = cache.get(d.competition_run_id);
		if (!run) {
			run = await requireRun(repo, d.competition_run_id);
			cache.set(run.id, run);
		}
		items.push(shown(dogRunResource(api, d, run)));
	}
	return items;
}

export const dogRunRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/nextDogRunsForRing\/([^/]+)$/,
		paged: true,
		async get(ex, call) {
			const { repo, etags, api, params, query } = call;
			const cid = parseId('competitionId', params[0] ?? '');
			const ringId = parseId('ringId', params[1] ?? '');
			const page = parsePage(query);
			await requireCompetition(repo, cid);
			if (!(await repo.ring(cid, ringId))) {
				throw notFound(`Ring ${ringId} not found in competition ${cid}`);
			}
			const total = await repo.countNext(cid, ringId);
			const rows = await repo.nextPage(cid, ringId, page.size, page.page * page.size);
			etags.sendList(
				ex,
				pagedEnvelope({
					href: `${api}/competitions/${cid}/nextDogRunsForRing/${ringId}`,
					params: [],
					page,
					total,
					collection: 'dogRuns',
					items: await dogRunsWithRuns(repo, api, rows, await shownTo(call, cid))
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/competitionRuns\/([^/]+)\/dogRuns$/,
		paged: true,
		async get(ex, call) {
			const { repo, etags, api, params, query } = call;
			const id = parseId('runId', params[0] ?? '');
			const page = parsePage(query);
			const run = await requireRun(repo, id);
			const shown = await shownTo(call, run.competition_id);
			const total = await repo.countDogRuns(id);
			const rows = await repo.dogRunPage(id, page.size, page.page * page.size);
			etags.sendList(
				ex,
				pagedEnvelope({
					href: `${api}/competitionRuns/${id}/dogRuns`,
					params: [],
					page,
					total,
					collection: 'dogRuns',
					items: rows.map((d) => shown(dogRunResource(api, d, run)))
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/dogRuns\/([^/]+)$/,
		kind: 'dogRun',
		writes: writableDogRun(validateDogRunPatch),
		async get(ex, call) {
			const { repo, etags, api, params } = call;
			const d = await requireDogRun(repo, parseId('runId', params[0] ?? ''));
			const run = await requireRun(repo, d.competition_run_id);
			const shown = await shownTo(call, run.competition_id);
			etags.send(ex, shown(dogRunResource(api, d, run)), dogRunVersion(d));
		}
	}
];
