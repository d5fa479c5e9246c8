// Who may write (docs/service.md, "Devices and roles"): join links and device credentials, the
// roles secretary, steward (of some rings or all) and viewer, the auth modes, the secretary's
// device list, revocation, and what the PUT log records. Over real HTTP, as a phone would.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createService, readPutLog } from '../app.ts';
import {
	call,
	expand,
	openSse,
	put,
	tempDbFile,
	useServices,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type HalLink,
	type RunJson,
	type RunList,
	type Started
} from '../test-support.ts';

const start = useServices();

/** Auth on, as on the event Wi-Fi (the service itself listens on 127.0.0.1 here). */
const startRequired = (extra: Parameters<typeof start>[0] = {}) =>
	start({ auth: 'required', ...extra });

const bearer = (credential: string): Record<string, string> => ({
	Authorization: `Bearer ${credential}`
});

interface RootJson extends CompetitionList {
	_links: CompetitionList['_links'] & { join?: HalLink; devices?: HalLink };
}

interface AuthErrorJson extends ErrorJson {
	code?: string;
	_links?: { join?: HalLink };
}

interface JoinedJson {
	id: number;
	name: string;
	role: string;
	rings: number[] | null;
	credential: string;
	_links: { self: HalLink; competitions: HalLink };
}

interface DeviceJson {
	id: number;
	name: string;
	role: string;
	rings: number[] | null;
	joinedAt: string;
	lastSeenAt: string | null;
	lastAddress: string | null;
	revokedAt: string | null;
	_links: { self: HalLink };
}

interface DeviceList {
	_embedded?: { devices: DeviceJson[] };
	_links: { self: HalLink; joinLinks: HalLink };
}

interface JoinLinkJson {
	token: string;
	role: string;
	rings: number[] | null;
	usesLeft: number;
	expiresAt: string;
	url: string;
}

const post = <T>(url: string, payload: unknown, headers: Record<string, string> = {}) =>
	call<T>(url, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', ...headers },
		body: JSON.stringify(payload)
	});

/** The join link, discovered as an app without a credential would: from the root or its 401. */
async function joinHref(s: Started): Promise<string> {
	const root = await call<RootJson & AuthErrorJson>(s.entry);
	const href = root.body._links?.join?.href;
	expect(href).toBeTruthy();
	return href!;
}

async function join(s: Started, token: string, name?: string) {
	return post<JoinedJson & AuthErrorJson>(
		await joinHref(s),
		name === undefined ? { token } : { token, name }
	);
}

/** A credential of `role` (and rings), through a join link the service makes itself. */
async function joined(
	s: Started,
	role: 'secretary' | 'steward' | 'viewer',
	rings: number[] | null = null,
	name?: string
): Promise<JoinedJson> {
	const link = s.svc.createJoinLink({ role, rings, uses: 1, hours: 1 });
	const a = await join(s, link.token, name);
	expect(a.status, a.text).toBe(201);
	return a.body;
}

