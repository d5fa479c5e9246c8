// The device endpoints (an extension of the interface; docs/service.md, "Devices and roles"):
// joining with a join token, the secretary's list of devices, renaming and revoking one, and
// making join links. Found by links only: the root links `join` (and `devices` for the
// secretary), the device list links `joinLinks`.
import { joinUrl } from '../auth/auth.ts';
import type { Device, JoinLink, JoinLinkEntry } from '../devices/devices.ts';
import { JoinError } from '../devices/devices.ts';
import { apiBase, HAL_FORMS, renderBase, requestBase, stringifyHal } from '../http/hal.ts';
import { clientAddress, send, sendNoContent, type Exchange } from '../middleware/exchange.ts';
import {
	parseId,
	validateDeviceRename,
	validateJoin,
	validateJoinLinkRequest
} from '../validation.ts';
import { found, type Route } from './route.ts';

/** A device as the secretary sees it (never its credential). */
export function deviceResource(api: string, d: Device): Record<string, unknown> {
	return {
		id: d.id,
		name: d.name,
		role: d.role,
		rings: d.rings,
		joinedAt: d.joinedAt,
		lastSeenAt: d.lastSeenAt,
		lastAddress: d.lastAddress,
		revokedAt: d.revokedAt,
		_links: { self: { href: `${api}/devices/${d.id}` } }
	};
}

/** Answers a representation built on API_BASE with its links on the base the client used. */
export function sendResource(
	ex: Exchange,
	status: number,
	value: unknown,
	headers: Record<string, string> = {}
): void {
	send(ex, status, renderBase(stringifyHal(value), apiBase(ex.req)), HAL_FORMS, headers);
}

/** A join link's answer: the link and the app's join address on the host the request came to. */
export function joinLinkResource(ex: Exchange, link: JoinLink): Record<string, unknown> {
	const { origin, prefix } = requestBase(ex.req);
	return { ...link, url: joinUrl(`${origin}${prefix}`, link.token) };
}

/** A join link as the secretary's list shows it (no token: only its hash is stored). */
export function joinLinkEntryResource(api: string, l: JoinLinkEntry): Record<string, unknown> {
	return { ...l, _links: { self: { href: `${api}/join-links/${l.id}` } } };
}

