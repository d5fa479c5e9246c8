/**
 * The secretary's join links: those made so far (never their token: the service keeps only its
 * hash) and withdrawing one, so that a photographed QR code stops working at once. Found by links
 * only: the device list's `joinLinks` (./devices), each link's `self`.
 */
import * as v from 'valibot';
import { ApiError } from '$lib/api/errors';
import type { HalClient } from '$lib/api/hal-client';
import { expandLink, findLink } from '$lib/api/links';
import { LinksSchema, SelfLinksSchema } from '$lib/api/schemas';
import { ROLES } from './devices';

export const JOIN_LINK_STATES = ['active', 'expired', 'used-up', 'withdrawn'] as const;

export const JoinLinkEntrySchema = v.looseObject({
	id: v.number(),
	role: v.picklist(ROLES),
	rings: v.nullable(v.array(v.number())),
	usesLeft: v.number(),
	expiresAt: v.string(),
	createdAt: v.string(),
	withdrawnAt: v.nullable(v.string()),
	state: v.picklist(JOIN_LINK_STATES),
	_links: SelfLinksSchema
});
export type JoinLinkEntry = v.InferOutput<typeof JoinLinkEntrySchema>;

const JoinLinkListSchema = v.looseObject({
	_embedded: v.optional(v.looseObject({ joinLinks: v.array(JoinLinkEntrySchema) })),
	_links: LinksSchema
});

/** The join links made on the service, the newest first. */
export async function listJoinLinks(client: HalClient, href: string): Promise<JoinLinkEntry[]> {
	const { body } = await client.get(href, JoinLinkListSchema);
	return body._embedded?.joinLinks ?? [];
}

/** Withdraws a join link: no device joins with it any more (those that joined stay). */
export async function withdrawJoinLink(client: HalClient, link: JoinLinkEntry): Promise<void> {
	const self = findLink(link._links, 'self');
	if (!self) throw new ApiError('missing-link', { detail: '_links.self' });
	await client.send('DELETE', expandLink(self), undefined, JoinLinkEntrySchema);
}
