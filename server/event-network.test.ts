// The event network's loose ends (issue 20): join links listed and withdrawn, a per-address
// limit on failed joins and 401s, refused PUTs bounded per device so that the capped PUT log
// keeps every accepted change, and ring names qualified by their competition where a name alone
// is ambiguous. Over real HTTP, on SQLite and PostgreSQL (this suite runs on both).
import { describe, expect, it } from 'vitest';
import {
	call,
	expand,
	put,
	useServices,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type HalLink,
	type RunList,
	type Started,
	fromAddress
} from './test-support.ts';

const start = useServices();
const startRequired = (extra: Parameters<typeof start>[0] = {}) =>
	start({ auth: 'required', ...extra });

const bearer = (credential: string): Record<string, string> => ({
	Authorization: `Bearer ${credential}`
});

interface CodedError extends ErrorJson {
	code?: string;
}

interface JoinLinkJson {
	id: number;
	token?: string;
	role: string;
	rings: number[] | null;
	usesLeft: number;
	expiresAt: string;
	createdAt: string;
	withdrawnAt: string | null;
	state: 'active' | 'expired' | 'used-up' | 'withdrawn';
	_links: { self: HalLink };
}

interface JoinLinkList {
	_embedded?: { joinLinks: JoinLinkJson[] };
	_links: { self: HalLink };
}

const send = <T>(
	method: string,
	url: string,
	payload?: unknown,
	headers: Record<string, string> = {}
) =>
	call<T>(url, {
		method,
		headers: { 'Content-Type': 'application/json', ...headers },
		...(payload === undefined ? {} : { body: JSON.stringify(payload) })
	});

const api = (s: Started): string => `${s.svc.url}api/v1`;

/** A credential of `role` (and rings), through a join link the service makes itself. */
async function joined(
	s: Started,
	role: 'secretary' | 'steward' | 'viewer',
	rings: number[] | null = null
): Promise<{ id: number; credential: string }> {
	const link = s.svc.createJoinLink({ role, rings, uses: 1, hours: 1 });
	const a = await send<{ id: number; credential: string }>('POST', `${api(s)}/devices/join`, {
		token: link.token
	});
	expect(a.status, a.text).toBe(201);
	return a.body;
}

/** The join-links link, as the secretary's app finds it: root → devices → joinLinks. */
async function joinLinksHref(s: Started, credential: string): Promise<string> {
	const h = { headers: bearer(credential) };
	const root = await call<{ _links: { devices: HalLink } }>(s.entry, h);
	const devices = await call<{ _links: { joinLinks: HalLink } }>(root.body._links.devices.href, h);
	return devices.body._links.joinLinks.href;
}