/** The IN_PROGRESS competition with a run and a dog run on each of its first two rings. */
async function scene(s: Started, credential: string) {
	const h = { headers: bearer(credential) };
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`, h);
	const competition: CompetitionJson = list.body._embedded!.competitions[0]!;
	const rings = competition.rings.slice(0, 2).map((ring) => ring);
	expect(rings.length).toBe(2);
	const onRing = async (ringIndex: number) => {
		const ring = rings[ringIndex]!;
		const runs = await call<RunList>(expand(ring._links.competitionRuns.href, {}), h);
		const run: RunJson = runs.body._embedded!.competitionRuns[0]!;
		expect(run.competitionRing.id).toBe(ring.id);
		const dogs = await call<DogRunList>(run._links.dogRuns.href, h);
		const dog: DogRunJson = dogs.body._embedded!.dogRuns[0]!;
		return { ring, run, dog };
	};
	return { competition, a: await onRing(0), b: await onRing(1) };
}

function expectUnauthorized(a: { status: number; res: Response; body: AuthErrorJson }) {
	expect(a.status).toBe(401);
	expect(a.res.headers.get('content-type')).toBe('application/hal+json');
	expect(a.res.headers.get('www-authenticate')).toMatch(/^Bearer realm="ringside"/);
	expect(a.body).toMatchObject({ status: 401, error: 'Unauthorized' });
	expect(a.body.traceId).toMatch(/^[0-9a-f]+$/);
	expect(a.body._links?.join?.href).toMatch(/\/api\/v1\/devices\/join$/);
}

describe('joining a device', () => {
	it('turns a good token into a credential that reads and writes with its role', async () => {
		const s = await startRequired();
		const link = s.svc.createJoinLink({ role: 'secretary', uses: 1, hours: 1 });
		const a = await join(s, link.token, 'Secretary laptop');
		expect(a.status).toBe(201);
		expect(a.res.headers.get('content-type')).toBe('application/prs.hal-forms+json');
		expect(a.body).toMatchObject({ name: 'Secretary laptop', role: 'secretary', rings: null });
		expect(a.body.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(a.res.headers.get('location')).toBe(a.body._links.self.href);
		expect(a.body._links.competitions.href).toBe(s.entry);
		const root = await call<RootJson>(a.body._links.competitions.href, {
			headers: bearer(a.body.credential)
		});
		expect(root.status).toBe(200);
		const { a: ringA } = await scene(s, a.body.credential);
		const w = await put(ringA.dog._links.self.href, { faults: 1 }, bearer(a.body.credential));
		expect(w.status).toBe(200);
	});

	it('refuses a garbage, an expired and a used-up token with 401 and says what to do', async () => {
		let now = Date.parse('2026-05-12T08:00:00Z');
		const s = await startRequired({ clock: () => now });
		const garbage = await join(s, 'not-a-token');
		expectUnauthorized(garbage);
		expect(garbage.body.code).toBe('join-token-unknown');
		expect(garbage.body.message).toMatch(/ask the ring secretary for a new one/);

		const expiring = s.svc.createJoinLink({ role: 'viewer', hours: 2 });
		now += 2 * 3600_000 + 1;
		const expired = await join(s, expiring.token);
		expectUnauthorized(expired);
		expect(expired.body.code).toBe('join-token-expired');
		expect(expired.body.message).toBe(
			'This join link has expired; ask the ring secretary for a new one'
		);

		const once = s.svc.createJoinLink({ role: 'viewer', uses: 1 });
		expect((await join(s, once.token)).status).toBe(201);
		const usedUp = await join(s, once.token);
		expectUnauthorized(usedUp);
		expect(usedUp.body.code).toBe('join-token-used-up');
		expect(usedUp.body.message).toMatch(/used up; ask the ring secretary for a new one/);
	});

	it('validates the join body with clear messages', async () => {
		const s = await startRequired();
		const href = await joinHref(s);
		for (const [body, message] of [
			[{}, /'token'/],
			[{ token: 5 }, /'token'/],
			[{ token: 'x', name: '' }, /'name'/],
			[{ token: 'x', name: 'a'.repeat(200) }, /'name'/],
			[{ token: 'x', extra: 1 }, /Unknown field 'extra'/]
		] as const) {
			const a = await post<ErrorJson>(href, body);
			expect(a.status, JSON.stringify(body)).toBe(400);
			expect(a.body.message).toMatch(message);
		}
		const text = await call<ErrorJson>(href, {
			method: 'POST',
			headers: { 'Content-Type': 'text/plain' },
			body: '{"token":"x"}'
		});
		expect(text.status).toBe(415);
	});

	it('gives a device a name when it sends none', async () => {
		const s = await startRequired();
		const d = await joined(s, 'steward');
		expect(d.name.length).toBeGreaterThan(0);
	});
});

describe('without a credential (auth required)', () => {
	it('answers 401 to reads and writes, linking to where to join', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const { a } = await scene(s, secretary.credential);
		for (const url of [s.entry, a.dog._links.self.href, a.run._links.dogRuns.href]) {
			const r = await call<AuthErrorJson>(url);
			expectUnauthorized(r);
			expect(r.body.code).toBe('credential-missing');
		}
		const w = await put<AuthErrorJson>(a.dog._links.self.href, { faults: 3 });
		expectUnauthorized(w);
		const unknown = await put<AuthErrorJson>(
			a.dog._links.self.href,
			{ faults: 3 },
			bearer('A'.repeat(43))
		);
		expectUnauthorized(unknown);
		expect(unknown.body.code).toBe('credential-unknown');
		const basic = await call<AuthErrorJson>(s.entry, {
			headers: { Authorization: 'Basic dXNlcjpwYXNz' }
		});
		expectUnauthorized(basic);
		const after = await call<DogRunJson>(a.dog._links.self.href, {
			headers: bearer(secretary.credential)
		});
		expect(after.body.faults).toBe(a.dog.faults);
	});

	it('answers OPTIONS without a credential 401 on every path, as any other method', async () => {
		for (const openReads of [false, true]) {
			const s = await startRequired({ openReads });
			const secretary = await joined(s, 'secretary');
			const { a } = await scene(s, secretary.credential);
			const api = `${s.svc.url}api/v1`;
			for (const url of [
				s.entry,
				a.dog._links.self.href,
				`${api}/devices`,
				`${api}/nothing/here`
			]) {
				const r = await call<AuthErrorJson>(url, { method: 'OPTIONS' });
				expectUnauthorized(r);
				expect(r.body.code).toBe('credential-missing');
			}
			// With a credential: Allow where there is a route, 404 where there is none.
			const h = { method: 'OPTIONS', headers: bearer(secretary.credential) };
			const known = await call(a.dog._links.self.href, h);
			expect([known.status, known.res.headers.get('allow')]).toEqual([
				204,
				'GET, PUT, HEAD, OPTIONS'
			]);
			expect((await call(`${api}/nothing/here`, h)).status).toBe(404);
		}
	});

	it('serves reads to anyone with openReads, still 401 for writes', async () => {
		const s = await startRequired({ openReads: true });
		const root = await call<RootJson>(s.entry);
		expect(root.status).toBe(200);
		expect(root.body._links.join?.href).toBe(`${s.entry.replace(/competitions$/, '')}devices/join`);
		expect(root.body._links.devices).toBeUndefined();
		const viewer = await joined(s, 'viewer');
		const { a } = await scene(s, viewer.credential);
		expect((await call(a.dog._links.self.href)).status).toBe(200);
		expectUnauthorized(await put<AuthErrorJson>(a.dog._links.self.href, { faults: 1 }));
		// A credential that no longer works is refused even where reads are open: the phone
		// learns at once that it must join again.
		expectUnauthorized(await call<AuthErrorJson>(s.entry, { headers: bearer('B'.repeat(43)) }));
	});

	it('refuses a PUT before its body is read', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const steward = await joined(s, 'steward', [(await scene(s, secretary.credential)).a.ring.id]);
		const { b } = await scene(s, secretary.credential);
		const u = new URL(b.dog._links.self.href);
		for (const [auth, status] of [
			['', 401],
			[`Authorization: Bearer ${steward.credential}\r\n`, 403]
		] as const) {
			const head = await new Promise<string>((resolve, reject) => {
				const socket = connect(Number(u.port), '127.0.0.1');
				let text = '';
				socket.on('data', (buf: Buffer) => {
					text += buf.toString('utf8');
					if (text.includes('\r\n\r\n')) {
						socket.destroy();
						resolve(text);
					}
				});
				socket.on('error', reject);
				// Headers only: the declared body never comes.
				socket.write(
					`PUT ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n` +
						`${auth}Content-Length: 100\r\n\r\n`
				);
				setTimeout(() => resolve(text), 2000);
			});
			expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status}`));
		}
	});
});

