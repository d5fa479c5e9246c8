// The service on PostgreSQL (project `postgres`, a throw-away cluster): the same seed as SQLite,
// migrations from one description, and several instances on one database answering as one
// (ETags from the row version, If-Match by a conditional UPDATE, the PUT log in the change's
// transaction, exact progress, push events and revocations delivered by every instance), plus
// the PostgreSQL counterparts of the SQLite-only tests.
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createService, type Service, type ServiceOptions } from './app.ts';
import { openDatabase } from './store/sqlite/open.ts';
import { seedDatabase } from './store/sqlite/seed.ts';
import { sqliteStore } from './store/sqlite/sqlite-store.ts';
import { newDatabase as createDatabase } from './test-pg/new-database.ts';
import { SEED_TABLES, type SeedTable } from './store/seed-tables.ts';
import { openPostgres } from './store/postgres/pg-store.ts';
import { MIGRATIONS } from './store/schema.ts';
import type { Sql } from './store/sql.ts';
import type { Store } from './store/store.ts';
import {
	call,
	openSse,
	put,
	SEED_DATE,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunJson
} from './test-support.ts';

/** A new empty database on the test cluster. */
const newDatabase = () => createDatabase('pgt');

const running: Service[] = [];
afterEach(async () => {
	while (running.length) await running.pop()!.close();
});

async function instance(databaseUrl: string, extra: ServiceOptions = {}): Promise<Service> {
	const svc = await createService({
		databaseUrl,
		port: 0,
		seed: 'small',
		seedDate: SEED_DATE,
		quiet: true,
		etag: true,
		...extra
	});
	running.push(svc);
	return svc;
}

/** Two instances of the service on one new database. */
async function twoInstances(extra: ServiceOptions = {}): Promise<[Service, Service, string]> {
	const url = await newDatabase();
	const a = await instance(url, extra);
	const b = await instance(url, extra);
	return [a, b, url];
}

