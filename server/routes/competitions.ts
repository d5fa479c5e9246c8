// Competitions: the paged, filtered list (the API's root, linking to joining and devices) and one
// competition (with its judges and rings).
import { pagedEnvelope, type Link } from '../hal.ts';
import { competitionResource, type CompetitionRow, type Repository } from '../resources.ts';
import { parseDateParam, parseId, parsePage } from '../validation.ts';
import { found, type Route } from './route.ts';

/** The competition `id`; throws 404 when there is none. */
export const requireCompetition = (repo: Repository, id: number): CompetitionRow =>
	found(repo.competition(id), `Competition ${id}`);

export const competitionRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions$/,
		get(ex, { repo, etags, push, timers, api, query, auth, caller }) {
			const filter = {
				dateFrom: parseDateParam('dateFrom', query.get('dateFrom')) ?? null,
				dateTo: parseDateParam('dateTo', query.get('dateTo')) ?? null,
				state: query.get('state')
			};
			const page = parsePage(query);
			const total = repo.countCompetitions(filter);
			const rows = repo.competitionPage(filter, page.size, page.page * page.size);
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
				items: rows.map((c) =>
					competitionResource(
						api,
						c,
						repo.judges(c.id),
						repo.rings(c.id),
						push !== null,
						timers?.rings
					)
				)
			});
			// The root (the list without filters, any page) links to joining, and the
			// secretary to the devices: an app finds them there, as it finds everything else.
			if (filter.dateFrom === null && filter.dateTo === null && filter.state === null) {
				const links = envelope._links as Record<string, Link>;
				links.join = { href: `${api}/devices/join` };
				if (auth.managesDevices(caller)) links.devices = { href: `${api}/devices` };
			}
			etags.send(ex, envelope);
		}
	},
	{
		re: /^\/api\/v1\/competitions\/([^/]+)$/,
		get(ex, { repo, etags, push, timers, api, params }) {
			const id = parseId('competitionId', params[0] ?? '');
			const c = requireCompetition(repo, id);
			etags.send(
				ex,
				competitionResource(api, c, repo.judges(id), repo.rings(id), push !== null, timers?.rings)
			);
		}
	}
];