describe('roles', () => {
	it('lets a steward write the runs of its rings and answers 403 with why on others', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const { a, b } = await scene(s, secretary.credential);
		const steward = await joined(s, 'steward', [a.ring.id]);
		expect(steward.rings).toEqual([a.ring.id]);
		const h = bearer(steward.credential);

		expect((await put(a.dog._links.self.href, { faults: 2 }, h)).status).toBe(200);
		expect((await put(a.run._links.self.href, { trackLength: 180 }, h)).status).toBe(200);

		const dogB = await put<AuthErrorJson>(b.dog._links.self.href, { faults: 2 }, h);
		expect(dogB.status).toBe(403);
		expect(dogB.res.headers.get('content-type')).toBe('application/hal+json');
		expect(dogB.body).toMatchObject({ status: 403, error: 'Forbidden', code: 'ring-not-assigned' });
		// Every competition of the seed has a Ring 1 and a Ring 2: each is named with its own.
		const { competition } = await scene(s, secretary.credential);
		expect(dogB.body.message).toBe(
			`This device is a ring steward for ${a.ring.name} (${competition.name}); this run is in ${b.ring.name} (${competition.name})`
		);
		const runB = await put<AuthErrorJson>(b.run._links.self.href, { trackLength: 180 }, h);
		expect(runB.status).toBe(403);
		expect(runB.body.message).toContain(b.ring.name);
		const unchanged = await call<DogRunJson>(b.dog._links.self.href, { headers: h });
		expect(unchanged.body.faults).toBe(b.dog.faults);
		// An unknown resource is still a 404.
		const missing = await put(`${s.svc.url}api/v1/dogRuns/999999`, { faults: 1 }, h);
		expect(missing.status).toBe(404);
	});

	it('lets a steward of every ring (rings null) write on any ring', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const { a, b } = await scene(s, secretary.credential);
		const steward = await joined(s, 'steward', null);
		expect(steward.rings).toBeNull();
		for (const dog of [a.dog, b.dog]) {
			expect(
				(await put(dog._links.self.href, { faults: 4 }, bearer(steward.credential))).status
			).toBe(200);
		}
	});

	it('lets a viewer read but answers 403 to its writes', async () => {
		const s = await startRequired();
		const viewer = await joined(s, 'viewer');
		const { a } = await scene(s, viewer.credential);
		for (const [url, body] of [
			[a.dog._links.self.href, { faults: 1 }],
			[a.run._links.self.href, { trackLength: 150 }]
		] as const) {
			const w = await put<AuthErrorJson>(url, body, bearer(viewer.credential));
			expect(w.status).toBe(403);
			expect(w.body.code).toBe('read-only');
			expect(w.body.message).toMatch(/viewer/);
		}
	});

	it('lets only the secretary manage devices and join links', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const root = await call<RootJson>(s.entry, { headers: bearer(secretary.credential) });
		const devicesHref = root.body._links.devices!.href;
		const list = await call<DeviceList>(devicesHref, { headers: bearer(secretary.credential) });
		for (const role of ['steward', 'viewer'] as const) {
			const other = await joined(s, role);
			const h = bearer(other.credential);
			const r = await call<AuthErrorJson>(devicesHref, { headers: h });
			expect(r.status, role).toBe(403);
			expect(r.body.code).toBe('secretary-only');
			const l = await post<AuthErrorJson>(list.body._links.joinLinks.href, { role: 'viewer' }, h);
			expect(l.status).toBe(403);
			const d = await call(`${devicesHref}/${secretary.id}`, { method: 'DELETE', headers: h });
			expect(d.status).toBe(403);
			// Its own entry it may read (the app shows which role and rings it has).
			const self = await call<DeviceJson>(other._links.self.href, { headers: h });
			expect(self.status).toBe(200);
			expect(self.body).toMatchObject({ id: other.id, role });
			expect((await call(`${devicesHref}/${secretary.id}`, { headers: h })).status).toBe(403);
		}
	});
});

