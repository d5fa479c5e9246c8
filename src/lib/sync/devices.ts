/**
 * Joining this device to an event's service, and the secretary's list of joined devices. Not part
 * of the Competition Results interface: the embedded service offers it (docs/service.md, "Devices
 * and roles") and the app finds it only by links — `join` on the competition list or on a 401's
 * error object, `devices` on the list for a secretary, `joinLinks` on the device list.
 *
 * A join link (`…/join#t=<token>`, from the start-up output or the secretary's screen) gives a
 * device credential, kept as the device's bearer token (./credentials) and sent on every request;
 * the role and rings it was given are kept beside it for the screens.
 */
import * as v from 'valibot';
import { ApiError } from '$lib/api/errors';
import { HalClient } from '$lib/api/hal-client';
import { expandLink, findLink, type LinkMap } from '$lib/api/links';
import { LinksSchema, SelfLinksSchema } from '$lib/api/schemas';
import { getSetting, setSetting, SETTING_SERVICE_URL } from '$lib/db/settings-store';
import { saveCredentials } from './credentials';
import { retryAfterSignIn } from './outbox';

export const ROLES = ['secretary', 'steward', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RoleSchema = v.picklist(ROLES);
const RingsSchema = v.nullable(v.array(v.number()));

export const DeviceSchema = v.looseObject({
	id: v.number(),
	name: v.string(),
	role: RoleSchema,
	rings: RingsSchema,
	joinedAt: v.string(),
	lastSeenAt: v.nullable(v.string()),
	lastAddress: v.nullable(v.string()),
	revokedAt: v.nullable(v.string()),
	_links: SelfLinksSchema
});
export type Device = v.InferOutput<typeof DeviceSchema>;

const JoinedSchema = v.looseObject({
	id: v.number(),
	name: v.string(),
	role: RoleSchema,
	rings: RingsSchema,
	credential: v.pipe(v.string(), v.minLength(16)),
	_links: v.optional(LinksSchema)
});

const DeviceListSchema = v.looseObject({
	_embedded: v.optional(v.looseObject({ devices: v.array(DeviceSchema) })),
	_links: LinksSchema
});

const JoinLinkSchema = v.looseObject({
	token: v.string(),
	role: RoleSchema,
	rings: RingsSchema,
	usesLeft: v.number(),
	expiresAt: v.string(),
	url: v.pipe(v.string(), v.url())
});
export type JoinLink = v.InferOutput<typeof JoinLinkSchema>;

const EntrySchema = v.looseObject({ _links: v.optional(LinksSchema) });

/** What this device was given when it joined (shown in Settings; the credential is elsewhere). */
export interface JoinedDevice {
	id: number;
	name: string;
	role: Role;
	rings: number[] | null;
	/** The service's entry point it joined. */
	service: string;
}

export const SETTING_DEVICE = 'device';

export async function readJoinedDevice(): Promise<JoinedDevice | null> {
	return (await getSetting<JoinedDevice>(SETTING_DEVICE)) ?? null;
}

/** The token in a join address's fragment (`#t=<token>`), or null. */
export function joinTokenOf(hash: string): string | null {
	const token = new URLSearchParams(hash.replace(/^#/, '')).get('t');
	return token && /^[A-Za-z0-9_-]{8,200}$/.test(token) ? token : null;
}

/**
 * The service's links for this device: the competition list's, or those of the error object when
 * the list is refused (a service that needs a credential says where to join). Throws the ApiError
 * when neither carries links.
 */
export async function entryLinks(client: HalClient): Promise<LinkMap> {
	try {
		const { body } = await client.get(client.entryPoint, EntrySchema);
		return body._links ?? {};
	} catch (error) {
		if (error instanceof ApiError && error.links) return error.links;
		throw error;
	}
}

/**
 * Whether this phone reaches the service at all: its entry point answers anything (an error
 * answer is the service's, so the way is open). False on no answer: a network error or nothing
 * within the client's timeout, as on an Android phone that sends everything over mobile data
 * because the event's Wi-Fi has no internet, or one whose Private DNS cannot resolve the laptop.
 */
export async function reachesService(client: HalClient): Promise<boolean> {
	try {
		await entryLinks(client);
		return true;
	} catch (error) {
		if (error instanceof ApiError && (error.code === 'network' || error.code === 'timeout')) {
			return false;
		}
		return true;
	}
}

/**
 * Joins this device with a join token: stores the credential (every request carries it from now
 * on), what it was given, and makes edits waiting for a sign-in due. Throws ApiError (a 401 with
 * the service's words for an expired or used link; 'missing-link' for a service without joining).
 */
export async function joinDevice(
	client: HalClient,
	token: string,
	name: string
): Promise<JoinedDevice> {
	const join = findLink(await entryLinks(client), 'join');
	if (!join) {
		throw new ApiError('missing-link', { url: client.entryPoint, detail: '_links.join' });
	}
	const { body } = await client.send(
		'POST',
		expandLink(join),
		{ token, ...(name.trim() ? { name: name.trim() } : {}) },
		JoinedSchema
	);
	if (!body) throw new ApiError('invalid-json', { url: join.href, detail: 'empty body' });
	const device: JoinedDevice = {
		id: body.id,
		name: body.name,
		role: body.role,
		rings: body.rings,
		service: client.entryPoint
	};
	await saveCredentials({ kind: 'bearer', token: body.credential });
	await setSetting(SETTING_DEVICE, device);
	// The credential is this service's: the app talks to it from now on (not to another address
	// Settings may have named).
	if ((await getSetting<string>(SETTING_SERVICE_URL))?.trim()) {
		await setSetting(SETTING_SERVICE_URL, new URL(client.entryPoint).origin);
	}
	await retryAfterSignIn(Date.now());
	return device;
}

/**
 * Whether the service answers a read that carries no credential at all (its devices open, or
 * reads open to anyone: `--open-reads`): a spectator's phone then reads without joining. The
 * entry point's first item, asked for as a phone that never joined would; null when no answer
 * told (no network, the service down or busy).
 */
export async function readsOpenToAnyone(serviceUrl: string): Promise<boolean | null> {
	try {
		await new HalClient({ serviceUrl }).listCompetitions({ size: 1 });
		return true;
	} catch (error) {
		if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return false;
		return null;
	}
}

/** The secretary's devices link, or undefined for a device that may not manage devices. */
export async function devicesHref(client: HalClient): Promise<string | undefined> {
	// A refusal (a removed phone) is an error to show, not "this phone is not the secretary's".
	const { body } = await client.get(client.entryPoint, EntrySchema);
	const link = findLink(body._links, 'devices');
	return link ? expandLink(link) : undefined;
}

export interface DeviceList {
	devices: Device[];
	/** Where join links are made. */
	joinLinks: string | undefined;
}

export async function listDevices(client: HalClient, href: string): Promise<DeviceList> {
	const { body } = await client.get(href, DeviceListSchema);
	const joinLinks = findLink(body._links, 'joinLinks');
	return {
		devices: body._embedded?.devices ?? [],
		joinLinks: joinLinks ? expandLink(joinLinks) : undefined
	};
}

export async function renameDevice(
	client: HalClient,
	device: Device,
	name: string
): Promise<Device | undefined> {
	const self = findLink(device._links, 'self');
	if (!self) throw new ApiError('missing-link', { detail: '_links.self' });
	return (await client.send('PUT', expandLink(self), { name }, DeviceSchema)).body;
}

export async function revokeDevice(client: HalClient, device: Device): Promise<void> {
	const self = findLink(device._links, 'self');
	if (!self) throw new ApiError('missing-link', { detail: '_links.self' });
	await client.send('DELETE', expandLink(self), undefined, DeviceSchema);
}

export interface JoinLinkRequest {
	role: Role;
	rings: number[] | null;
	uses?: number;
	hours?: number;
}

export async function createJoinLink(
	client: HalClient,
	href: string,
	request: JoinLinkRequest
): Promise<JoinLink> {
	const { body } = await client.send('POST', href, request, JoinLinkSchema);
	if (!body) throw new ApiError('invalid-json', { url: href, detail: 'empty body' });
	return body;
}