const api = (svc: Service): string => `${svc.url}api/v1`;
/** The same path on another instance. */
const on = (svc: Service, href: string): string => href.replace(/^http:\/\/[^/]+\//, svc.url);

async function openDogs(svc: Service): Promise<{ run: RunJson; dogs: DogRunJson[]; cid: number }> {
	const list = await call<CompetitionList>(`${api(svc)}/competitions?state=IN_PROGRESS`);
	const c = list.body._embedded!.competitions[0]!;
	const next = await call<DogRunList>(c.rings[0]!._links.nextDogRuns.href);
	const run = next.body._embedded!.dogRuns[0]!.competitionRun;
	const all = await call<DogRunList>(`${run._links.dogRuns.href}?size=500`);
	const dogs = all.body._embedded!.dogRuns.filter(
		(d) => d.time === null && !d.disqualified && !d.absence
	);
	return { run, dogs, cid: c.id };
}

/**
 * Every seeded table, in primary-key order, as JSON (meta without its createdAt): the same text
 * for the same rows on either engine.
 */
async function fingerprint(sql: Sql): Promise<string> {
	const parts: string[] = [];
	for (const t of Object.keys(SEED_TABLES) as SeedTable[]) {
		const { table, columns } = SEED_TABLES[t];
		const order = t === 'compJudge' ? 'competition_id, judge_id' : 'id';
		const rows = await sql.all<Record<string, unknown>>(
			`SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${order}`
		);
		parts.push(table, JSON.stringify(rows.map((r) => columns.map((c) => r[c]))));
	}
	const meta = await sql.all(
		"SELECT key, value FROM meta WHERE key IN ('seedSize', 'seedDate') ORDER BY key"
	);
	parts.push('meta', JSON.stringify(meta));
	return parts.join('\n');
}

describe('one description, two engines', () => {
	it('seeds the same rows on SQLite and PostgreSQL', async () => {
		for (const size of ['small', 'realistic'] as const) {
			const { db } = openDatabase(':memory:');
			seedDatabase(db, size, SEED_DATE);
			const lite = sqliteStore(db, ':memory:');
			const { store } = await openPostgres({
				url: await newDatabase(),
				reset: false,
				seed: size,
				seedDate: SEED_DATE,
				poolSize: 2
			});
			try {
				const [a, b] = [await fingerprint(lite.sql), await fingerprint(store.sql)];
				expect(b.length, size).toBeGreaterThan(10_000);
				expect(b === a, `${size}: the engines' seeds differ`).toBe(true);
			} finally {
				await lite.close();
				await store.close();
			}
		}
	}, 60_000);

	it('runs every migration once, when instances start together on an empty database', async () => {
		const url = await newDatabase();
		const both = await Promise.all([instance(url), instance(url), instance(url)]);
		expect(both.filter((s) => s.seeded !== null)).toHaveLength(1);
		const client = new pg.Client({ connectionString: url });
		await client.connect();
		try {
			const v = await client.query<{ version: number }>('SELECT version FROM schema_version');
			expect(v.rows).toEqual([{ version: MIGRATIONS.length }]);
			const n = await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM competition');
			expect(Number(n.rows[0]!.n)).toBe(3);
		} finally {
			await client.end();
		}
		const { db } = openDatabase(':memory:');
		expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
		db.close();
	});

	it('keeps its data across restarts and seeds again only with reset', async () => {
		const url = await newDatabase();
		const first = await instance(url);
		const { dogs } = await openDogs(first);
		expect((await put(dogs[0]!._links.self.href, { faults: 15 })).status).toBe(200);
		await first.close();
		const again = await instance(url);
		expect(again.seeded).toBeNull();
		const d = await call<DogRunJson>(on(again, dogs[0]!._links.self.href));
		expect(d.body.faults).toBe(15);
		const reset = await instance(url, { reset: true });
		expect(reset.seeded).not.toBeNull();
		expect((await call<DogRunJson>(on(reset, dogs[0]!._links.self.href))).body.faults).toBe(
			dogs[0]!.faults
		);
	});
});

describe('several instances on one PostgreSQL answer as one', () => {
	it('give the same bodies and ETags, and a write on one is read at once on the other', async () => {
		const [a, b] = await twoInstances();
		const { dogs, run } = await openDogs(a);
		const href = dogs[0]!._links.self.href;
		const [ra, rb] = [await call(href), await call(on(b, href))];
		expect(rb.res.headers.get('etag')).toBe(ra.res.headers.get('etag'));
		expect(rb.text.replaceAll(b.url, a.url)).toBe(ra.text);
		// B keeps the tag of its list page in its tag cache; a write on A must not leave B
		// answering 304 with it.
		const listB = await call(on(b, run._links.dogRuns.href));
		const tagB = listB.res.headers.get('etag')!;
		expect(
			(await call(on(b, run._links.dogRuns.href), { headers: { 'If-None-Match': tagB } })).status
		).toBe(304);
		const w = await put<DogRunJson>(
			href,
			{ faults: 5 },
			{ 'If-Match': ra.res.headers.get('etag')! }
		);
		expect(w.status).toBe(200);
		const after = await call<DogRunList>(on(b, run._links.dogRuns.href), {
			headers: { 'If-None-Match': tagB }
		});
		expect(after.status).toBe(200);
		expect(after.body._embedded!.dogRuns.find((d) => d.id === dogs[0]!.id)!.faults).toBe(5);
		// The tag A answered the PUT with is the tag B now gives.
		expect((await call(on(b, href))).res.headers.get('etag')).toBe(w.res.headers.get('etag'));
	});

	it('lose no update: concurrent If-Match writers on both instances, every 412 a real conflict', async () => {
		const [a, b] = await twoInstances();
		const { dogs } = await openDogs(a);
		const dog = dogs[0]!;
		const start = dog.faults;
		const writers = 12;
		const rounds = 6;
		let applied = 0;
		const refused: number[] = [];
		await Promise.all(
			Array.from({ length: writers }, async (_, w) => {
				const svc = w % 2 === 0 ? a : b;
				const href = on(svc, dog._links.self.href);
				for (let r = 0; r < rounds; r++) {
					const read = await call<DogRunJson>(href);
					const tag = read.res.headers.get('etag')!;
					const res = await put(href, { faults: read.body.faults + 1 }, { 'If-Match': tag });
					if (res.status === 200) applied++;
					else {
						expect(res.status).toBe(412);
						refused.push(Number(/^"dogRun-\d+-(\d+)\d{12}"$/.exec(tag)![1]));
					}
				}
			})
		);
		expect(applied + refused.length).toBe(writers * rounds);
		expect(applied).toBeGreaterThan(0);
		expect(refused.length).toBeGreaterThan(0);
		// No lost update: every 200 added one, on top of the one before it.
		const final = await call<DogRunJson>(on(b, dog._links.self.href));
		expect(final.body.faults).toBe(start + applied);
		const log = await a.readPutLog({ resourceKind: 'dogRun', resourceId: dog.id });
		const versions = log
			.filter((r) => r.status === 200)
			.map((r) => Number(/to version (\d+)$/.exec(r.responseSummary ?? '')![1]))
			.sort((x, y) => x - y);
		expect(versions).toEqual(Array.from({ length: applied }, (_, i) => i + 1));
		// Every 412 named a version that another writer's 200 had already moved on from.
		for (const v of refused) expect(versions).toContain(v + 1);
		expect(log.filter((r) => r.status === 412)).toHaveLength(refused.length);
	}, 60_000);

	it('apply PUTs without If-Match one after the other: each field kept, progress exact', async () => {
		const [a, b] = await twoInstances();
		const { dogs, run } = await openDogs(a);
		const before = run.progress;
		const total = (await call<DogRunList>(`${run._links.dogRuns.href}?size=500`)).body._embedded!
			.dogRuns.length;
		const done = dogs.slice(0, 8);
		// Two writers of different fields of one dog on two instances, and results of 8 dogs.
		const one = done[0]!._links.self.href;
		await Promise.all([
			...Array.from({ length: 10 }, (_, i) => put(one, { refusals: i % 3 })),
			...Array.from({ length: 10 }, (_, i) => put(on(b, one), { faults: 5 * (i % 2) })),
			...done.map((d, i) => put(on(i % 2 ? a : b, d._links.self.href), { time: 30 + i }))
		]);
		const log = await a.readPutLog({ resourceKind: 'dogRun', resourceId: done[0]!.id });
		expect(log.filter((r) => r.status !== 200).map((r) => [r.status, r.responseSummary])).toEqual(
			[]
		);
		const last = (await call<DogRunJson>(one)).body;
		// The last applied PUT of each field wins; neither erased the other's field.
		const bodies = log.map((r) => JSON.parse(r.requestBody!) as Record<string, number>);
		expect(last.refusals).toBe(bodies.findLast((x) => 'refusals' in x)!.refusals);
		expect(last.faults).toBe(bodies.findLast((x) => 'faults' in x)!.faults);
		const doneBefore = Math.round((before * total) / 100);
		for (const svc of [a, b]) {
			const r = (await call<RunJson>(on(svc, run._links.self.href))).body;
			const dogsNow = (await call<DogRunList>(`${on(svc, run._links.dogRuns.href)}?size=500`)).body
				._embedded!.dogRuns;
			const finished = dogsNow.filter((d) => d.time !== null || d.disqualified || d.absence).length;
			expect(finished).toBeGreaterThanOrEqual(doneBefore + 8);
			expect(r.progress).toBe(Math.floor((finished * 100) / total));
			// Each dog run embeds its run as the run answers it.
			for (const d of dogsNow) expect(d.competitionRun.progress).toBe(r.progress);
		}
	});

	it('carries a change whose notice would pass 8,000 bytes once escaped (read from change_log)', async () => {
		const [a, b] = await twoInstances();
		const { cid } = await openDogs(a);
		const stream = await openSse(`${api(b)}/competitions/${cid}/changes`);
		expect((await stream.nextEvent())!.event).toBe('ready');
		// 6,001 bytes of template (under the 7,000 inlined), whose 2,400 quotes the notice's JSON
		// escapes: 8,401 bytes and more, over NOTIFY's limit of 8,000.
		const template = JSON.stringify(Array.from({ length: 600 }, () => ({ a: 'b' })));
		const { feed } = a.store!;
		await a.store!.write(async (sql) => {
			const seq = await feed.claim(sql);
			await feed.record(sql, seq, { competitionId: cid, event: 'dogRun', template });
		});
		const m = (await stream.nextEvent())!;
		stream.close();
		expect(m.event).toBe('dogRun');
		expect(m.data).toBe(template);
	});

	it('push every accepted PUT to the streams of every instance, with one id space', async () => {
		const [a, b, url] = await twoInstances();
		const { dogs, cid } = await openDogs(a);
		const streams = [
			await openSse(`${api(a)}/competitions/${cid}/changes`),
			await openSse(`${api(b)}/competitions/${cid}/changes`)
		];
		const ready = await Promise.all(streams.map((s) => s.nextEvent()));
		expect(ready.map((m) => m!.event)).toEqual(['ready', 'ready']);
		expect(ready[0]!.id).toBe(ready[1]!.id);
		const ids: string[][] = [[], []];
		for (let i = 0; i < 6; i++) {
			const via = i % 2 ? b : a;
			expect((await put(on(via, dogs[i]!._links.self.href), { faults: 10 + i })).status).toBe(200);
		}
		for (const [k, s] of streams.entries()) {
			const svc = k === 0 ? a : b;
			for (let i = 0; i < 6; i++) {
				const m = (await s.nextEvent())!;
				expect(m.event).toBe('dogRun');
				const data = JSON.parse(m.data) as DogRunJson;
				expect([data.id, data.faults]).toEqual([dogs[i]!.id, 10 + i]);
				// Links on the address the stream was opened through.
				expect(data._links.self.href.startsWith(svc.url)).toBe(true);
				ids[k]!.push(m.id!);
			}
		}
		expect(ids[1]).toEqual(ids[0]);
		streams[1]!.close();
		// A stream that breaks resumes on the other instance after its last id.
		expect((await put(dogs[6]!._links.self.href, { faults: 33 })).status).toBe(200);
		const resumed = await openSse(`${api(a)}/competitions/${cid}/changes`, {
			'Last-Event-ID': ids[1]![3]!
		});
		const replay = [];
		for (let i = 0; i < 4; i++) replay.push((await resumed.nextEvent())!);
		resumed.close();
		streams[0]!.close();
		// The three changes after that id, in order. 'ready' (caught up) comes after the two the
		// feed held when the stream opened; the newest may still be on its way to this instance's
		// feed (it learns of every commit by NOTIFY, its own too) and then comes just after it.
		const changes = replay.filter((m) => m.event === 'dogRun');
		expect(changes.map((m) => JSON.parse(m.data).faults)).toEqual([14, 15, 33]);
		expect(changes.slice(0, 2).map((m) => m.id)).toEqual(ids[1]!.slice(4));
		expect(replay.filter((m) => m.event === 'ready')).toHaveLength(1);
		expect(replay.findIndex((m) => m.event === 'ready')).toBeGreaterThanOrEqual(2);
		// A restarted instance continues the same feed.
		await b.close();
		const again = await instance(url);
		const st = await openSse(`${api(again)}/competitions/${cid}/changes`, {
			'Last-Event-ID': ids[0]![5]!
		});
		const m = (await st.nextEvent())!;
		st.close();
		expect([m.event, JSON.parse(m.data).faults]).toEqual(['dogRun', 33]);
	});
});

describe('a stream that moves to an instance which has not had the change yet', () => {
	/** Raises the database's change counter by `n` without telling any instance; the new seq. */
	async function unannounced(svc: Service, n: number): Promise<number> {
		const row = await svc.store!.sql.get<{ seq: number }>(
			'UPDATE change_counter SET seq = seq + @n WHERE id = 1 RETURNING seq',
			{ n }
		);
		return row!.seq;
	}

	/** The feed's epoch, from a stream's `ready`. */
	async function epochOf(svc: Service, cid: number): Promise<string> {
		const first = await openSse(`${api(svc)}/competitions/${cid}/changes`);
		const ready = (await first.nextEvent())!;
		first.close();
		return ready.id!.split('-')[0]!;
	}

	/**
	 * Resolves once `n` change streams of `svc` have come as far as their wait for the feed (the
	 * read of the database's latest seq; a service that holds a snapshot meanwhile: its read),
	 * counting from now; no other request may run meanwhile.
	 */
	function streamsWaiting(svc: Service, n: number): Promise<void> {
		const store = svc.store!;
		const feed = store.feed;
		const read = store.read.bind(store);
		const { committedSeq } = feed;
		let seen = 0;
		let reached!: () => void;
		const all = new Promise<void>((r) => (reached = r));
		const count = (): void => {
			if (++seen >= n) reached();
		};
		(store as { read: Store['read'] }).read = <T>(
			fn: (sql: Sql, version: number) => Promise<T>
		): Promise<T> => {
			count();
			return read(fn);
		};
		(feed as { committedSeq: typeof committedSeq }).committedSeq = () => {
			count();
			return committedSeq.call(feed);
		};
		return all.finally(() => {
			(store as { read: Store['read'] }).read = read;
			(feed as { committedSeq: typeof committedSeq }).committedSeq = committedSeq;
		});
	}

	it('waits for the change its Last-Event-ID names instead of resetting', async () => {
		const [a, b] = await twoInstances();
		const { dogs, cid } = await openDogs(a);
		const epoch = await epochOf(b, cid);
		// A change committed (on another instance, say) whose notice has not reached B yet.
		const row = await a.store!.sql.get<{ seq: number }>(
			`WITH c AS (UPDATE change_counter SET seq = seq + 1 WHERE id = 1 RETURNING seq)
			 INSERT INTO change_log (seq, competition_id, event, template)
			 SELECT seq, @cid, 'dogRun', @template FROM c RETURNING seq`,
			{ cid, template: JSON.stringify(dogs[0]) }
		);
		const next = `${epoch}-${row!.seq}`;
		const waiting = streamsWaiting(b, 1);
		const opening = openSse(`${api(b)}/competitions/${cid}/changes`, { 'Last-Event-ID': next });
		await Promise.race([waiting, opening]);
		await a.store!.sql.get(
			"SELECT pg_notify('ringside_change', json_build_object('seq', CAST(@seq AS INTEGER))::text)",
			{
				seq: row!.seq
			}
		);
		const resumed = await opening;
		const m = (await resumed.nextEvent())!;
		resumed.close();
		expect([m.event, m.id]).toEqual(['ready', next]);
	});

	it('answers an id beyond every change of the database at once (reset unknown)', async () => {
		const svc = await instance(await newDatabase());
		const { cid } = await openDogs(svc);
		const epoch = await epochOf(svc, cid);
		const seq = await unannounced(svc, 1);
		const order: string[] = [];
		// Waits up to a second: its change is in the database, not in this instance's feed.
		const waiting = streamsWaiting(svc, 1);
		const slow = openSse(`${api(svc)}/competitions/${cid}/changes`, {
			'Last-Event-ID': `${epoch}-${seq}`
		}).then((st) => (order.push('waiting'), st));
		await Promise.race([waiting, slow]);
		const ahead = await openSse(`${api(svc)}/competitions/${cid}/changes`, {
			'Last-Event-ID': `${epoch}-${seq + 1000}`
		});
		order.push('ahead');
		const r = (await ahead.nextEvent())!;
		ahead.close();
		expect([r.event, JSON.parse(r.data)]).toEqual(['reset', { reason: 'unknown' }]);
		const w = await slow;
		const late = (await w.nextEvent())!;
		w.close();
		expect([late.event, JSON.parse(late.data)]).toEqual(['reset', { reason: 'unknown' }]);
		expect(order).toEqual(['ahead', 'waiting']);
	});

	it('holds no pooled connection while streams wait: a GET is answered meanwhile', async () => {
		const svc = await instance(await newDatabase(), { poolSize: 2 });
		const { cid } = await openDogs(svc);
		const epoch = await epochOf(svc, cid);
		const seq = await unannounced(svc, 1);
		const order: string[] = [];
		const waiting = streamsWaiting(svc, 3);
		const streams = [1, 2, 3].map((i) =>
			openSse(`${api(svc)}/competitions/${cid}/changes`, {
				'Last-Event-ID': `${epoch}-${seq}`
			}).then((st) => (order.push(`stream ${i}`), st))
		);
		await Promise.race([waiting, ...streams]);
		const get = await call(`${api(svc)}/competitions/${cid}`);
		order.push('GET');
		expect(get.status).toBe(200);
		for (const st of await Promise.all(streams)) st.close();
		expect(order[0]).toBe('GET');
	});

	it('counts streams waiting for the feed against the stream limit (503)', async () => {
		const svc = await instance(await newDatabase(), { push: { maxStreams: 2 } });
		const { cid } = await openDogs(svc);
		const epoch = await epochOf(svc, cid);
		const seq = await unannounced(svc, 1);
		const waiting = streamsWaiting(svc, 2);
		const streams = [1, 2].map(() =>
			openSse(`${api(svc)}/competitions/${cid}/changes`, { 'Last-Event-ID': `${epoch}-${seq}` })
		);
		await Promise.race([waiting, ...streams]);
		const third = await call<ErrorJson>(`${api(svc)}/competitions/${cid}/changes`);
		expect(third.status).toBe(503);
		expect(third.res.headers.get('retry-after')).toBe('30');
		for (const st of await Promise.all(streams)) st.close();
	});
});

describe('devices on several instances', () => {
	const bearer = (credential: string): Record<string, string> => ({
		Authorization: `Bearer ${credential}`
	});

	it('a device revoked on one instance is refused by the other, and its streams there close', async () => {
		const [a, b] = await twoInstances({ auth: 'required' });
		const join = async (svc: Service, role: 'secretary' | 'viewer') => {
			const link = svc.createJoinLink({ role, uses: 1 });
			const res = await call<{ id: number; credential: string }>(`${api(svc)}/devices/join`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ token: link.token })
			});
			expect(res.status).toBe(201);
			return res.body;
		};
		const secretary = await join(a, 'secretary');
		// A link made on A is used on B.
		const viewerLink = a.createJoinLink({ role: 'viewer', uses: 1 });
		const viewer = await call<{ id: number; credential: string }>(`${api(b)}/devices/join`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: viewerLink.token })
		});
		expect(viewer.status).toBe(201);
		const list = await call<CompetitionList>(`${api(b)}/competitions?state=IN_PROGRESS`, {
			headers: bearer(viewer.body.credential)
		});
		const cid = list.body._embedded!.competitions[0]!.id;
		const stream = await openSse(
			`${api(b)}/competitions/${cid}/changes`,
			bearer(viewer.body.credential)
		);
		expect((await stream.nextEvent())!.event).toBe('ready');
		const del = await call(`${api(a)}/devices/${viewer.body.id}`, {
			method: 'DELETE',
			headers: bearer(secretary.credential)
		});
		expect(del.status).toBe(204);
		expect(await stream.nextEvent(3000)).toBeNull();
		const refused = await call<ErrorJson & { code: string }>(`${api(b)}/competitions`, {
			headers: bearer(viewer.body.credential)
		});
		expect([refused.status, refused.body.code]).toEqual([401, 'credential-revoked']);
		// A join link's last use cannot be spent twice, on two instances at once.
		const once = a.createJoinLink({ role: 'viewer', uses: 1 });
		await new Promise((r) => setTimeout(r, 50));
		const joins = await Promise.all(
			[a, b, a, b].map((svc) =>
				call(`${api(svc)}/devices/join`, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({ token: once.token })
				})
			)
		);
		expect(joins.map((j) => j.status).sort()).toEqual([201, 401, 401, 401]);
	});
});