describe("the secretary's devices", () => {
	it('lists, renames and revokes devices; a revoked credential gets 401 at once', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary', null, 'Secretary laptop');
		const hs = bearer(secretary.credential);
		const { a } = await scene(s, secretary.credential);
		const steward = await joined(s, 'steward', [a.ring.id], 'Phone 1');
		const hp = bearer(steward.credential);
		expect((await put(a.dog._links.self.href, { faults: 1 }, hp)).status).toBe(200);

		const root = await call<RootJson>(s.entry, { headers: hs });
		const list = await call<DeviceList>(root.body._links.devices!.href, { headers: hs });
		expect(list.status).toBe(200);
		expect(list.body._links.self.href).toBe(root.body._links.devices!.href);
		expect(list.body._links.joinLinks.href).toMatch(/\/api\/v1\/join-links$/);
		const devices = list.body._embedded!.devices;
		expect(devices.map((d) => d.name)).toEqual(['Secretary laptop', 'Phone 1']);
		const phone = devices[1]!;
		expect(phone).toMatchObject({
			id: steward.id,
			role: 'steward',
			rings: [a.ring.id],
			lastAddress: '127.0.0.1',
			revokedAt: null
		});
		expect(Date.parse(phone.joinedAt)).not.toBeNaN();
		expect(Date.parse(phone.lastSeenAt ?? '')).not.toBeNaN();
		expect(JSON.stringify(list.body)).not.toContain(steward.credential);
		expect(list.text).not.toMatch(/credential/i);

		const renamed = await put<DeviceJson>(phone._links.self.href, { name: 'Ring 1 phone' }, hs);
		expect(renamed.status).toBe(200);
		expect(renamed.body).toMatchObject({ id: phone.id, name: 'Ring 1 phone' });
		const badName = await put<ErrorJson>(phone._links.self.href, { name: '   ' }, hs);
		expect(badName.status).toBe(400);
		expect(badName.body.message).toMatch(/'name'/);
		expect((await put(phone._links.self.href, { role: 'secretary' }, hs)).status).toBe(400);

		const del = await call(phone._links.self.href, { method: 'DELETE', headers: hs });
		expect(del.status).toBe(204);
		expect(del.text).toBe('');
		const refused = await put<AuthErrorJson>(a.dog._links.self.href, { faults: 2 }, hp);
		expectUnauthorized(refused);
		expect(refused.body.code).toBe('credential-revoked');
		expect(refused.body.message).toMatch(/join again/);
		expectUnauthorized(await call<AuthErrorJson>(s.entry, { headers: hp }));
		// The phone joins again with a new link (still sending its old credential) and writes.
		const link = s.svc.createJoinLink({ role: 'steward', rings: [a.ring.id] });
		const rejoined = await post<JoinedJson>(
			refused.body._links!.join!.href,
			{ token: link.token },
			hp
		);
		expect(rejoined.status).toBe(201);
		expect(rejoined.body.id).not.toBe(steward.id);
		const hr = bearer(rejoined.body.credential);
		expect((await put(a.dog._links.self.href, { faults: 2 }, hr)).status).toBe(200);

		const after = await call<DeviceList>(root.body._links.devices!.href, { headers: hs });
		const gone = after.body._embedded!.devices.find((d) => d.id === phone.id)!;
		expect(gone.name).toBe('Ring 1 phone');
		expect(Date.parse(gone.revokedAt ?? '')).not.toBeNaN();
		// Revoking again changes nothing; an unknown device is a 404.
		expect((await call(phone._links.self.href, { method: 'DELETE', headers: hs })).status).toBe(
			204
		);
		const again = await call<DeviceJson>(phone._links.self.href, { headers: hs });
		expect(again.body.revokedAt).toBe(gone.revokedAt);
		const missing = `${root.body._links.devices!.href}/99999`;
		expect((await call(missing, { method: 'DELETE', headers: hs })).status).toBe(404);
	});

	it('refuses to revoke the last secretary (409)', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const hs = bearer(secretary.credential);
		const r = await call<AuthErrorJson>(secretary._links.self.href, {
			method: 'DELETE',
			headers: hs
		});
		expect(r.status).toBe(409);
		expect(r.body.code).toBe('last-secretary');
		const second = await joined(s, 'secretary');
		expect((await call(secretary._links.self.href, { method: 'DELETE', headers: hs })).status).toBe(
			204
		);
		expect((await call(s.entry, { headers: bearer(second.credential) })).status).toBe(200);
	});

	it('makes join links: defaults, the url on the request host, validation', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const hs = bearer(secretary.credential);
		const { a } = await scene(s, secretary.credential);
		const root = await call<RootJson>(s.entry, { headers: hs });
		const list = await call<DeviceList>(root.body._links.devices!.href, { headers: hs });
		const href = list.body._links.joinLinks.href;

		const before = Date.now();
		const l = await post<JoinLinkJson>(href, { role: 'steward', rings: [a.ring.id] }, hs);
		expect(l.status).toBe(201);
		expect(l.body).toMatchObject({ role: 'steward', rings: [a.ring.id], usesLeft: 10 });
		const hours = (Date.parse(l.body.expiresAt) - before) / 3600_000;
		expect(hours).toBeGreaterThan(11.99);
		expect(hours).toBeLessThan(12.01);
		expect(l.body.token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
		expect(l.body.url).toBe(`${new URL(s.svc.url).origin}/join#t=${l.body.token}`);
		const phone = await join(s, l.body.token);
		expect(phone.body).toMatchObject({ role: 'steward', rings: [a.ring.id] });

		// The url names the host the request came in on.
		const viaLocalhost = await post<JoinLinkJson>(
			href.replace('127.0.0.1', 'localhost'),
			{ role: 'viewer', uses: 3, hours: 1 },
			hs
		);
		expect(viaLocalhost.body.url.startsWith(`http://localhost:${s.svc.port}/join#t=`)).toBe(true);
		expect(viaLocalhost.body.usesLeft).toBe(3);

		for (const [body, message] of [
			[{}, /'role'/],
			[{ role: 'judge' }, /'role'/],
			[{ role: 'steward', rings: [999999] }, /999999/],
			[{ role: 'steward', rings: [] }, /'rings'/],
			[{ role: 'steward', rings: ['1'] }, /'rings'/],
			[{ role: 'viewer', rings: [a.ring.id] }, /'rings'/],
			[{ role: 'viewer', uses: 0 }, /'uses'/],
			[{ role: 'viewer', uses: 1.5 }, /'uses'/],
			[{ role: 'viewer', hours: -1 }, /'hours'/],
			[{ role: 'viewer', hours: 'x' }, /'hours'/],
			[{ role: 'viewer', color: 'red' }, /Unknown field 'color'/]
		] as const) {
			const r = await post<ErrorJson>(href, body, hs);
			expect(r.status, JSON.stringify(body)).toBe(400);
			expect(r.body.message).toMatch(message);
		}
	});

	it('notes lastSeenAt and lastAddress at most every 30 s, not on every read', async () => {
		let now = Date.parse('2026-05-12T08:00:00Z');
		const s = await startRequired({ clock: () => now });
		const secretary = await joined(s, 'secretary');
		const hs = bearer(secretary.credential);
		const seen = () =>
			s.svc.db!.prepare('SELECT last_seen_at AS at FROM device WHERE id = ?').get(secretary.id) as {
				at: string;
			};
		const first = seen().at;
		expect(first).toBe('2026-05-12T08:00:00.000Z');
		let writes = 0;
		s.svc.db!.function('count_write', () => ++writes);
		s.svc.db!.exec(
			`CREATE TRIGGER seen_write AFTER UPDATE OF last_seen_at ON device BEGIN SELECT count_write(); END`
		);
		now += 10_000;
		for (let i = 0; i < 5; i++) expect((await call(s.entry, { headers: hs })).status).toBe(200);
		expect(writes).toBe(0);
		expect(seen().at).toBe(first);
		now += 25_000;
		expect((await call(s.entry, { headers: hs })).status).toBe(200);
		expect(writes).toBe(1);
		expect(seen().at).toBe('2026-05-12T08:00:35.000Z');
	});
});

