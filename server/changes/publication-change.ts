// A change of what public views show of a competition (the secretary's settings): read, checked,
// updated and shown as every PUT's change is, but never published upstream (the event laptop's
// own state; src/lib/contract/publication.ts).
import { checkPublicationPatch, type Publication } from '../../src/lib/contract/publication.ts';
import { badRequest, found } from '../http/errors.ts';
import { publicationResource } from '../http/representations.ts';
import type { Versioned } from '../middleware/etag.ts';
import {
	publicationOf,
	updatePublication,
	type PublicationRow
} from '../store/publication-table.ts';
import type { Repository } from '../store/repository.ts';
import type { Change } from './commit-change.ts';
import { lazy } from './lazy.ts';

/** What If-Match of a PUT of a competition's publication is about. */
export const publicationVersion = (p: PublicationRow): Versioned => ({
	kind: 'publication',
	id: p.competitionId,
	version: p.version
});

/** The publication of competition `cid`; throws 404 when there is no such competition. */
export async function requirePublication(repo: Repository, cid: number): Promise<PublicationRow> {
	found(await repo.competition(cid), `Competition ${cid}`);
	return publicationOf(repo.sql, cid);
}

/** A change of competition `cid`'s publication by the PUT's body (checked when first asked: 400). */
export function publicationChange(
	api: string,
	cid: number,
	json: () => Record<string, unknown>,
	now: () => Date = () => new Date()
): Change<PublicationRow> {
	const patch = lazy((): Partial<Publication> => {
		const checked = checkPublicationPatch(json());
		if (!checked.ok) throw badRequest(checked.message);
		return checked.patch;
	});
	return {
		event: 'publication',
		read: (repo) => requirePublication(repo, cid),
		versionOf: publicationVersion,
		check: () => void patch(),
		update: (repo, current) =>
			updatePublication(repo.sql, current, { ...current, ...patch() }, now().toISOString()),
		shown: async (_repo, row) => ({
			value: publicationResource(api, row),
			competitionId: row.competitionId
		}),
		upstream: null
	};
}
