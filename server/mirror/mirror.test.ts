// Mirror mode against a second embedded service playing the federation's upstream: the copy is
// read by links, a phone's change reaches the upstream, the office's change comes down, both
// sides changing one field is a conflict the secretary decides, and nothing is lost across a
// restart of the laptop or an outage of its link (faults on the upstream only).
import { describe, expect, it } from 'vitest';
import { call, openSse, put, tempDbFile, useServices, type DogRunJson } from '../test-support.ts';
import type { Params, Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';
import { decided } from '../../src/lib/domain/outbox-entry.ts';
import { readEntry, setKnown, writeEntry } from './outbox.ts';
import { recordSent } from './publish.ts';
import { applyUpstream } from './pull.ts';
import { dogRunsOf, startPairWith, statusOf } from './mirror-test-support.ts';

const start = useServices();
const startPair = (extra: { etag?: boolean; dbFile?: string } = {}) => startPairWith(start, extra);

const fieldsOf = (d: DogRunJson) => ({
	time: d.time,
	faults: d.faults,
	refusals: d.refusals,
	disqualified: d.disqualified,
	absence: d.absence
});

describe('mirror mode', () => {
	it('copies the picked competition by links, with the upstream’s ids and start order', async () => {
		const { upstream, laptop } = await startPair();
		const theirs = await dogRunsOf(upstream);
		const ours = await dogRunsOf(laptop);
		expect(ours.map((d) => d.id)).toEqual(theirs.map((d) => d.id));
		expect(ours.map(fieldsOf)).toEqual(theirs.map(fieldsOf));
		expect(ours.map((d) => d.dog.name)).toEqual(theirs.map((d) => d.dog.name));
		const list = await call<{ _embedded: { competitions: { id: number }[] } }>(laptop.entry);
		expect(list.body._embedded.competitions.map((c) => c.id)).toEqual([1]);
	});

	it('publishes a phone’s change upstream with If-Match, and shows nothing waiting after', async () => {
		const { upstream, laptop } = await startPair();
		const [d] = await dogRunsOf(laptop);
		const local = `${laptop.svc.url}api/v1/dogRuns/${d!.id}`;
		expect((await put(local, { time: 41.37, faults: 5 })).status).toBe(200);
		const remote = `${upstream.svc.url}api/v1/dogRuns/${d!.id}`;
		await expect
			.poll(async () => fieldsOf((await call<DogRunJson>(remote)).body), { timeout: 5000 })
			.toMatchObject({ time: 41.37, faults: 5 });
		const log = await upstream.svc.readPutLog({});
		const published = log.filter((r) => r.resourceId === d!.id && r.status === 200);
		expect(published).toHaveLength(1);
		expect(published[0]!.ifMatch).toBeTruthy();
		await expect.poll(async () => (await statusOf(laptop)).waiting, { timeout: 3000 }).toBe(0);
	});

	it('takes the office’s correction down to the phones', async () => {
		const { upstream, laptop } = await startPair();
		const [, d] = await dogRunsOf(upstream);
		// A phone following the competition on the laptop's push channel.
		const competition = await call<{ _links: Record<string, { href: string }> }>(
			`${laptop.entry}/1`
		);
		const stream = await openSse(competition.body._links.changes!.href);
		expect((await put(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`, { refusals: 2 })).status).toBe(
			200
		);
		let event = await stream.nextEvent(5000);
		// The stream says it is ready first.
		while (event?.event === 'ready') event = await stream.nextEvent(5000);
		stream.close();
		expect(event?.event).toBe('dogRun');
		expect(JSON.parse(event!.data)).toMatchObject({ id: d!.id, refusals: 2 });
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body.refusals,
				{
					timeout: 5000
				}
			)
			.toBe(2);
		// Coming down is not a change of ours: nothing goes back up.
		const status = await statusOf(laptop);
		expect(status.waiting + status.conflicts).toBe(0);
	});

	it('takes down the office’s change of one field after publishing another of the same dog run', async () => {
		// The publisher reads the dog run before its PUT and so sees the office's value first: it
		// must still come down to the phones (it was once only noted, and the next list read then
		// took it as known and skipped it).
		const upstream = await start({ etag: true });
		const laptop = await start({
			mirror: upstream.svc.url,
			mirrorCompetitions: [1],
			mirrorPullMs: 1500
		});
		await expect
			.poll(async () => (await statusOf(laptop)).lastPulledAt, { timeout: 5000 })
			.not.toBeNull();
		const [, , d] = await dogRunsOf(laptop);
		const office = await put(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 17 });
		expect(office.status).toBe(200);
		expect((await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { time: 42.5 })).status).toBe(
			200
		);
		await expect
			.poll(
				async () =>
					fieldsOf((await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body),
				{ timeout: 6000 }
			)
			.toMatchObject({ time: 42.5, faults: 17 });
		expect(
			fieldsOf((await call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`)).body)
		).toMatchObject({ time: 42.5, faults: 17 });
	});

	it('parks a field both sides changed for the secretary, and Keep theirs takes the upstream’s value', async () => {
		const { upstream, laptop, link } = await startPair();
		link.cut = true;
		const [d] = await dogRunsOf(laptop);
		await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { time: 50.5 });
		// The office, meanwhile, without the laptop's change.
		const office = await put(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`, { time: 49.99 });
		expect(office.status).toBe(200);
		link.cut = false;
		await expect.poll(async () => (await statusOf(laptop)).conflicts, { timeout: 8000 }).toBe(1);
		const status = await statusOf(laptop);
		const entry = status._embedded!.entries[0]!;
		expect(entry.conflicts).toEqual([
			expect.objectContaining({ field: 'time', mine: 50.5, theirs: 49.99 })
		]);
		expect(entry.dogName).toBe(d!.dog.name);
		// Nothing overwritten either way while the secretary has not decided.
		expect((await call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`)).body.time).toBe(
			49.99
		);
		expect((await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body.time).toBe(
			50.5
		);
		const decided = await call(entry._links.resolve!.href, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ choice: 'theirs' })
		});
		expect(decided.status).toBe(200);
		expect((await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body.time).toBe(
			49.99
		);
		expect((await statusOf(laptop)).conflicts).toBe(0);
	});

	it('Keep theirs ends with the upstream’s newest value, also when the office wrote again after the conflict', async () => {
		const { upstream, laptop, link } = await startPair();
		link.cut = true;
		const [d] = await dogRunsOf(laptop);
		const remote = `${upstream.svc.url}api/v1/dogRuns/${d!.id}`;
		await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 10 });
		// Before the link is back: else the laptop's change may be published first (no conflict).
		await put(remote, { faults: 15 });
		link.cut = false;
		await expect.poll(async () => (await statusOf(laptop)).conflicts, { timeout: 8000 }).toBe(1);
		// The office again, while the secretary looks: the lists are read with it a few times.
		await put(remote, { faults: 16 });
		await new Promise((r) => setTimeout(r, 500));
		const entry = (await statusOf(laptop))._embedded!.entries[0]!;
		expect(entry.conflicts).toEqual([expect.objectContaining({ field: 'faults', theirs: 15 })]);
		await call(entry._links.resolve!.href, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ choice: 'theirs' })
		});
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body.faults,
				{ timeout: 5000 }
			)
			.toBe(16);
		expect((await call<DogRunJson>(remote)).body.faults).toBe(16);
	});

	it('Keep ours publishes the laptop’s value over the upstream’s', async () => {
		const { upstream, laptop, link } = await startPair();
		link.cut = true;
		const [d] = await dogRunsOf(laptop);
		await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 10 });
		// The office's correction reaches the upstream while the laptop's waits.
		await put(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 15 });
		link.cut = false;
		await expect.poll(async () => (await statusOf(laptop)).conflicts, { timeout: 8000 }).toBe(1);
		const entry = (await statusOf(laptop))._embedded!.entries[0]!;
		await call(entry._links.resolve!.href, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ choice: 'ours' })
		});
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`)).body.faults,
				{
					timeout: 5000
				}
			)
			.toBe(10);
	});

	it('keeps what waits across a restart of the laptop, and publishes it once the link is back', async () => {
		const dbFile = tempDbFile();
		const upstream = await start({ etag: true });
		upstream.svc.setFaults({ unreachable: true });
		const first = await start({
			mirror: upstream.svc.url,
			mirrorCompetitions: [1],
			mirrorPullMs: 100,
			dbFile
		}).catch((e: unknown) => e);
		// The first start needs the upstream: nothing to serve without the copy.
		expect(first).toBeInstanceOf(Error);
		upstream.svc.setFaults(null);
		const laptop = await start({
			mirror: upstream.svc.url,
			mirrorCompetitions: [1],
			mirrorPullMs: 100,
			dbFile
		});
		const [d] = await dogRunsOf(laptop);
		upstream.svc.setFaults({ unreachable: true });
		await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { absence: true });
		await expect
			.poll(async () => (await statusOf(laptop)).lostSince, { timeout: 3000 })
			.not.toBeNull();
		await laptop.svc.close();
		const again = await start({
			mirror: upstream.svc.url,
			mirrorCompetitions: [1],
			mirrorPullMs: 100,
			dbFile
		});
		expect((await statusOf(again)).waiting).toBe(1);
		upstream.svc.setFaults(null);
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`)).body.absence,
				{
					timeout: 8000
				}
			)
			.toBe(true);
	});

	it('refuses to start on a database that is not its mirror, saying why', async () => {
		const upstream = await start({ etag: true });
		const seeded = await start({});
		await seeded.svc.close();
		const onSeeded = await start({ mirror: upstream.svc.url, dbFile: seeded.dbFile }).catch(
			(e: unknown) => e as Error
		);
		expect(String(onSeeded)).toMatch(/already holds competitions that are not a mirror/);
		const dbFile = tempDbFile();
		const laptop = await start({ mirror: upstream.svc.url, mirrorCompetitions: [1], dbFile });
		await laptop.svc.close();
		const other = await start({ etag: true });
		const elsewhere = await start({ mirror: other.svc.url, dbFile }).catch(
			(e: unknown) => e as Error
		);
		expect(String(elsewhere)).toMatch(
			/mirrors http:\/\/127\.0\.0\.1:\d+\/api\/v1\/competitions, not/
		);
		const down = await start({ mirror: 'http://127.0.0.1:9', dbFile: tempDbFile() }).catch(
			(e: unknown) => e as Error
		);
		expect(String(down)).toMatch(
			/Could not copy the competitions from http:\/\/127\.0\.0\.1:9: no connection/
		);
	});

	it('notices within seconds that a link which dropped packets is back, and publishes at once', async () => {
		const { upstream, laptop, link } = await startPair();
		const [d, e] = await dogRunsOf(laptop);
		link.blackHole = true;
		await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 5 });
		await put(`${laptop.svc.url}api/v1/dogRuns/${e!.id}`, { refusals: 1 });
		// The publisher's read hangs until its 15 s time-out; the laptop knows the link is gone
		// only when the puller's read or the prober's times out.
		await expect
			.poll(async () => (await statusOf(laptop)).lostSince, { timeout: 20_000 })
			.not.toBeNull();
		expect((await statusOf(laptop)).waiting).toBe(2);
		link.blackHole = false;
		const back = Date.now();
		await expect
			.poll(
				async () => {
					const [a, b] = await Promise.all([
						call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`),
						call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${e!.id}`)
					]);
					return [a.body.faults, b.body.refusals];
				},
				{ timeout: 10_000, interval: 100 }
			)
			.toEqual([5, 1]);
		// The prober asks every 2 s with a 2 s time-out: back within two of its rounds.
		expect(Date.now() - back).toBeLessThan(5_000);
	}, 40_000);
});

