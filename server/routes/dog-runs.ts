// Dog runs: a run's paged start list, the next dog runs of a ring, one dog run, and the PUT that
// records its result (time, faults, refusals, disqualified, absence).
import { notFound } from '../http/errors.ts';
import { pagedEnvelope } from '../http/hal.ts';
import type { Versioned } from '../middleware/etag.ts';
import { type DogRunRow, type Repository, type RunRow } from '../resources.ts';
import { dogRunResource } from '../http/representations.ts';
import { parseId, parsePage, validateDogRunPatch, type DogRunPatch } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import type { Fields } from '../../src/lib/contract/fields.ts';
import { commitChange, type Change } from './commit-change.ts';
import { lazy } from './lazy.ts';
import { found, type Route } from './route.ts';
import { requireRun } from './runs.ts';

/** The dog run `id`; throws 404 when there is none. */
const requireDogRun = async (repo: Repository, id: number): Promise<DogRunRow> =>
	found(await repo.dogRun(id), `Dog run ${id}`);

/** What If-Match of a PUT of a dog run is about: its own fields, not the run it embeds. */
const versionOf = (d: DogRunRow): Versioned => ({ kind: 'dogRun', id: d.id, version: d.version });

/** Dog run resources of rows from several runs, each run read once. */
async function dogRunsWithRuns(
	repo: Repository,
	api: string,
	rows: DogRunRow[]
): Promise<unknown[]> {
	const cache = new Map<number, RunRow>();
	const items: unknown[] = [];
	for (const d of rows) {
		let run = cache.get(d.competition_run_id);
		if (!run) {
			run = await requireRun(repo, d.competition_run_id);
			cache.set(run.id, run);
		}
		items.push(dogRunResource(api, d, run));
	}
	return items;
}

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
		versionOf,
		check() {
			patch();
		},
		update: (repo, current) => repo.updateDogRun(current, patch()),
		async shown(repo, row) {
			const run = await requireRun(repo, row.competition_run_id);
			return { value: dogRunResource(api, row, run), competitionId: run.competition_id };
		},
		fields: dogRunFields,
		target: (row) => ({ kind: 'dogRun', id: row.id, runId: row.competition_run_id })
	};
}

export const dogRunRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/nextDogRunsForRing\/([^/]+)$/,
		paged: true,
		async get(ex, { repo, etags, api, params, query }) {
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
					items: await dogRunsWithRuns(repo, api, rows)
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/competitionRuns\/([^/]+)\/dogRuns$/,
		paged: true,
		async get(ex, { repo, etags, api, params, query }) {
			const id = parseId('runId', params[0] ?? '');
			const page = parsePage(query);
			const run = await requireRun(repo, id);
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
					items: rows.map((d) => dogRunResource(api, d, run))
				})
			);
		}
	},
	{
		re: /^\/api\/v1\/dogRuns\/([^/]+)$/,
		kind: 'dogRun',
		current: async (repo, id) => versionOf(await requireDogRun(repo, id)),
		async ringOf(repo, id) {
			const run = await requireRun(repo, (await requireDogRun(repo, id)).competition_run_id);
			return { id: run.ring_id, name: run.ring_name };
		},
		async get(ex, { repo, etags, api, params }) {
			const d = await requireDogRun(repo, parseId('runId', params[0] ?? ''));
			const run = await requireRun(repo, d.competition_run_id);
			etags.send(ex, dogRunResource(api, d, run), versionOf(d));
		},
		async put(ex, call) {
			const patch = lazy(() => validateDogRunPatch(call.json));
			await commitChange(ex, call, dogRunChange(call.api, call.id, patch));
		}
	}
];