export const deviceRoutes: Route[] = [
	{
		re: /^\/api\/v1\/devices\/join$/,
		access: { POST: 'public' },
		async post(ex, { auth, api, json }) {
			// An address that keeps failing waits (429) before anything is read or hashed.
			auth.checkFailures(ex);
			const { token, name } = validateJoin(json);
			let joined;
			try {
				joined = await auth.store.join(token, name, clientAddress(ex.req));
			} catch (e) {
				if (e instanceof JoinError) {
					auth.failed(ex);
					throw auth.unauthorized(ex, e.code);
				}
				throw e;
			}
			const { device, credential } = joined;
			const self = `${api}/devices/${device.id}`;
			sendResource(
				ex,
				201,
				{
					id: device.id,
					name: device.name,
					role: device.role,
					rings: device.rings,
					credential,
					_links: { self: { href: self }, competitions: { href: `${api}/competitions` } }
				},
				{ Location: `${apiBase(ex.req)}/devices/${device.id}` }
			);
			ex.summary = `device ${device.id} joined as ${device.role}`;
		}
	},
	{
		re: /^\/api\/v1\/devices$/,
		access: { GET: 'secretary' },
		async get(ex, { auth, api, recordChange }) {
			const devices = await auth.store.list();
			// Mirror mode (a recorder of changes for the upstream): the secretary's Upstream screen.
			const upstream = recordChange ? { upstream: { href: `${api}/upstream` } } : {};
			ex.items = Math.max(1, devices.length);
			sendResource(ex, 200, {
				...(devices.length > 0
					? { _embedded: { devices: devices.map((d) => deviceResource(api, d)) } }
					: {}),
				_links: {
					self: { href: `${api}/devices` },
					joinLinks: { href: `${api}/join-links` },
					...upstream
				}
			});
		}
	},
	{
		re: /^\/api\/v1\/devices\/([^/]+)$/,
		kind: 'device',
		idName: 'deviceId',
		// A device may read its own entry (its role and rings); the rest is the secretary's.
		access: { GET: 'member', PUT: 'secretary', DELETE: 'secretary' },
		async get(ex, { auth, api, params, caller }) {
			const id = parseId('deviceId', params[0] ?? '');
			auth.checkSelfOrSecretary(caller, id);
			const device = found(await auth.store.device(id), `Device ${id}`);
			sendResource(ex, 200, deviceResource(api, device));
		},
		async put(ex, { auth, write, api, id, json, logApplied }) {
			found(await auth.store.device(id), `Device ${id}`);
			const { name } = validateDeviceRename(json);
			const updated = found(
				await write(async (sql) => {
					const d = await auth.store.rename(sql, id, name);
					if (d) await logApplied(sql, `renamed device ${id}`);
					return d;
				}),
				`Device ${id}`
			);
			sendResource(ex, 200, deviceResource(api, updated));
			ex.summary = `renamed device ${id}`;
		},
		async delete(ex, { auth, store, write, id }) {
			const device = found(await auth.store.device(id), `Device ${id}`);
			if (device.revokedAt === null) {
				await write(async (sql) => {
					// Nobody could manage the devices any more (until a restart prints a new link).
					// Counted under the devices' lock: two instances cannot each revoke one of the
					// last two secretaries.
					if (device.role === 'secretary' && (await auth.store.activeSecretaries(sql, true)) <= 1) {
						throw auth.forbidden('last-secretary');
					}
					await auth.store.revoke(sql, id);
					// Every instance closes its streams and refuses its credential once committed.
					await store.feed.recordRevoked(sql, id);
				});
			}
			sendNoContent(ex);
			ex.summary = `revoked device ${id}`;
		}
	},
	{
		re: /^\/api\/v1\/join-links$/,
		access: { GET: 'secretary', POST: 'secretary' },
		async get(ex, { auth, api }) {
			const links = await auth.store.joinLinks();
			ex.items = Math.max(1, links.length);
			sendResource(ex, 200, {
				...(links.length > 0
					? { _embedded: { joinLinks: links.map((l) => joinLinkEntryResource(api, l)) } }
					: {}),
				_links: { self: { href: `${api}/join-links` } }
			});
		},
		async post(ex, { auth, api, repo, write, json }) {
			const rings = await repo.ringIds();
			const request = validateJoinLinkRequest(json, (id) => rings.has(id));
			const link = await write(async (sql) => {
				const { saved, ...made } = auth.store.createJoinLink(request, sql);
				return { ...made, id: await saved };
			});
			sendResource(ex, 201, {
				...joinLinkResource(ex, link),
				_links: { self: { href: `${api}/join-links/${link.id}` } }
			});
			ex.summary = `join link ${link.id} for a ${request.role}`;
		}
	},
	{
		// One join link; DELETE withdraws it (a photographed QR code stops working at once).
		re: /^\/api\/v1\/join-links\/([^/]+)$/,
		idName: 'joinLinkId',
		access: { GET: 'secretary', DELETE: 'secretary' },
		async get(ex, { auth, api, params }) {
			const id = parseId('joinLinkId', params[0] ?? '');
			const link = found(await auth.store.joinLink(id), `Join link ${id}`);
			sendResource(ex, 200, joinLinkEntryResource(api, link));
		},
		async delete(ex, { auth, write, id }) {
			found(await write((sql) => auth.store.withdrawJoinLink(sql, id)), `Join link ${id}`);
			sendNoContent(ex);
			ex.summary = `withdrew join link ${id}`;
		}
	}
];