describe('public views on several instances', () => {
	const bearer = (credential: string): Record<string, string> => ({
		Authorization: `Bearer ${credential}`
	});
	const join = async (
		svc: Service,
		role: 'secretary' | 'viewer'
	): Promise<Record<string, string>> => {
		const link = svc.createJoinLink({ role, uses: 1 });
		const res = await call<{ credential: string }>(`${api(svc)}/devices/join`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: link.token })
		});
		return bearer(res.body.credential);
	};

	it('a setting changed on one instance is applied by the other at once: its answers and its streams', async () => {
		const [a, b] = await twoInstances({ auth: 'required' });
		const secretary = await join(a, 'secretary');
		const viewer = await join(b, 'viewer');
		const list = await call<CompetitionList>(`${api(a)}/competitions?state=IN_PROGRESS`, {
			headers: secretary
		});
		const c = list.body._embedded!.competitions[0]!;
		const publication = `${api(a)}/competitions/${c.id}/publication`;
		const next = await call<DogRunList>(c.rings[0]!._links.nextDogRuns.href, {
			headers: secretary
		});
		const dog = next.body._embedded!.dogRuns[0]!;
		const stream = await openSse(`${api(b)}/competitions/${c.id}/changes`, viewer);
		try {
			expect((await stream.nextEvent())!.event).toBe('ready');
			const tag = (await call(publication, { headers: secretary })).res.headers.get('etag')!;
			const changed = await put(
				publication,
				{ handlerNames: 'hidden', results: 'released' },
				{
					...secretary,
					'If-Match': tag
				}
			);
			expect(changed.status).toBe(200);
			const heard = await stream.nextEvent();
			expect(heard?.event).toBe('publication');
			// B answers the viewer without the name, at once.
			const read = await call<DogRunJson>(on(b, dog._links.self.href), { headers: viewer });
			expect(read.text).not.toContain(dog.competitor.lastname);
			// A result recorded on A reaches B's public stream withheld and nameless.
			const recorded = await put(dog._links.self.href, { time: 41.23 }, secretary);
			expect(recorded.status).toBe(200);
			const event = await stream.nextEvent();
			expect(event?.event).toBe('dogRun');
			expect(event!.data).not.toContain(dog.competitor.lastname);
			expect(JSON.parse(event!.data)).toMatchObject({ time: null, withheld: { done: true } });
		} finally {
			stream.close();
		}
	});

	it('an instance started after the change applies it to the first event it sends', async () => {
		const [a, , url] = await twoInstances({ auth: 'required' });
		const secretary = await join(a, 'secretary');
		const list = await call<CompetitionList>(`${api(a)}/competitions?state=IN_PROGRESS`, {
			headers: secretary
		});
		const c = list.body._embedded!.competitions[0]!;
		expect(
			(
				await put(
					`${api(a)}/competitions/${c.id}/publication`,
					{ handlerNames: 'hidden' },
					secretary
				)
			).status
		).toBe(200);
		const late = await instance(url, { auth: 'required' });
		const viewer = await join(late, 'viewer');
		const stream = await openSse(`${api(late)}/competitions/${c.id}/changes`, viewer);
		try {
			expect((await stream.nextEvent())!.event).toBe('ready');
			const next = await call<DogRunList>(c.rings[0]!._links.nextDogRuns.href, {
				headers: secretary
			});
			const dog = next.body._embedded!.dogRuns[0]!;
			expect((await put(dog._links.self.href, { faults: 5 }, secretary)).status).toBe(200);
			const event = await stream.nextEvent();
			expect(event?.event).toBe('dogRun');
			expect(event!.data).not.toContain(dog.competitor.lastname);
		} finally {
			stream.close();
		}
	});
});