describe('join links', () => {
	it('are listed for the secretary (never their token) and withdrawn by it', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const h = bearer(secretary.credential);
		const href = await joinLinksHref(s, secretary.credential);
		const made = await send<JoinLinkJson>('POST', href, { role: 'viewer', uses: 3, hours: 2 }, h);
		expect(made.status).toBe(201);
		expect(made.body._links.self.href).toBe(`${href}/${made.body.id}`);
		const token = made.body.token!;

		const list = await call<JoinLinkList>(href, { headers: h });
		expect(list.status).toBe(200);
		const listed = list.body._embedded!.joinLinks;
		const mine = listed.find((l) => l.id === made.body.id)!;
		expect(mine).toMatchObject({
			role: 'viewer',
			rings: null,
			usesLeft: 3,
			expiresAt: made.body.expiresAt,
			withdrawnAt: null,
			state: 'active'
		});
		// The start's secretary link too, used up by the secretary's join.
		expect(listed.some((l) => l.role === 'secretary' && l.state === 'used-up')).toBe(true);
		expect(list.text).not.toContain(token);
		for (const l of listed) expect(l).not.toHaveProperty('token');

		// Withdrawn: nobody joins with it any more; the list says so.
		const del = await send('DELETE', mine._links.self.href, undefined, h);
		expect(del.status).toBe(204);
		const refused = await send<CodedError>('POST', `${api(s)}/devices/join`, { token });
		expect(refused.status).toBe(401);
		expect(refused.body.code).toBe('join-token-withdrawn');
		expect(refused.body.message).toMatch(/withdrawn/);
		const after = await call<JoinLinkList>(href, { headers: h });
		const gone = after.body._embedded!.joinLinks.find((l) => l.id === made.body.id)!;
		expect(gone.state).toBe('withdrawn');
		expect(gone.withdrawnAt).toMatch(/^\d{4}-\d\d-\d\dT/);
		// Withdrawing again changes nothing; an unknown link is a 404.
		expect((await send('DELETE', mine._links.self.href, undefined, h)).status).toBe(204);
		expect((await send('DELETE', `${href}/999999`, undefined, h)).status).toBe(404);
	});

	it('are the secretary’s alone: a steward or viewer gets 403, nobody without a credential', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const href = await joinLinksHref(s, secretary.credential);
		const made = await send<JoinLinkJson>(
			'POST',
			href,
			{ role: 'viewer' },
			bearer(secretary.credential)
		);
		for (const role of ['steward', 'viewer'] as const) {
			const other = await joined(s, role);
			const h = bearer(other.credential);
			expect((await call<CodedError>(href, { headers: h })).body.code).toBe('secretary-only');
			const del = await send<CodedError>('DELETE', made.body._links.self.href, undefined, h);
			expect(del.status).toBe(403);
		}
		expect((await call(href)).status).toBe(401);
		const still = await call<JoinLinkList>(href, { headers: bearer(secretary.credential) });
		expect(still.body._embedded!.joinLinks.find((l) => l.id === made.body.id)?.state).toBe(
			'active'
		);
	});
});

/** A request from another loopback address (the service sees 127.0.0.x as the client). */
const from = (
	address: string,
	method: string,
	url: string,
	body?: unknown,
	headers: Record<string, string> = {}
) => fromAddress<CodedError>(address, method, url, body, headers);

describe('failed joins and 401s', () => {
	it('are limited per client address: past the limit 429 with Retry-After, before any work', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const joinUrl = `${api(s)}/devices/join`;
		const statuses: number[] = [];
		for (let i = 0; i < 60; i++) {
			statuses.push((await from('127.0.0.3', 'POST', joinUrl, { token: `bad-token-${i}` })).status);
		}
		// The first failures are answered 401 as always; then 429.
		expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
		expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
		const limited = await from('127.0.0.3', 'POST', joinUrl, { token: 'bad' });
		expect(limited.status).toBe(429);
		expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
		expect(limited.body.code).toBe('too-many-failures');
		// Unknown credentials count too, from that address: also 429.
		const unknown = await from('127.0.0.3', 'GET', s.entry, undefined, bearer('x'.repeat(43)));
		expect(unknown.status).toBe(429);
		// Another address is not held back; a credential known to be good is not either.
		expect((await from('127.0.0.4', 'POST', joinUrl, { token: 'bad' })).status).toBe(401);
		const good = await from('127.0.0.3', 'GET', s.entry, undefined, bearer(secretary.credential));
		expect(good.status).toBe(200);
		// A good join link from the limited address waits too (it cannot be told from a bad one).
		const link = s.svc.createJoinLink({ role: 'viewer', uses: 1, hours: 1 });
		expect((await from('127.0.0.3', 'POST', joinUrl, { token: link.token })).status).toBe(429);
		expect((await from('127.0.0.4', 'POST', joinUrl, { token: link.token })).status).toBe(201);
	});

	it('recover with time: the limit is a budget that refills', async () => {
		let now = Date.parse('2026-05-12T08:00:00Z');
		const s = await startRequired({ clock: () => now });
		const joinUrl = `${api(s)}/devices/join`;
		for (let i = 0; i < 40; i++) await from('127.0.0.5', 'POST', joinUrl, { token: `x${i}` });
		expect((await from('127.0.0.5', 'POST', joinUrl, { token: 'x' })).status).toBe(429);
		now += 60_000;
		expect((await from('127.0.0.5', 'POST', joinUrl, { token: 'x' })).status).toBe(401);
	});
});