describe('discovery', () => {
	it('links the root to join always and to devices only for a secretary', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const steward = await joined(s, 'steward');
		const viewer = await joined(s, 'viewer');
		const forSecretary = await call<RootJson>(s.entry, { headers: bearer(secretary.credential) });
		expect(forSecretary.body._links.join?.href).toMatch(/\/api\/v1\/devices\/join$/);
		expect(forSecretary.body._links.devices?.href).toMatch(/\/api\/v1\/devices$/);
		for (const other of [steward, viewer]) {
			const r = await call<RootJson>(s.entry, { headers: bearer(other.credential) });
			expect(r.body._links.join?.href).toBe(forSecretary.body._links.join?.href);
			expect(r.body._links.devices).toBeUndefined();
		}
	});

	it('keeps the links apart in the tag cache: a 304 never hides the devices link', async () => {
		const s = await startRequired({ etag: true });
		const secretary = await joined(s, 'secretary');
		const viewer = await joined(s, 'viewer');
		const v = await call<RootJson>(s.entry, { headers: bearer(viewer.credential) });
		const tag = v.res.headers.get('etag')!;
		const sec = await call<RootJson>(s.entry, {
			headers: { ...bearer(secretary.credential), 'If-None-Match': tag }
		});
		expect(sec.status).toBe(200);
		expect(sec.body._links.devices).toBeDefined();
	});
});

