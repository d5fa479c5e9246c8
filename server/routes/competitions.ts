// Competitions: the paged, filtered list (the API's root, linking to joining and devices) and one
// competition (with its judges and rings).
import { pagedEnvelope, type Link } from '../http/hal.ts';
import { type CompetitionRow, type Repository } from '../store/repository.ts';
import { competitionResource } from '../http/representations.ts';
import { parseDateParam, parseId, parsePage } from '../validation.ts';
import { found, type Route } from './route.ts';

/** The competition `id`; throws 404 when there is none. */
export const requireCompetition = async (repo: Repository, id: number): Promise<CompetitionRow> =>
	found(await repo.competition(id), `Competition ${id}`);

export const competitionRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions$/,
		paged: true,
		async get(ex, { repo, etags, push, timers, api, query, auth, caller }) {
			const filter = {
				dateFrom: parseDateParam('dateFrom', query.get('dateFrom')) ?? null,
				dateTo: parseDateParam('dateTo', query.get('dateTo')) ?? null,
				state: query.get('state')
			};
			const page = parsePage(query);
			const total = await repo.countCompetitions(filter);
			const rows = await repo.competitionPage(filter, page.size, page.page * page.size);
			const items = [];
			for (const c of rows) {
				const [judges, rings] = [await repo.judges(c.id), await repo.rings(c.id)];
				items.push(competitionResource(api, c, judges, rings, push !== null, timers?.rings));
			}
			const envelope = pagedEnvelope({
				href: `${api}/competitions`,
				params: [
					['dateFrom', filter.dateFrom ?? undefined],
					['dateTo', filter.dateTo ?? undefined],
					['state', filter.state ?? undefined]
				],
				page,
				total,
				collection: 'competitions',
				items
			});
			// The root (the list without filters, any page) links to joining, and the
			// secretary to the devices: an app finds them there, as it finds everything else.
			if (filter.dateFrom === null && filter.dateTo === null && filter.state === null) {
				const links = envelope._links as Record<string, Link>;
				links.join = { href: `${api}/devices/join` };
				if (auth.actsAsSecretary(caller)) links.devices = { href: `${api}/devices` };
			}
			etags.sendList(ex, envelope);
		}
	},
	{
		re: /^\/api\/v1\/competitions\/([^/]+)$/,
		async get(ex, { repo, etags, push, timers, api, params }) {
			const id = parseId('competitionId', params[0] ?? '');
			const c = await requireCompetition(repo, id);
			const [judges, rings] = [await repo.judges(id), await repo.rings(id)];
			etags.send(ex, competitionResource(api, c, judges, rings, push !== null, timers?.rings));
		}
	}
];