describe('behind a trusted proxy (--trust-proxy)', () => {
	it('each client is the one X-Forwarded-For names: an attacker is limited, a new phone joins, a forged header gains nothing', async () => {
		// 127.0.0.1 plays the proxy: it appends the address it was connected from.
		const s = await startRequired({ trustProxy: ['127.0.0.1'] });
		const joinUrl = `${api(s)}/devices/join`;
		const via = (client: string, body: unknown, forged?: string) =>
			from('127.0.0.1', 'POST', joinUrl, body, {
				'X-Forwarded-For': forged ? `${forged}, ${client}` : client
			});
		const statuses: number[] = [];
		for (let i = 0; i < 60; i++)
			statuses.push((await via('192.0.2.66', { token: `bad-${i}` })).status);
		expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
		expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
		// Another client behind the same proxy joins with the secretary's real link.
		const link = s.svc.createJoinLink({ role: 'steward', uses: 2, hours: 1 });
		const phone = await via('192.0.2.10', { token: link.token, name: 'Ring 1' });
		expect(phone.status).toBe(201);
		// The attacker writes the new phone's address into its own header: still itself.
		expect((await via('192.0.2.66', { token: link.token }, '192.0.2.10')).status).toBe(429);
		// Straight to the instance (not through the proxy), a forged header is ignored: the
		// connection's own address, here 127.0.0.3, is the client.
		for (let i = 0; i < 40; i++) {
			await from(
				'127.0.0.3',
				'POST',
				joinUrl,
				{ token: `x${i}` },
				{ 'X-Forwarded-For': '192.0.2.10' }
			);
		}
		expect((await from('127.0.0.3', 'POST', joinUrl, { token: 'x' })).status).toBe(429);
		expect((await via('192.0.2.10', { token: 'bad' })).status).toBe(401);
		// The devices' last address and the request's sender in the PUT log are the client's.
		const device = s.svc.db
			?.prepare('SELECT last_address AS a FROM device WHERE name = ?')
			.get('Ring 1') as { a: string } | undefined;
		expect(device?.a).toBe('192.0.2.10');
	});

	it('an IPv6 client is limited by its /64: moving to another of its addresses gains nothing', async () => {
		const s = await startRequired({ trustProxy: ['127.0.0.1'] });
		const joinUrl = `${api(s)}/devices/join`;
		const via = (client: string) =>
			from('127.0.0.1', 'POST', joinUrl, { token: 'bad' }, { 'X-Forwarded-For': client });
		const statuses: number[] = [];
		for (let i = 1; i <= 60; i++)
			statuses.push((await via(`2001:db8:1:2::${i.toString(16)}`)).status);
		expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
		expect((await via('2001:db8:1:2:ffff::1')).status).toBe(429);
		// Another subscriber's block is another client.
		expect((await via('2001:db8:1:3::1')).status).toBe(401);
	});

	it('a credential known on another process still works from a limited address', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const joinUrl = `${api(s)}/devices/join`;
		for (let i = 0; i < 60; i++) await from('127.0.0.7', 'POST', joinUrl, { token: `bad-${i}` });
		expect((await from('127.0.0.7', 'POST', joinUrl, { token: 'bad' })).status).toBe(429);
		// A second process on the same database, as after a restart or on the other instance:
		// it has never seen the credential, and its own budget for the address is spent too.
		await s.svc.close();
		const again = await startRequired({ dbFile: s.dbFile });
		for (let i = 0; i < 60; i++)
			await from('127.0.0.7', 'POST', `${api(again)}/devices/join`, { token: `b${i}` });
		const good = await from(
			'127.0.0.7',
			'GET',
			again.entry,
			undefined,
			bearer(secretary.credential)
		);
		expect(good.status).toBe(200);
		const unknown = await from('127.0.0.7', 'GET', again.entry, undefined, bearer('y'.repeat(43)));
		expect(unknown.status).toBe(429);
	});
});