describe('open mode (every address loopback)', () => {
	it('is the default on 127.0.0.1: every caller acts as secretary, the devices endpoints work', async () => {
		const s = await start();
		expect(s.svc.authMode).toBe('open');
		const root = await call<RootJson>(s.entry);
		expect(root.status).toBe(200);
		expect(root.body._links.join).toBeDefined();
		expect(root.body._links.devices).toBeDefined();
		const list = await call<DeviceList>(root.body._links.devices!.href);
		expect(list.status).toBe(200);
		expect(list.body._embedded).toBeUndefined();
		const link = await post<JoinLinkJson>(list.body._links.joinLinks.href, { role: 'viewer' });
		expect(link.status).toBe(201);
		const viewer = await join(s, link.body.token, 'Tried out');
		expect(viewer.status).toBe(201);
		// Roles are not enforced in open mode: the viewer's credential writes, as anyone does.
		const { a } = await scene(s, viewer.body.credential);
		expect(
			(await put(a.dog._links.self.href, { faults: 1 }, bearer(viewer.body.credential))).status
		).toBe(200);
		expect((await put(a.dog._links.self.href, { faults: 2 })).status).toBe(200);
	});

	it('is required by default on any other interface', async () => {
		const s = await start({ host: '0.0.0.0' });
		expect(s.svc.authMode).toBe('required');
		const r = await call<AuthErrorJson>(`http://127.0.0.1:${s.svc.port}/api/v1/competitions`);
		expectUnauthorized(r);
	});

	it('is required by default on loopback when another host name is served (a local reverse proxy)', async () => {
		for (const allowHosts of [['results.example.org'], ['*'], ['localhost', 'ring.local']]) {
			const s = await start({ allowHosts });
			expect(s.svc.authMode).toBe('required');
			expectUnauthorized(await call<AuthErrorJson>(s.entry));
		}
		for (const allowHosts of [['localhost'], ['127.0.0.2', '::1'], []]) {
			expect((await start({ allowHosts })).svc.authMode).toBe('open');
		}
		expect((await start({ allowHosts: ['results.example.org'], auth: 'open' })).svc.authMode).toBe(
			'open'
		);
	});

	it('can be chosen on any interface, and required on loopback', async () => {
		expect((await start({ host: '0.0.0.0', auth: 'open' })).svc.authMode).toBe('open');
		expect((await start({ auth: 'required' })).svc.authMode).toBe('required');
		await expect(start({ auth: 'sometimes' as 'open' })).rejects.toThrow(/auth/);
	});
});

describe('the PUT log', () => {
	it('names the device, its role and the client address of every PUT', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const { a, b } = await scene(s, secretary.credential);
		const steward = await joined(s, 'steward', [a.ring.id]);
		const h = bearer(steward.credential);
		expect((await put(a.dog._links.self.href, { faults: 5 }, h)).status).toBe(200);
		expect((await put(b.dog._links.self.href, { faults: 5 }, h)).status).toBe(403);
		const rows = readPutLog(s.svc.db!);
		expect(rows.slice(-2)).toMatchObject([
			{ status: 200, device: String(steward.id), role: 'steward', remoteAddress: '127.0.0.1' },
			{ status: 403, device: String(steward.id), role: 'steward', remoteAddress: '127.0.0.1' }
		]);
	});

	it('keeps no row of a PUT without a valid credential (it could push real rows out)', async () => {
		const s = await startRequired({ putLogMaxRows: 5 });
		const secretary = await joined(s, 'secretary');
		const { a } = await scene(s, secretary.credential);
		expect(
			(await put(a.dog._links.self.href, { faults: 5 }, bearer(secretary.credential))).status
		).toBe(200);
		for (let i = 0; i < 8; i++) {
			expect((await put(a.dog._links.self.href, { faults: i })).status).toBe(401);
		}
		const rows = readPutLog(s.svc.db!);
		expect(rows.map((r) => [r.status, r.device, r.role])).toEqual([
			[200, String(secretary.id), 'secretary']
		]);
	});
});