describe('check-in on several instances', () => {
	it('marks sent at once to both instances keep the latest, each logged with its change', async () => {
		const [a, b] = await twoInstances();
		const { dogs } = await openDogs(a);
		const dog = dogs[0]!;
		const href = `${api(a)}/dogRuns/${dog.id}/checkIn`;
		// 40 marks, times shuffled, half to each instance at once.
		const times = Array.from(
			{ length: 40 },
			(_, i) => `2026-05-12T09:00:${String(i).padStart(2, '0')}.000Z`
		);
		const shuffled = [...times].sort(() => Math.random() - 0.5);
		const answers = await Promise.all(
			shuffled.map((markedAt, i) =>
				put(on(i % 2 ? b : a, href), { status: i % 3 ? 'present' : 'not-presented', markedAt })
			)
		);
		expect(answers.every((r) => r.status === 200)).toBe(true);
		const latest = times.at(-1)!;
		const wanted = shuffled.indexOf(latest) % 3 ? 'present' : 'not-presented';
		for (const svc of [a, b]) {
			const read = await call<{ status: string; markedAt: string }>(on(svc, href));
			expect(read.body).toMatchObject({ status: wanted, markedAt: latest });
		}
		const log = (await a.readPutLog()).filter((r) => r.resourceKind === 'checkIn');
		expect(log).toHaveLength(40);
	});
});

