/**
 * The service's settings of a competition's public views ($lib/contract/publication): read by
 * following the competition's `publication` link (a service without it has none: everything
 * shows), kept on the device for public screens offline, and changed by the secretary with
 * If-Match. A change that meets another secretary's (412) is made again on what is there now,
 * once: each change names what it sets (a name setting, one run released), so nothing the other
 * one set is undone.
 */
import type { HalClient } from '$lib/api/hal-client';
import { findLink } from '$lib/api/links';
import { PublicationSchema, type Competition, type PublicationJson } from '$lib/api/schemas';
import { ApiError } from '$lib/api/errors';
import type { Publication } from '$lib/contract/publication';
import { storePublication } from '$lib/db/publication-store';

/** The settings as read, and whether this device may change them (the secretary). */
export interface ReadPublication {
	publication: Publication;
	editable: boolean;
	etag: string | undefined;
}

const settingsOf = (body: PublicationJson): Publication => ({
	handlerNames: body.handlerNames,
	results: body.results,
	releasedRuns: body.releasedRuns
});

const publicationHref = (competition: Competition): string | undefined => {
	const link = findLink(competition._links, 'publication');
	return link && !link.templated ? link.href : undefined;
};

/** Whether the service has settings of public views for the competition. */
export const hasPublication = (competition: Competition): boolean =>
	publicationHref(competition) !== undefined;

/** Reads and stores the competition's settings; null where the service has none. */
export async function fetchPublication(
	client: HalClient,
	competition: Competition
): Promise<ReadPublication | null> {
	const href = publicationHref(competition);
	if (!href) return null;
	const { body, etag } = await client.get(href, PublicationSchema);
	const publication = settingsOf(body);
	await storePublication(competition.id, publication);
	return { publication, etag, editable: body._templates?.default?.method === 'PUT' };
}

/** What a change sets, computed from the settings as they are when it is sent. */
export type PublicationChange = (current: Publication) => Partial<Publication>;

/** The change that releases run `runId`'s results, or takes them back. */
export const releaseRun =
	(runId: number, released: boolean): PublicationChange =>
	(current) => ({
		releasedRuns: released
			? [...new Set([...current.releasedRuns, runId])]
			: current.releasedRuns.filter((id) => id !== runId)
	});

const isConflict = (e: unknown): boolean => e instanceof ApiError && e.status === 412;

/**
 * Sends `change` (the secretary), stored once the service took it. Throws the ApiError of a
 * refusal (ApiError 'http' 403 for a device that is not the secretary's, offline errors as any
 * request) and 'invalid-shape' where the service has no settings.
 */
export async function changePublication(
	client: HalClient,
	competition: Competition,
	change: PublicationChange
): Promise<Publication> {
	const href = publicationHref(competition);
	if (!href) throw new ApiError('invalid-shape', { detail: 'no publication link' });
	for (let attempt = 1; ; attempt++) {
		const read = await fetchPublication(client, competition);
		if (!read) throw new ApiError('invalid-shape', { detail: 'no publication link' });
		try {
			const opts = read.etag ? { ifMatch: read.etag } : {};
			const { body } = await client.send(
				'PUT',
				href,
				change(read.publication),
				PublicationSchema,
				opts
			);
			const publication = body
				? settingsOf(body)
				: { ...read.publication, ...change(read.publication) };
			await storePublication(competition.id, publication);
			return publication;
		} catch (e) {
			if (attempt >= 2 || !isConflict(e)) throw e;
		}
	}
}