describe('credentials at rest', () => {
	it('stores only hashes: the database files hold neither credential nor join token', async () => {
		const s = await startRequired();
		const link = s.svc.createJoinLink({ role: 'steward', uses: 5 });
		const d = await join(s, link.token);
		expect(d.status).toBe(201);
		const secretary = await joined(s, 'secretary');
		await call(s.entry, { headers: bearer(secretary.credential) });
		const files = [s.dbFile, `${s.dbFile}-wal`].filter(existsSync);
		expect(files.length).toBeGreaterThan(0);
		let bytes = 0;
		for (const f of files) {
			const content = readFileSync(f).toString('latin1');
			bytes += content.length;
			for (const secret of [d.body.credential, secretary.credential, link.token]) {
				expect(content.includes(secret), `${secret} in ${f}`).toBe(false);
			}
		}
		expect(bytes).toBeGreaterThan(0);
		const row = s.svc
			.db!.prepare('SELECT credential_hash AS h FROM device WHERE id = ?')
			.get(d.body.id) as { h: string };
		expect(row.h).toMatch(/^[0-9a-f]{64}$/);
	});
});

describe('event streams of a revoked device', () => {
	it('are closed when the secretary revokes it', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const hs = bearer(secretary.credential);
		const viewer = await joined(s, 'viewer');
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`, { headers: hs });
		const c = list.body._embedded!.competitions[0]! as CompetitionJson & {
			_links: { changes: HalLink };
		};
		expect((await openSse(c._links.changes.href)).status).toBe(401);
		const stream = await openSse(c._links.changes.href, bearer(viewer.credential));
		expect(stream.status).toBe(200);
		expect((await stream.nextEvent())?.event).toBe('ready');
		expect((await call(viewer._links.self.href, { method: 'DELETE', headers: hs })).status).toBe(
			204
		);
		expect(await stream.nextEvent(3000)).toBeNull();
	});

	it('is refused (401) when the revocation lands between its identification and its start', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const hs = bearer(secretary.credential);
		const viewer = await joined(s, 'viewer');
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`, { headers: hs });
		const c = list.body._embedded!.competitions[0]! as CompetitionJson & {
			_links: { changes: HalLink };
		};
		// The viewer's credential is looked up (not revoked yet); its answer is held back until
		// the revocation was answered (as --latency or a fault delay would hold the request).
		const sql = s.svc.store!.sql;
		const get = sql.get.bind(sql);
		const hash = createHash('sha256').update(viewer.credential).digest('hex');
		let looked!: () => void;
		const lookedUp = new Promise<void>((r) => (looked = r));
		let release!: () => void;
		const released = new Promise<void>((r) => (release = r));
		sql.get = async <T>(text: string, params?: Record<string, unknown>) => {
			const row = await get<T>(text, params as never);
			if (params?.hash === hash) {
				looked();
				await released;
			}
			return row;
		};
		const opening = openSse(c._links.changes.href, bearer(viewer.credential));
		await lookedUp;
		expect((await call(viewer._links.self.href, { method: 'DELETE', headers: hs })).status).toBe(
			204
		);
		release();
		const stream = await opening;
		expect(stream.status).toBe(401);
		stream.close();
	});
});

describe('CORS for the device endpoints', () => {
	it('allows DELETE on a device and the Authorization header when asked', async () => {
		const s = await startRequired({ corsOrigins: ['http://app.test'] });
		const secretary = await joined(s, 'secretary');
		const pre = await fetch(secretary._links.self.href, {
			method: 'OPTIONS',
			headers: {
				Origin: 'http://app.test',
				'Access-Control-Request-Method': 'DELETE',
				'Access-Control-Request-Headers': 'authorization'
			}
		});
		expect(pre.status).toBe(204);
		expect(pre.headers.get('access-control-allow-methods')).toContain('DELETE');
		expect(pre.headers.get('access-control-allow-headers')).toContain('Authorization');
		const joinPre = await fetch(await joinHref(s), {
			method: 'OPTIONS',
			headers: {
				Origin: 'http://app.test',
				'Access-Control-Request-Method': 'POST',
				'Access-Control-Request-Headers': 'content-type'
			}
		});
		expect(joinPre.status).toBe(204);
		expect(joinPre.headers.get('access-control-allow-methods')).toContain('POST');
		// A write from another origin is refused, whatever its credential.
		const del = await call(secretary._links.self.href, {
			method: 'DELETE',
			headers: { ...bearer(secretary.credential), Origin: 'http://evil.test' }
		});
		expect(del.status).toBe(403);
	});
});

