// Two instances of the service in separate processes (`server/main.ts`) on one PostgreSQL
// database, behind Debian's nginx (scripts/topology.ts): what only separate processes show. Each
// process has its own link placeholder and its own start, so events relayed from another
// instance, replays after a restart and ETags are checked here against what one process does.
// Runs in the `topology` project (vite.config.ts): with RINGSIDE_TEST_PG=1 it fails when
// PostgreSQL or nginx is missing.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	nginxSite,
	startInstance,
	startTopology,
	type Instance,
	type Topology
} from '../scripts/topology.ts';
import {
	call,
	isDone,
	openSse,
	put,
	SEED_DATE,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type RunJson,
	type RunList,
	type SseStream,
	fromAddress
} from './test-support.ts';

let t: Topology;
const A = (): Instance => t.instances[0]!;
const B = (): Instance => t.instances[1]!;
const api = (base: string): string => `${base}api/v1`;

interface Scene {
	competitionId: number;
	run: RunJson;
	dogs: DogRunJson[];
}
let scene: Scene;

async function readScene(base: string): Promise<Scene> {
	const list = await call<CompetitionList>(`${api(base)}/competitions?state=IN_PROGRESS`);
	const c = list.body._embedded!.competitions[0]!;
	const runs = await call<RunList>(`${c._links.competitionRuns.href}?size=50`);
	// A run with a few dogs yet to run (results change its progress).
	for (const run of runs.body._embedded!.competitionRuns) {
		const dogs = (await call<DogRunList>(`${run._links.dogRuns.href}?size=50`)).body._embedded
			?.dogRuns;
		if (dogs && dogs.length > 12 && dogs.filter((d) => !isDone(d)).length >= 4) {
			return {
				competitionId: c.id,
				run,
				dogs: [...dogs.filter(isDone), ...dogs.filter((d) => !isDone(d))]
			};
		}
	}
	throw new Error('no run with four dogs yet to run in the small seed');
}

/** Opens the competition's stream on `base` and reads up to its `ready`. */
async function stream(base: string, lastEventId?: string): Promise<{ s: SseStream; id: string }> {
	const headers: Record<string, string> = lastEventId ? { 'Last-Event-ID': lastEventId } : {};
	const s = await openSse(`${api(base)}/competitions/${scene.competitionId}/changes`, headers);
	expect(s.status).toBe(200);
	if (lastEventId) return { s, id: lastEventId };
	const ready = await s.nextEvent(5000);
	expect(ready?.event).toBe('ready');
	return { s, id: ready!.id! };
}

/** Every href in a JSON value. */
function hrefs(value: unknown, out: string[] = []): string[] {
	if (Array.isArray(value)) for (const v of value) hrefs(v, out);
	else if (value && typeof value === 'object') {
		for (const [k, v] of Object.entries(value)) {
			if (k === 'href' && typeof v === 'string') out.push(v);
			else hrefs(v, out);
		}
	}
	return out;
}

let timeSeq = 0;
/** A PUT of a new time on `dog` at `base`; answers the dog run. */
async function record(base: string, dog: DogRunJson): Promise<DogRunJson> {
	const time = 30 + ++timeSeq / 100;
	const a = await put<DogRunJson>(`${api(base)}/dogRuns/${dog.id}`, { time });
	expect(a.status).toBe(200);
	return a.body;
}

beforeAll(async () => {
	t = await startTopology({
		args: ['--seed', 'small', '--seed-date', SEED_DATE, '--quiet', '--read-budget', 'off']
	});
	scene = await readScene(t.url);
}, 90_000);

afterAll(async () => {
	await t?.stop();
}, 30_000);

describe('events relayed between instances', () => {
	it("carry the receiving instance's links, live and in a replay after a restart", async () => {
		const onB = await stream(B().url);
		const dog = scene.dogs[0]!;
		await record(A().url, dog);
		const event = await onB.s.nextEvent(5000);
		onB.s.close();
		expect(event?.event).toBe('dogRun');
		expect(event?.data).not.toContain('@@');
		const relayed = JSON.parse(event!.data) as DogRunJson;
		expect(relayed._links.self.href).toBe(`${api(B().url)}/dogRuns/${dog.id}`);
		for (const h of hrefs(relayed)) expect(h.startsWith(api(B().url))).toBe(true);

		// A restarted B fills its feed from the database: the replay has B's links too.
		await t.restart(1);
		const again = await stream(B().url, onB.id);
		const replayed = await again.s.nextEvent(5000);
		again.s.close();
		expect(replayed?.event).toBe('dogRun');
		expect(replayed?.id).toBe(event?.id);
		expect(replayed?.data).not.toContain('@@');
		const body = JSON.parse(replayed!.data) as DogRunJson;
		for (const h of hrefs(body)) expect(h.startsWith(api(B().url))).toBe(true);
		expect(body._links.self.href).toBe(`${api(B().url)}/dogRuns/${dog.id}`);
	});

	it("through the proxy carry the proxy's links, whichever instance took the change", async () => {
		const viaProxy = await stream(t.url);
		const dogs = scene.dogs.slice(1, 5);
		for (const d of dogs) await record(t.url, d);
		for (const d of dogs) {
			const e = await viaProxy.s.nextEvent(5000);
			const body = JSON.parse(e!.data) as DogRunJson;
			expect(body._links.self.href).toBe(`${api(t.url)}/dogRuns/${d.id}`);
			for (const h of hrefs(body)) expect(h.startsWith(api(t.url))).toBe(true);
		}
		viaProxy.s.close();
	});
});

