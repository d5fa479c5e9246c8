/**
 * Mirror mode's status for the secretary (docs/service.md, "Mirror mode: the event laptop and the
 * federation's service"): what the laptop's service still has to publish to the federation's
 * upstream service, what the upstream refused, and the conflicts both sides made, with the
 * secretary's decisions (Keep ours / Keep theirs, Send again). Not part of the Competition Results
 * interface: the app finds it only by links, `devices` on the entry point and then `upstream` on
 * the device list (present in mirror mode only), and each entry's `resolve` and `retry`.
 */
import * as v from 'valibot';
import { ApiError } from '$lib/api/errors';
import type { HalClient } from '$lib/api/hal-client';
import { expandLink, findLink } from '$lib/api/links';
import { LinksSchema } from '$lib/api/schemas';
import { devicesHref } from './devices';

const isoTime = v.pipe(
	v.string(),
	v.check((s) => !Number.isNaN(Date.parse(s)), 'an ISO time'),
	v.transform((s) => Date.parse(s))
);
const maybeTime = v.nullable(isoTime);
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

const ConflictSchema = v.looseObject({
	field: v.string(),
	base: v.unknown(),
	mine: v.unknown(),
	theirs: v.unknown()
});

const EntrySchema = v.looseObject({
	key: v.string(),
	kind: v.picklist(['dogRun', 'run']),
	resourceId: v.number(),
	runId: v.number(),
	competitionId: v.number(),
	status: v.picklist(['pending', 'sending', 'conflict', 'failed']),
	changes: v.record(v.string(), v.unknown()),
	conflicts: v.nullable(v.array(ConflictSchema)),
	/** `message` is the upstream's words: shown as text, never as markup. */
	lastError: v.nullable(
		v.looseObject({ code: v.string(), status: v.nullable(v.number()), message: v.string() })
	),
	attempts: count,
	createdAt: isoTime,
	nextAttemptAt: isoTime,
	runName: v.nullable(v.string()),
	ringName: v.nullable(v.string()),
	dogName: v.optional(v.nullable(v.string()), null),
	handler: v.optional(v.nullable(v.string()), null),
	_links: LinksSchema
});
export type UpstreamEntry = v.InferOutput<typeof EntrySchema>;
export type UpstreamConflict = v.InferOutput<typeof ConflictSchema>;

const StatusSchema = v.looseObject({
	upstream: v.string(),
	connected: v.boolean(),
	lastContactAt: maybeTime,
	lostSince: maybeTime,
	publishedUpTo: maybeTime,
	lastPublishedAt: maybeTime,
	waiting: count,
	refused: count,
	conflicts: count,
	lastPulledAt: maybeTime,
	_embedded: v.optional(v.looseObject({ entries: v.array(EntrySchema) })),
	_links: LinksSchema
});

/** The status, times in ms since 1970 (null where the service says none). */
export interface UpstreamStatus {
	/** The upstream's origin. */
	upstream: string;
	connected: boolean;
	lastContactAt: number | null;
	lostSince: number | null;
	/** Every change made before this is published; null: nothing waits. */
	publishedUpTo: number | null;
	lastPublishedAt: number | null;
	waiting: number;
	refused: number;
	conflicts: number;
	lastPulledAt: number | null;
	entries: UpstreamEntry[];
}

export type UpstreamChoice = 'ours' | 'theirs';

function statusOf(body: v.InferOutput<typeof StatusSchema>): UpstreamStatus {
	const { _embedded, _links, ...rest } = body;
	void _links;
	return { ...rest, entries: _embedded?.entries ?? [] };
}

const DeviceListLinksSchema = v.looseObject({ _links: LinksSchema });

/**
 * The upstream status's address: the device list's `upstream` link; null when this service is no
 * mirror, or this device may not see the device list. Read here, not by sync/devices' list, which
 * the first screen carries: mirror mode's words and reads load with the screens that show them.
 */
export async function findUpstream(client: HalClient): Promise<string | null> {
	const devices = await devicesHref(client);
	if (!devices) return null;
	const link = findLink((await client.get(devices, DeviceListLinksSchema)).body._links, 'upstream');
	return link ? expandLink(link) : null;
}

export async function readUpstream(client: HalClient, href: string): Promise<UpstreamStatus> {
	return statusOf((await client.get(href, StatusSchema)).body);
}

async function post(
	client: HalClient,
	entry: UpstreamEntry,
	rel: 'resolve' | 'retry',
	body: object
): Promise<UpstreamStatus> {
	const link = findLink(entry._links, rel);
	// No link: decided or sent meanwhile (another screen, the publisher); the caller reads again.
	if (!link) throw new ApiError('missing-link', { detail: `_links.${rel}` });
	const href = expandLink(link);
	const answer = await client.send('POST', href, body, StatusSchema);
	if (!answer.body) throw new ApiError('invalid-json', { url: href, detail: 'empty body' });
	return statusOf(answer.body);
}

/** Keep ours (publish the laptop's values) or Keep theirs (take the upstream's here). */
export const decideConflict = (
	client: HalClient,
	entry: UpstreamEntry,
	choice: UpstreamChoice
): Promise<UpstreamStatus> => post(client, entry, 'resolve', { choice });

/** A refused change sent again (after it was corrected upstream, say). */
export const sendAgain = (client: HalClient, entry: UpstreamEntry): Promise<UpstreamStatus> =>
	post(client, entry, 'retry', {});