describe('proxy mode', () => {
	it('forwards Authorization and leaves authentication to the upstream', async () => {
		const seen: (string | undefined)[] = [];
		const fake = createServer((req, res) => {
			seen.push(req.headers.authorization);
			if (!req.headers.authorization) {
				res.writeHead(401, {
					'Content-Type': 'application/hal+json',
					'WWW-Authenticate': 'Bearer realm="upstream"'
				});
				res.end('{"status":401}');
				return;
			}
			res.writeHead(200, { 'Content-Type': 'application/hal+json' });
			res.end('{}');
		});
		await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
		const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
		await expect(
			createService({ port: 0, upstream: base, quiet: true, auth: 'required' })
		).rejects.toThrow(/upstream/);
		const proxy = await createService({ port: 0, upstream: base, quiet: true, host: '0.0.0.0' });
		try {
			expect(proxy.authMode).toBeNull();
			const anon = await call(`http://127.0.0.1:${proxy.port}/api/v1/competitions`);
			expect(anon.status).toBe(401);
			expect(anon.res.headers.get('www-authenticate')).toBe('Bearer realm="upstream"');
			const withToken = await put(
				`http://127.0.0.1:${proxy.port}/api/v1/dogRuns/1`,
				{ faults: 1 },
				bearer('upstream-token')
			);
			expect(withToken.status).toBe(200);
			expect(seen).toEqual([undefined, 'Bearer upstream-token']);
		} finally {
			await proxy.close();
			fake.closeAllConnections();
			fake.close();
		}
	});
});

describe('the command line', () => {
	const TSX = ['--import', 'tsx', 'server/main.ts'];

	/** Starts server/main.ts; resolves with its output once `until` matches it. */
	function spawnMain(args: string[], until: RegExp) {
		const child = spawn(process.execPath, [...TSX, ...args], {
			env: { ...process.env, RINGSIDE_DB: tempDbFile() },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		let out = '';
		const ready = new Promise<string>((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error(`no output matching ${until}: ${out}`)),
				20000
			);
			child.stdout.on('data', (b: Buffer) => {
				out += b.toString();
				if (until.test(out)) {
					clearTimeout(timer);
					resolve(out);
				}
			});
		});
		const stop = () =>
			new Promise<number | null>((resolve) => {
				child.on('exit', (c) => resolve(c));
				child.kill('SIGTERM');
			});
		return { ready, stop };
	}

	it('prints a single-use secretary join link with a QR code when auth is required', async () => {
		const main = spawnMain(
			['--host', '0.0.0.0', '--port', '0', '--seed', 'small', '--quiet'],
			/join#t=[A-Za-z0-9_-]+[\s\S]*Devices screen/
		);
		try {
			const out = await main.ready;
			const port = /Ringside is running at http:\/\/[^:]+:(\d+)\//.exec(out)![1]!;
			const token = /join#t=([A-Za-z0-9_-]+)/.exec(out)![1]!;
			expect(out).toMatch(/[▀▄█]{10}/);
			expect(out).toMatch(/secretary/i);
			const entry = `http://127.0.0.1:${port}/api/v1/competitions`;
			const refused = await call<AuthErrorJson>(entry);
			expect(refused.status).toBe(401);
			const href = refused.body._links!.join!.href;
			const first = await post<JoinedJson>(href, { token });
			expect(first.status).toBe(201);
			expect(first.body.role).toBe('secretary');
			expect((await post(href, { token })).status).toBe(401);
			expect((await call(entry, { headers: bearer(first.body.credential) })).status).toBe(200);
		} finally {
			expect(await main.stop()).toBe(0);
		}
	}, 30000);

	it('takes --auth required and --open-reads on 127.0.0.1', async () => {
		const main = spawnMain(
			['--port', '0', '--seed', 'small', '--quiet', '--auth', 'required', '--open-reads'],
			/join#t=[A-Za-z0-9_-]+[\s\S]*Devices screen/
		);
		try {
			const out = await main.ready;
			const url = /Ringside is running at (http:\/\/\S+)/.exec(out)![1]!;
			expect(out).toContain(`${url}join#t=`);
			expect((await call(`${url}api/v1/competitions`)).status).toBe(200);
			expect((await put(`${url}api/v1/dogRuns/1`, { faults: 1 })).status).toBe(401);
		} finally {
			expect(await main.stop()).toBe(0);
		}
	}, 30000);

	it('refuses a bad --auth value', () => {
		const r = spawnSync(process.execPath, [...TSX, '--auth', 'maybe'], { encoding: 'utf8' });
		expect(r.status).toBe(2);
		expect(r.stderr).toContain('--auth must be required or open');
	}, 20000);
});