describe('streams through the proxy', () => {
	it('resume with Last-Event-ID on whichever instance nginx chooses, missing nothing', async () => {
		// Where both instances' feeds are now (each has received every change before).
		let from = '';
		for (let i = 0; i < 50 && !from; i++) {
			const ids: string[] = [];
			for (const inst of t.instances) {
				const o = await stream(inst.url);
				o.s.close();
				ids.push(o.id);
			}
			if (ids[0] === ids[1]) from = ids[0]!;
			else await new Promise((r) => setTimeout(r, 20));
		}
		expect(from).not.toBe('');
		const first = { id: from };
		const dogs = scene.dogs.slice(5, 9);
		for (const d of dogs) await record(t.url, d);
		// Several reconnections: round-robin sends them to both instances.
		for (let k = 0; k < 4; k++) {
			const again = await stream(t.url, first.id);
			const got: number[] = [];
			for (let i = 0; i < dogs.length; i++) {
				const e = await again.s.nextEvent(5000);
				got.push((JSON.parse(e!.data) as DogRunJson).id);
			}
			expect(got).toEqual(dogs.map((d) => d.id));
			expect((await again.s.nextEvent(5000))?.event).toBe('ready');
			again.s.close();
		}
	});
});

describe('the nginx site of docs/deployment.md', () => {
	it('is the one these tests run', () => {
		const doc = readFileSync(resolve(import.meta.dirname, '../docs/deployment.md'), 'utf8');
		const site = nginxSite({
			upstreams: ['10.0.0.11:4173', '10.0.0.12:4173'],
			listen: '80',
			serverName: 'results.example.org'
		});
		expect(doc).toContain('```nginx\n' + site + '```');
		const running = nginxSite({
			upstreams: t.instances.map((i) => `127.0.0.1:${i.port}`),
			listen: `127.0.0.1:${t.proxy.port}`
		});
		expect(t.proxy.config.replace(/^\t/gm, '')).toContain(running);
	});
});

describe('ETags', () => {
	const paths = (): string[] => [
		`/competitions/${scene.competitionId}`,
		'/competitions',
		`/competitions/${scene.competitionId}/runs`,
		`/competitionRuns/${scene.run.id}`,
		`/competitionRuns/${scene.run.id}/dogRuns`,
		`/dogRuns/${scene.dogs.filter((d) => !isDone(d)).at(-3)!.id}`
	];

	it('are the same on every instance: a tag of A is answered 304 by B', async () => {
		for (const p of paths()) {
			const a = await call(`${api(A().url)}${p}`);
			const tag = a.res.headers.get('etag');
			expect(tag, p).toBeTruthy();
			const b = await call(`${api(B().url)}${p}`, { headers: { 'If-None-Match': tag! } });
			expect(b.status, p).toBe(304);
			expect(b.res.headers.get('etag')).toBe(tag);
		}
	});

	it('survive a restart, and change with the representation (a run’s progress too)', async () => {
		const tags = new Map<string, string>();
		for (const p of paths())
			tags.set(p, (await call(`${api(A().url)}${p}`)).res.headers.get('etag')!);
		await t.restart(0);
		for (const p of paths()) {
			const a = await call(`${api(A().url)}${p}`, { headers: { 'If-None-Match': tags.get(p)! } });
			expect(a.status, p).toBe(304);
		}
		// A first result on B: the dog run, its run's progress (embedded in every dog run) and the
		// lists change; their old tags are answered 200 with a new tag, on both instances.
		const [first, ...undone] = scene.dogs.filter((d) => !isDone(d)).slice(-3);
		await record(B().url, first!);
		for (const p of paths().filter((x) => x.includes('competitionRuns') || x.includes('dogRuns'))) {
			for (const base of [A().url, B().url]) {
				const a = await call(`${api(base)}${p}`, { headers: { 'If-None-Match': tags.get(p)! } });
				expect(a.status, p).toBe(200);
				expect(a.res.headers.get('etag')).not.toBe(tags.get(p));
			}
		}
		// Another dog's first result changes a dog run only through its run's progress.
		const other = `/dogRuns/${undone[0]!.id}`;
		const before = (await call(`${api(A().url)}${other}`)).res.headers.get('etag')!;
		await record(A().url, undone[1]!);
		const after = await call(`${api(B().url)}${other}`, { headers: { 'If-None-Match': before } });
		expect(after.status).toBe(200);
		expect(after.res.headers.get('etag')).not.toBe(before);
	});

	it('through the proxy: a board polling with If-None-Match gets 304 from either instance', async () => {
		const href = `${api(t.url)}/competitions/${scene.competitionId}/nextDogRunsForRing/${scene.run.competitionRing.id}`;
		const first = await call(href);
		const tag = first.res.headers.get('etag')!;
		const statuses: number[] = [];
		for (let i = 0; i < 6; i++) {
			statuses.push((await call(href, { headers: { 'If-None-Match': tag } })).status);
		}
		expect(statuses).toEqual([304, 304, 304, 304, 304, 304]);
	});
});

