import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Service } from '../../../server/app';
import { ApiError } from '$lib/api/errors';
import { HalClient } from '$lib/api/hal-client';
import { db } from '$lib/db/db';
import { authorizationOf, readCredentials } from './credentials';
import {
	createJoinLink,
	devicesHref,
	joinDevice,
	joinTokenOf,
	listDevices,
	readJoinedDevice,
	reachesService,
	readsOpenToAnyone,
	renameDevice,
	revokeDevice
} from './devices';

// Against the real embedded service with devices required (as off loopback at an event).
let service: Service;
let dir: string;
beforeEach(async () => {
	dir = mkdtempSync(join(tmpdir(), 'ringside-devices-'));
	service = await createService({
		dbFile: join(dir, 'r.sqlite'),
		seed: 'small',
		quiet: true,
		auth: 'required'
	});
	await db.delete();
	await db.open();
});
afterEach(async () => {
	await service.close();
	rmSync(dir, { recursive: true, force: true });
});

const anonymous = () => new HalClient({ serviceUrl: service.url });
const signedIn = async () =>
	new HalClient({
		serviceUrl: service.url,
		authorization: authorizationOf(await readCredentials())
	});

describe('joinTokenOf', () => {
	it('takes the token from the fragment, and nothing that is not one', () => {
		expect(joinTokenOf('#t=AbC_-123456')).toBe('AbC_-123456');
		expect(joinTokenOf('')).toBeNull();
		expect(joinTokenOf('#t=')).toBeNull();
		expect(joinTokenOf('#t=<script>')).toBeNull();
	});
});

describe('joining a device', () => {
	it('finds the join link on the 401, stores the credential, and then reads and writes as its role', async () => {
		const link = service.createJoinLink({ role: 'secretary' });
		const device = await joinDevice(anonymous(), link.token, ' Desk ');
		expect(device).toMatchObject({ name: 'Desk', role: 'secretary', rings: null });
		expect(await readJoinedDevice()).toMatchObject({ id: device.id, role: 'secretary' });
		const credentials = await readCredentials();
		expect(credentials?.kind).toBe('bearer');
		// Signed in: the list of competitions answers, and the secretary finds the devices.
		const client = await signedIn();
		expect((await client.listCompetitions()).items.length).toBeGreaterThan(0);
		const href = await devicesHref(client);
		expect(href).toMatch(/\/devices$/);
		const list = await listDevices(client, href!);
		expect(list.devices.map((d) => d.name)).toEqual(['Desk']);
		expect(list.joinLinks).toMatch(/\/join-links$/);
	});

	it('says why a used-up link does not work, in the service’s words', async () => {
		const link = service.createJoinLink({ role: 'viewer', uses: 1 });
		await joinDevice(anonymous(), link.token, 'one');
		const error = await joinDevice(anonymous(), link.token, 'two').catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ApiError);
		expect((error as ApiError).status).toBe(401);
		expect((error as ApiError).serverMessage).toMatch(/used up/);
	});

	it('lets the secretary make a steward link, rename a device and remove it: its credential stops at once', async () => {
		const secretary = service.createJoinLink({ role: 'secretary' });
		await joinDevice(anonymous(), secretary.token, 'Desk');
		const desk = await signedIn();
		const { joinLinks } = await listDevices(desk, (await devicesHref(desk))!);
		const ringLink = await createJoinLink(desk, joinLinks!, { role: 'steward', rings: null });
		expect(ringLink.url).toMatch(/\/join#t=/);
		expect(joinTokenOf(new URL(ringLink.url).hash)).toBe(ringLink.token);

		// A second phone joins with it (its own credential, stored in place of the desk's here).
		const phone = await joinDevice(anonymous(), ringLink.token, 'Ring 1');
		expect(phone.role).toBe('steward');
		const phoneClient = await signedIn();
		expect(await devicesHref(phoneClient)).toBeUndefined();

		const listed = (await listDevices(desk, (await devicesHref(desk))!)).devices;
		const ring = listed.find((d) => d.id === phone.id)!;
		expect((await renameDevice(desk, ring, 'Ring 1 – Jana'))?.name).toBe('Ring 1 – Jana');
		await revokeDevice(desk, ring);
		const refused = await phoneClient.listCompetitions().catch((e: unknown) => e);
		expect((refused as ApiError).status).toBe(401);
		expect((refused as ApiError).serverMessage).toMatch(/removed/);
		// The refusal says where to join again.
		expect((refused as ApiError).links?.join).toBeDefined();
	});
});

describe('readsOpenToAnyone', () => {
	it('tells a service that lets only joined devices read from one that lets anyone read', async () => {
		// This file's service: devices required, reads too.
		expect(await readsOpenToAnyone(service.url)).toBe(false);
		const openDir = mkdtempSync(join(tmpdir(), 'ringside-devices-open-'));
		const open = await createService({
			dbFile: join(openDir, 'r.sqlite'),
			seed: 'small',
			quiet: true,
			auth: 'required',
			openReads: true
		});
		try {
			expect(await readsOpenToAnyone(open.url)).toBe(true);
		} finally {
			await open.close();
			rmSync(openDir, { recursive: true, force: true });
		}
	});

	it('cannot tell without an answer', async () => {
		const url = service.url;
		await service.close();
		expect(await readsOpenToAnyone(url)).toBeNull();
		// afterEach closes it again: harmless.
	});

	it('is not fooled by this phone’s own credential', async () => {
		const link = service.createJoinLink({ role: 'viewer', uses: 1, hours: 1 });
		await joinDevice(new HalClient({ serviceUrl: service.url }), link.token, 'Phone');
		expect(await readCredentials()).not.toBeNull();
		expect(await readsOpenToAnyone(service.url)).toBe(false);
	});
});

describe('reachesService', () => {
	it('is true when the service answers, even refusing (a 401 to a phone not joined yet)', async () => {
		expect(await reachesService(anonymous())).toBe(true);
	});

	it('is false when nothing answers: the service gone, the phone on another network', async () => {
		const url = service.url;
		await service.close();
		expect(await reachesService(new HalClient({ serviceUrl: url }))).toBe(false);
	});

	it('is false when the address takes no answer within the timeout (packets dropped)', async () => {
		// A listener that accepts and never answers: as a laptop's address routed over mobile data.
		const { createServer } = await import('node:net');
		const sockets: import('node:net').Socket[] = [];
		const silent = createServer((socket) => void sockets.push(socket));
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
		const { port } = silent.address() as { port: number };
		try {
			const client = new HalClient({ serviceUrl: `http://127.0.0.1:${port}/`, timeoutMs: 300 });
			expect(await reachesService(client)).toBe(false);
		} finally {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => silent.close(resolve));
		}
	});

	it('is true when an answer is not the service’s JSON (something answers there)', async () => {
		const { createServer } = await import('node:http');
		const portal = createServer((_req, res) => res.end('<html>Sign in to the Wi-Fi</html>'));
		await new Promise<void>((resolve) => portal.listen(0, '127.0.0.1', resolve));
		const { port } = portal.address() as { port: number };
		try {
			expect(await reachesService(new HalClient({ serviceUrl: `http://127.0.0.1:${port}/` }))).toBe(
				true
			);
		} finally {
			await new Promise((resolve) => portal.close(resolve));
		}
	});
});