describe('PostgreSQL counterparts of the SQLite-only tests', () => {
	it('writes the PUT log row in the transaction of its change: no log row, no change', async () => {
		const url = await newDatabase();
		const svc = await instance(url);
		const { dogs } = await openDogs(svc);
		const client = new pg.Client({ connectionString: url });
		await client.connect();
		try {
			await client.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
				$$ BEGIN RAISE EXCEPTION 'log refused'; END $$`);
			await client.query(
				'CREATE TRIGGER no_log BEFORE INSERT ON put_log FOR EACH ROW EXECUTE FUNCTION refuse()'
			);
		} finally {
			await client.end();
		}
		const a = await put<ErrorJson>(dogs[0]!._links.self.href, { faults: dogs[0]!.faults + 3 });
		expect(a.status).toBe(500);
		expect(a.text).not.toMatch(/log refused|INSERT|put_log/);
		expect((await call<DogRunJson>(dogs[0]!._links.self.href)).body.faults).toBe(dogs[0]!.faults);
	});

	it('stores only hashes of credentials and join tokens', async () => {
		const url = await newDatabase();
		const svc = await instance(url, { auth: 'required' });
		const link = svc.createJoinLink({ role: 'secretary', uses: 1 });
		const d = await call<{ id: number; credential: string }>(`${api(svc)}/devices/join`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: link.token })
		});
		expect(d.status).toBe(201);
		const client = new pg.Client({ connectionString: url });
		await client.connect();
		try {
			const dump = await client.query<{ t: string }>(
				"SELECT concat_ws(' ', (SELECT string_agg(d::text, ' ') FROM device d), (SELECT string_agg(j::text, ' ') FROM join_token j)) AS t"
			);
			const text = dump.rows[0]!.t;
			expect(text).toMatch(/[0-9a-f]{64}/);
			expect(text.includes(d.body.credential)).toBe(false);
			expect(text.includes(link.token)).toBe(false);
		} finally {
			await client.end();
		}
	});

	it('returns no pooled connection inside a failed transaction: the next request works', async () => {
		const url = await newDatabase();
		// One connection: the request after a failed one gets the same.
		const svc = await instance(url, { poolSize: 1, logError: () => {} });
		const { dogs } = await openDogs(svc);
		const admin = new pg.Client({ connectionString: url });
		await admin.connect();
		try {
			// The snapshot's read of the data version fails (as a statement timeout or a cancel
			// would) after its BEGIN.
			await admin.query('ALTER TABLE change_counter RENAME TO change_counter_away');
			expect((await call(dogs[0]!._links.self.href)).status).toBe(500);
			await admin.query('ALTER TABLE change_counter_away RENAME TO change_counter');
		} finally {
			await admin.end();
		}
		expect((await call(dogs[0]!._links.self.href)).status).toBe(200);
		expect((await put(dogs[0]!._links.self.href, { faults: 4 })).status).toBe(200);
		expect((await call<DogRunJson>(dogs[0]!._links.self.href)).body.faults).toBe(4);
	});

	it('answers a generic 500 once its database is closed', async () => {
		const errors: string[] = [];
		const svc = await instance(await newDatabase(), { logError: (l) => errors.push(l) });
		const { dogs } = await openDogs(svc);
		await svc.store!.close();
		for (const a of [
			await call<ErrorJson>(dogs[0]!._links.self.href),
			await put<ErrorJson>(dogs[0]!._links.self.href, { faults: 3 })
		]) {
			expect(a.status).toBe(500);
			expect(a.body.message).toBe('Internal server error; see the service log');
			expect(errors.join('\n')).toContain(a.body.traceId);
		}
	});
});

describe('an instance whose LISTEN connection breaks', () => {
	it('listens again and catches up: a change made meanwhile on another instance reaches its streams', async () => {
		const errors: string[] = [];
		const [a, b, url] = await twoInstances({ logError: (line) => errors.push(line) });
		const { dogs, cid } = await openDogs(a);
		const stream = await openSse(`${api(a)}/competitions/${cid}/changes`);
		expect((await stream.nextEvent())!.event).toBe('ready');
		// Both instances' listening connections are cut (a database restart does the same).
		const admin = new pg.Client({ connectionString: url });
		await admin.connect();
		try {
			const killed = await admin.query(
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ringside-listen' AND datname = current_database()"
			);
			expect(killed.rowCount).toBe(2);
		} finally {
			await admin.end();
		}
		// Written on B while A is not listening (or just listens again).
		expect((await put(on(b, dogs[0]!._links.self.href), { faults: 42 })).status).toBe(200);
		const m = await stream.nextEvent(10_000);
		stream.close();
		expect(m?.event).toBe('dogRun');
		expect(JSON.parse(m!.data).faults).toBe(42);
		expect(errors.some((l) => l.includes('postgres listener lost'))).toBe(true);
	});

	it('reconnects once when its catch-up read fails, and leaves no LISTEN connection after close', async () => {
		const errors: string[] = [];
		const [a, b, url] = await twoInstances({ logError: (line) => errors.push(line) });
		const { dogs, cid } = await openDogs(a);
		const admin = new pg.Client({ connectionString: url });
		await admin.connect();
		try {
			const listening = async (): Promise<number> =>
				Number(
					(
						await admin.query(
							"SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'ringside-listen' AND datname = current_database()"
						)
					).rows[0].n
				);
			expect(await listening()).toBe(2);
			// Both listening connections are cut. A's read of the revoked devices, once it listens
			// again, fails the first time (the pool has no connection for it, say), then works.
			const sql = a.store!.sql;
			const all = sql.all.bind(sql);
			let reads = 0;
			let read!: () => void;
			const readOnce = new Promise<void>((r) => (read = r));
			sql.all = async <T>(text: string, params?: Parameters<Sql['all']>[1]): Promise<T[]> => {
				if (text.includes('revoked_at IS NOT NULL') && ++reads === 1) {
					throw new Error('injected: no connection for the catch-up read');
				}
				const rows = await all<T>(text, params);
				if (text.includes('revoked_at IS NOT NULL')) read();
				return rows;
			};
			await admin.query(
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ringside-listen' AND datname = current_database()"
			);
			await readOnce;
			// A listens again: a change made on B reaches its stream.
			const stream = await openSse(`${api(a)}/competitions/${cid}/changes`);
			expect((await stream.nextEvent())!.event).toBe('ready');
			expect((await put(on(b, dogs[0]!._links.self.href), { faults: 42 })).status).toBe(200);
			expect((await stream.nextEvent(10_000))?.event).toBe('dogRun');
			stream.close();
			// A second reconnection loop would have listened again within its backoff (≤ 400 ms).
			await new Promise((r) => setTimeout(r, 600));
			expect(reads).toBe(2);
			expect(errors.filter((l) => l.includes('postgres listener lost'))).toHaveLength(2);
			expect(await listening()).toBe(2);
			await a.close();
			await b.close();
			expect(await listening()).toBe(0);
		} finally {
			await admin.end();
		}
	});
});