/** A raw connection: what the server sent, and when it closed. */
function rawConnection(port: number): {
	write(text: string): void;
	received(): string;
	closed: Promise<void>;
} {
	const socket = connect(port, '127.0.0.1');
	let got = '';
	socket.setEncoding('utf8');
	socket.on('data', (c: string) => (got += c));
	const closed = new Promise<void>((r) => {
		socket.once('close', () => r());
		socket.once('error', () => r());
	});
	return { write: (text) => socket.write(text), received: () => got, closed };
}

const statusesOf = (text: string): number[] =>
	[...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

describe('an instance stopping (SIGTERM, SIGINT)', () => {
	it.each(['SIGTERM', 'SIGINT'] as const)(
		'on %s finishes what is in flight, answers 503 with Retry-After to what arrives late, and stops accepting',
		async (signal) => {
			// Its own database on the topology's cluster; every answer 2.5 s late, so that requests
			// are in flight when the signal comes (longer than the old grace of 2 s).
			const db = await t.cluster!.createDatabase(`stopping_${signal.toLowerCase()}`);
			const s = await startInstance({
				databaseUrl: db,
				args: ['--seed', 'small', '--seed-date', SEED_DATE, '--latency', '2500']
			});
			const host = `Host: 127.0.0.1:${s.port}`;
			const body = JSON.stringify({ time: 44.44 });
			const dog = scene.dogs[0]!;
			const c1 = rawConnection(s.port);
			c1.write(
				`PUT /api/v1/dogRuns/${dog.id} HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
			);
			const c2 = rawConnection(s.port);
			c2.write(`GET /api/v1/competitions HTTP/1.1\r\n${host}\r\n\r\n`);
			await new Promise((r) => setTimeout(r, 300));
			void s.stop(signal);
			await new Promise((r) => setTimeout(r, 300));
			// Late: a second request on a connection that is busy (it is answered after the first).
			c2.write(`GET /api/v1/competitions HTTP/1.1\r\n${host}\r\n\r\n`);
			// A new connection is not accepted.
			const refused = await fetch(`${s.url}api/v1/competitions`).then(
				() => false,
				() => true
			);
			expect(refused).toBe(true);
			const code = await s.exited;
			await Promise.all([c1.closed, c2.closed]);
			expect(statusesOf(c1.received())).toEqual([200]);
			expect(statusesOf(c2.received())).toEqual([200, 503]);
			const late = c2.received().slice(c2.received().lastIndexOf('HTTP/1.1 503'));
			expect(late).toMatch(/^Retry-After: \d+\r$/im);
			expect(late).toMatch(/^Connection: close\r$/im);
			expect(code).toBe(0);
			expect(s.output()).not.toMatch(/not open|"status":500|put_log append failed/);
			// The PUT was applied, and logged.
			const pg = await import('pg');
			const client = new pg.default.Client({ connectionString: db });
			await client.connect();
			try {
				const row = await client.query('SELECT time_cs FROM dog_run WHERE id = $1', [dog.id]);
				expect(row.rows[0]).toEqual({ time_cs: 4444 });
				const log = await client.query('SELECT status FROM put_log ORDER BY id');
				expect(log.rows).toEqual([{ status: 200 }]);
			} finally {
				await client.end();
			}
		}
	);
});

describe('each client is itself behind the proxy (--trust-proxy)', () => {
	// Its own topology: devices required, a small read budget, the instances trusting the proxy
	// on 127.0.0.1 as docs/deployment.md starts them. Clients reach nginx from distinct loopback
	// addresses, so nginx's X-Forwarded-For names each.
	let u: Topology;
	let secretary = '';
	beforeAll(async () => {
		u = await startTopology({
			args: [
				'--seed',
				'small',
				'--seed-date',
				SEED_DATE,
				'--auth',
				'required',
				'--read-budget',
				'20'
			]
		});
		const token = /#t=([A-Za-z0-9_-]+)/.exec(u.instances[0]!.output())?.[1];
		if (!token) throw new Error(`no secretary link in: ${u.instances[0]!.output()}`);
		const joined = await from('127.0.0.9', 'POST', `${api(u.url)}/devices/join`, {
			token,
			name: 'Desk'
		});
		expect(joined.status).toBe(201);
		secretary = (joined.body as { credential: string }).credential;
	}, 90_000);
	afterAll(async () => {
		await u?.stop();
	}, 30_000);

	const auth = (credential: string) => ({ Authorization: `Bearer ${credential}` });
	const joinUrl = () => `${api(u.url)}/devices/join`;
	async function stewardLink(): Promise<string> {
		const made = await from(
			'127.0.0.9',
			'POST',
			`${api(u.url)}/join-links`,
			{ role: 'steward', rings: null, uses: 5, hours: 1 },
			auth(secretary)
		);
		expect(made.status, JSON.stringify(made.body)).toBe(201);
		return (made.body as { token: string }).token;
	}

	it('an attacker is limited while a new phone joins, on both instances', async () => {
		const statuses: number[] = [];
		for (let i = 0; i < 60; i++) {
			statuses.push((await from('127.0.0.2', 'POST', joinUrl(), { token: `bad-${i}` })).status);
		}
		expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
		expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
		const token = await stewardLink();
		const phone = await from('127.0.0.3', 'POST', joinUrl(), { token, name: 'Ring 1' });
		expect(phone.status).toBe(201);
		// Behind the same public address as the attacker (one venue's Wi-Fi), a steward whose
		// credential neither instance may have seen yet: every request answered, on both.
		const steward = (phone.body as { credential: string }).credential;
		for (let i = 0; i < 4; i++) {
			expect(
				(await from('127.0.0.2', 'GET', `${api(u.url)}/competitions`, undefined, auth(steward)))
					.status
			).toBe(200);
		}
		// The devices' last address is the phone's, not the proxy's.
		const devices = await from(
			'127.0.0.9',
			'GET',
			`${api(u.url)}/devices`,
			undefined,
			auth(secretary)
		);
		const listed = (
			devices.body as { _embedded: { devices: { name: string; lastAddress: string }[] } }
		)._embedded.devices;
		expect(listed.find((d) => d.name === 'Ring 1')?.lastAddress).toMatch(/^127\.0\.0\.[23]$/);
	});

	it('a forged X-Forwarded-For sent straight to an instance gains nothing', async () => {
		const direct = `${api(u.instances[1]!.url)}/devices/join`;
		const statuses: number[] = [];
		for (let i = 0; i < 40; i++) {
			const a = await from(
				'127.0.0.4',
				'POST',
				direct,
				{ token: `x${i}` },
				{ 'X-Forwarded-For': `127.0.0.${50 + i}` }
			);
			statuses.push(a.status);
		}
		expect(statuses.slice(-5)).toEqual(Array(5).fill(429));
		// Through the proxy, the addresses it named are untouched.
		expect((await from('127.0.0.5', 'POST', joinUrl(), { token: 'x' })).status).toBe(401);
	});

	it('a heavy reader is refused while the big screen reads', async () => {
		const heavy = `${api(u.url)}/competitions?size=50`;
		let refused = 0;
		for (let i = 0; i < 400 && refused === 0; i++) {
			const a = await from('127.0.0.6', 'GET', heavy, undefined, auth(secretary));
			if (a.status === 429) refused++;
			else expect(a.status).toBe(200);
		}
		expect(refused).toBe(1);
		// The big screen, another client behind the same proxy, reads on.
		const screen = await from('127.0.0.7', 'GET', heavy, undefined, auth(secretary));
		expect(screen.status).toBe(200);
	});
});

/** One request from a given local address (a client of its own behind the proxy). */
const from = (
	address: string,
	method: string,
	url: string,
	body?: unknown,
	headers: Record<string, string> = {}
) => fromAddress(address, method, url, body, { Accept: 'application/hal+json', ...headers });