/** The IN_PROGRESS competition, its first two rings, and a run and a dog on each. */
async function scene(s: Started, credential: string) {
	const h = { headers: bearer(credential) };
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`, h);
	const competition: CompetitionJson = list.body._embedded!.competitions[0]!;
	const onRing = async (i: number) => {
		const ring = competition.rings[i]!;
		const runs = await call<RunList>(expand(ring._links.competitionRuns.href, {}), h);
		const run = runs.body._embedded!.competitionRuns[0]!;
		const dogs = await call<DogRunList>(run._links.dogRuns.href, h);
		return { ring, run, dog: dogs.body._embedded!.dogRuns[0]! as DogRunJson };
	};
	return { competition, a: await onRing(0), b: await onRing(1) };
}

describe('the PUT log under refused PUTs', () => {
	it('keeps every accepted change: refused PUTs are kept per device within a bound', async () => {
		const s = await startRequired({ putLogMaxRows: 20, putLogRefusedPerSender: 5 });
		const secretary = await joined(s, 'secretary');
		const { a } = await scene(s, secretary.credential);
		const viewer = await joined(s, 'viewer');
		const refuse = async (n: number) => {
			for (let i = 0; i < n; i++) {
				expect(
					(await put(a.dog._links.self.href, { faults: 1 }, bearer(viewer.credential))).status
				).toBe(403);
			}
		};
		await refuse(30);
		const accepted: number[] = [];
		for (let i = 0; i < 3; i++) {
			const r = await put(a.dog._links.self.href, { faults: i }, bearer(secretary.credential));
			expect(r.status).toBe(200);
			accepted.push(i);
		}
		await refuse(100);
		const log = await s.svc.readPutLog();
		expect(log.filter((r) => r.status === 200).map((r) => r.requestBody)).toEqual(
			accepted.map((i) => `{"faults":${i}}`)
		);
		expect(log.filter((r) => r.device === String(viewer.id)).length).toBe(5);
		// Accepted changes are kept up to putLogMaxRows, the newest.
		for (let i = 3; i < 25; i++) {
			expect(
				(await put(a.dog._links.self.href, { faults: i % 10 }, bearer(secretary.credential))).status
			).toBe(200);
		}
		const later = await s.svc.readPutLog();
		expect(later.filter((r) => r.status === 200).length).toBe(20);
		expect(later.filter((r) => r.device === String(viewer.id)).length).toBe(5);
	});
});

describe('ring names', () => {
	it('are qualified by their competition in a refusal where the name alone is ambiguous', async () => {
		const s = await startRequired();
		const secretary = await joined(s, 'secretary');
		const { competition, a, b } = await scene(s, secretary.credential);
		// Every competition of the seed has a "Ring 1" and most a "Ring 2".
		const all = (
			await call<CompetitionList>(`${s.entry}?size=50`, { headers: bearer(secretary.credential) })
		).body._embedded!.competitions;
		expect(all.filter((c) => c.rings.some((r) => r.name === a.ring.name)).length).toBeGreaterThan(
			1
		);
		const steward = await joined(s, 'steward', [a.ring.id]);
		const refused = await put<CodedError>(
			b.dog._links.self.href,
			{ faults: 1 },
			bearer(steward.credential)
		);
		expect(refused.status).toBe(403);
		expect(refused.body.code).toBe('ring-not-assigned');
		expect(refused.body.message).toBe(
			`This device is a ring steward for ${a.ring.name} (${competition.name}); this run is in ${b.ring.name} (${competition.name})`
		);
	});
});