/** The laptop's store with `hook` run once right after the first read of a dog run row. */
function withHookAfterDogRunRead(store: Store, hook: () => Promise<void>): Store {
	let armed = true;
	const sql: Sql = {
		all: (q, p) => store.sql.all(q, p),
		run: (q, p) => store.sql.run(q, p),
		async get<T>(q: string, p?: Params): Promise<T | undefined> {
			const row = await store.sql.get<T>(q, p);
			if (armed && /FROM dog_run d/.test(q)) {
				armed = false;
				await hook();
			}
			return row;
		}
	};
	return Object.assign(Object.create(store) as Store, { sql });
}

describe('mirror mode: races', () => {
	it('never applies a list read older than a PUT’s answer, also when the answer lands while the read is applied', async () => {
		const { upstream, laptop, link } = await startPair();
		link.cut = true;
		const store = laptop.svc.store!;
		const [d] = await dogRunsOf(laptop);
		const local = `${laptop.svc.url}api/v1/dogRuns/${d!.id}`;
		// What the puller's list read found upstream: the old value (it started before the PUT).
		const readAt = Date.now() - 1;
		const old = fieldsOf(d!);
		expect((await put(local, { time: 50.5 })).status).toBe(200);
		await expect.poll(async () => (await statusOf(laptop)).waiting).toBe(1);
		// The publisher's PUT is answered while the puller applies its older read: the `sent` step
		// (entry gone, the answer known) commits between the puller's reads.
		const hooked = withHookAfterDogRunRead(store, async () => {
			await put(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`, { time: 50.5 });
			await store.write(async (sql) => {
				await writeEntry(sql, `dogRun:${d!.id}`, null, true);
				await setKnown(sql, 'dogRun', d!.id, { ...old, time: 50.5 }, Date.now());
			});
		});
		const taken = await applyUpstream(hooked, 'dogRun', d!.id, old, readAt);
		expect(taken.applied).toBe(false);
		expect((await call<DogRunJson>(local)).body.time).toBe(50.5);
	});

	it('Keep theirs never sets back a newer upstream value that came down meanwhile', async () => {
		const { upstream, laptop, link } = await startPair();
		link.cut = true;
		const store = laptop.svc.store!;
		const [d] = await dogRunsOf(laptop);
		const local = `${laptop.svc.url}api/v1/dogRuns/${d!.id}`;
		const remote = `${upstream.svc.url}api/v1/dogRuns/${d!.id}`;
		await put(local, { faults: 10 });
		await put(remote, { faults: 15 });
		link.cut = false;
		await expect.poll(async () => (await statusOf(laptop)).conflicts, { timeout: 8000 }).toBe(1);
		// The office again; the puller reads it (faults is held while the conflict waits).
		await put(remote, { faults: 16 });
		const entry = (await statusOf(laptop))._embedded!.entries[0]!;
		// A list read with faults 16 is applied right after the secretary's decision committed,
		// before the decision takes "theirs" down itself.
		const mirror = laptop.svc.mirror!;
		const write = store.write.bind(store);
		let armed = true;
		store.write = async <T>(fn: (sql: Sql) => Promise<T>): Promise<T> => {
			const result = await write(fn);
			const text = JSON.stringify(result ?? null);
			if (armed && text.includes('"snapshot"')) {
				armed = false;
				const { body } = await call<DogRunJson>(remote);
				await applyUpstream(store, 'dogRun', d!.id, fieldsOf(body), Date.now());
				expect((await call<DogRunJson>(local)).body.faults).toBe(16);
			}
			return result;
		};
		try {
			expect(await mirror.resolve(entry.key, 'theirs')).toBe(true);
		} finally {
			store.write = write;
		}
		expect(armed).toBe(false);
		expect((await call<DogRunJson>(local)).body.faults).toBe(16);
	});

	it('closes at once while the upstream cannot be reached', async () => {
		const { laptop, link } = await startPair();
		link.cut = true;
		await expect
			.poll(async () => (await statusOf(laptop)).lostSince, { timeout: 3000 })
			.not.toBeNull();
		// The prober's next question gets no answer: it waits for it when the mirror closes.
		link.blackHole = true;
		await expect.poll(() => link.held, { timeout: 3000, interval: 20 }).toBe(1);
		const t0 = Date.now();
		await laptop.svc.mirror!.close();
		expect(Date.now() - t0).toBeLessThan(300);
	});

	it('publishes a change whose write commits late: the scheduler hears of it after the commit', async () => {
		const { upstream, laptop } = await startPair();
		// Every write of the laptop commits 300 ms after its work is done (a busy database server):
		// an outbox read made before the commit, on another connection, does not see the entry.
		const store = laptop.svc.store!;
		const write = store.write.bind(store);
		store.write = <T>(fn: (sql: Sql) => Promise<T>): Promise<T> =>
			write(async (tx) => {
				const result = await fn(tx);
				await new Promise((r) => setTimeout(r, 300));
				return result;
			});
		const [d] = await dogRunsOf(laptop);
		expect((await put(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 15 })).status).toBe(
			200
		);
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`)).body.faults,
				{ timeout: 5_000, interval: 100 }
			)
			.toBe(15);
	});

	it('keeps a phone’s change made while the publisher records a PUT’s answer of the same dog run', async () => {
		const { laptop, link } = await startPair();
		link.cut = true;
		const store = laptop.svc.store!;
		await expect
			.poll(async () => (await statusOf(laptop)).lostSince, { timeout: 3000 })
			.not.toBeNull();
		const [d] = await dogRunsOf(laptop);
		const key = `dogRun:${d!.id}`;
		const local = `${laptop.svc.url}api/v1/dogRuns/${d!.id}`;
		expect((await put(local, { time: 50.5 })).status).toBe(200);
		// The publisher decided it (its PUT is out).
		const revision = await store.write(async (sql) => {
			const entry = (await readEntry(sql, key))!;
			await writeEntry(sql, key, decided(entry, fieldsOf(d!), Date.now())!.entry, true);
			return entry.revision;
		});
		// A phone changes another field; while its transaction has read the entry, the PUT's
		// answer is recorded.
		const write = store.write.bind(store);
		let recording: Promise<void> | null = null;
		store.write = <T>(fn: (sql: Sql) => Promise<T>): Promise<T> =>
			write(async (tx) => {
				const sql: Sql = {
					all: (q, p) => tx.all(q, p),
					run: (q, p) => tx.run(q, p),
					async get<R>(q: string, p?: Params): Promise<R | undefined> {
						const row = await tx.get<R>(q, p);
						if (!recording && /FROM mirror_outbox/.test(q)) {
							const publisher = Object.assign(Object.create(store) as Store, { write });
							recording = recordSent(
								{ store: publisher, now: Date.now },
								{ key, kind: 'dogRun', resourceId: d!.id, revision },
								{ time: 50.5 },
								200,
								{ ...fieldsOf(d!), time: 50.5 },
								Date.now()
							);
							// It commits now, or waits for this transaction.
							await new Promise((r) => setTimeout(r, 300));
						}
						return row;
					}
				};
				return fn(sql);
			});
		try {
			expect((await put(local, { faults: 3 })).status).toBe(200);
		} finally {
			store.write = write;
		}
		expect(recording).not.toBeNull();
		await recording;
		const entry = await readEntry(store.sql, key);
		expect(entry?.changes).toEqual({ faults: 3 });
	});

	it('takes down the fields the laptop accepts when the upstream holds another one it refuses', async () => {
		const upstream = await start({ etag: true });
		let refusedTime: number | null = null;
		const [d] = await dogRunsOf(upstream);
		// The federation's service holds a time with thousandths for one dog run: the laptop's
		// limits (hundredths) refuse it.
		const link = async (input: string, init: RequestInit): Promise<Response> => {
			const res = await fetch(input, init);
			if (refusedTime === null || !/\/dogRuns(\?|$)/.test(new URL(input).pathname + '?')) {
				return res;
			}
			if (res.status !== 200) return res;
			const body = (await res.json()) as { _embedded?: { dogRuns?: DogRunJson[] } };
			const items = body._embedded?.dogRuns ?? [];
			for (const item of items) if (item.id === d!.id) item.time = refusedTime;
			const headers = new Headers(res.headers);
			headers.delete('content-length');
			return new Response(JSON.stringify(body), { status: 200, headers });
		};
		const laptop = await start({
			mirror: upstream.svc.url,
			mirrorCompetitions: [1],
			mirrorPullMs: 100,
			mirrorFetch: link
		});
		refusedTime = 41.375;
		expect((await put(`${upstream.svc.url}api/v1/dogRuns/${d!.id}`, { faults: 7 })).status).toBe(
			200
		);
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body.faults,
				{ timeout: 5000 }
			)
			.toBe(7);
		expect((await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${d!.id}`)).body.time).toBe(
			d!.time
		);
	});
});
