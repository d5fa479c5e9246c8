// The tag cache behind cheap 304s (middleware/etag.ts): a conditional read is answered from the
// cached tag only while no write has happened since it was built, and only for its own request
// key (method, target, the base its links are built on).
import { request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { API_BASE, decimal, stringifyHal } from './http/hal.ts';
import {
	BODY_CACHE_MAX_BYTES,
	BODY_CACHE_TOTAL_BYTES,
	createEtags,
	etagOf as tagOfTemplate,
	LIST_CHUNK_ITEMS,
	listTemplate
} from './middleware/etag.ts';
import type { Exchange } from './middleware/exchange.ts';
import { coalesced } from './store/postgres/coalesced.ts';
import {
	call,
	put,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type RunJson,
	type Started
} from './test-support.ts';

const start = useServices();

const etagOf = (a: { res: Response }): string => {
	const tag = a.res.headers.get('etag');
	if (tag === null) throw new Error('no ETag');
	return tag;
};

interface Scene {
	run: RunJson;
	dog: DogRunJson;
	sibling: DogRunJson;
	listHref: string;
	nextHref: string;
}

/** A run with two unfinished dog runs, its dog-run list and the next dogs of its ring. */
async function scene(s: Started): Promise<Scene> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const competition = list.body._embedded!.competitions[0]!;
	for (const ring of competition.rings) {
		const next = await call<DogRunList>(ring._links.nextDogRuns.href);
		const first = next.body._embedded?.dogRuns[0];
		if (!first) continue;
		const listHref = `${first.competitionRun._links.dogRuns.href}?size=500`;
		const dogs = await call<DogRunList>(listHref);
		const open = dogs.body._embedded!.dogRuns.filter(
			(d) => d.time === null && !d.disqualified && !d.absence
		);
		if (open.length < 2) continue;
		return {
			run: first.competitionRun,
			dog: open[0]!,
			sibling: open[1]!,
			listHref,
			nextHref: ring._links.nextDogRuns.href
		};
	}
	throw new Error('no run with two unfinished dog runs');
}

/** GET `href`, then the same GET with its tag: 304 (the second one answered from the cache). */
async function warm(href: string): Promise<{ tag: string; text: string }> {
	const a = await call(href);
	expect(a.status, href).toBe(200);
	const tag = etagOf(a);
	for (let i = 0; i < 2; i++) {
		const b = await call(href, { headers: { 'If-None-Match': tag } });
		expect(b.status, href).toBe(304);
		expect(etagOf(b)).toBe(tag);
	}
	return { tag, text: a.text };
}

/** A GET sent with an explicit Host header (fetch does not let one set it). */
function getWithHost(
	url: string,
	host: string,
	headers: Record<string, string> = {}
): Promise<{ status: number; etag: string | undefined; text: string }> {
	return new Promise((resolve, reject) => {
		const req = request(url, { headers: { ...headers, Host: host } }, (res) => {
			let text = '';
			res.setEncoding('utf8');
			res.on('data', (c: string) => (text += c));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, text }));
		});
		req.on('error', reject);
		req.end();
	});
}

describe('tag cache (cheap 304s)', () => {
	it('answers the old tag of a dog-run list with 200 and the new body after a PUT', async () => {
		const s = await start({ etag: true });
		const { dog, listHref } = await scene(s);
		const before = await warm(listHref);
		const written = await put<DogRunJson>(dog._links.self.href, { time: 38.63 });
		expect(written.status).toBe(200);
		const after = await call<DogRunList>(listHref, { headers: { 'If-None-Match': before.tag } });
		expect(after.status).toBe(200);
		expect(etagOf(after)).not.toBe(before.tag);
		expect(after.body._embedded!.dogRuns.find((d) => d.id === dog.id)?.time).toBe(38.63);
		// The new tag is cached in turn.
		const again = await call(listHref, { headers: { 'If-None-Match': etagOf(after) } });
		expect(again.status).toBe(304);
		// The same for HEAD, a key of its own.
		const head = await fetch(listHref, {
			method: 'HEAD',
			headers: { 'If-None-Match': before.tag }
		});
		expect(head.status).toBe(200);
	});

	it('answers 200 to the old tags of a run, a sibling and the ring’s next dogs once progress changed', async () => {
		const s = await start({ etag: true });
		const { run, dog, sibling, nextHref } = await scene(s);
		const hrefs = [run._links.self.href, sibling._links.self.href, nextHref];
		const before = [];
		for (const href of hrefs) before.push(await warm(href));
		const written = await put<DogRunJson>(dog._links.self.href, { time: 40.1 });
		expect(written.body.competitionRun.progress).toBeGreaterThan(run.progress);
		for (const [i, href] of hrefs.entries()) {
			const again = await call(href, { headers: { 'If-None-Match': before[i]!.tag } });
			expect(again.status, href).toBe(200);
			expect(etagOf(again), href).not.toBe(before[i]!.tag);
			expect(again.text, href).not.toBe(before[i]!.text);
		}
		const r = await call<RunJson>(run._links.self.href);
		expect(r.body.progress).toBe(written.body.competitionRun.progress);
	});

	it('answers 200 to the old tag of the ring’s next dogs when the dog at the start is done', async () => {
		const s = await start({ etag: true });
		const { nextHref } = await scene(s);
		const before = await warm(nextHref);
		const first = (await call<DogRunList>(nextHref)).body._embedded!.dogRuns[0]!;
		expect((await put(first._links.self.href, { time: 36.5 })).status).toBe(200);
		const after = await call<DogRunList>(nextHref, { headers: { 'If-None-Match': before.tag } });
		expect(after.status).toBe(200);
		expect(after.body._embedded?.dogRuns[0]?.id).not.toBe(first.id);
	});

	it('answers 200 to the old tag of a dog-run list after a PUT of its run', async () => {
		const s = await start({ etag: true });
		const { run, listHref } = await scene(s);
		const before = await warm(listHref);
		const written = await put<RunJson>(run._links.self.href, { trackLength: 177 });
		expect(written.status).toBe(200);
		const after = await call<DogRunList>(listHref, { headers: { 'If-None-Match': before.tag } });
		expect(after.status).toBe(200);
		expect(after.body._embedded!.dogRuns[0]!.competitionRun.trackLength).toBe(177);
	});

	it('keeps the entries of two Hosts apart, and a write reaches both', async () => {
		const s = await start({ etag: true });
		const { dog, listHref } = await scene(s);
		const port = new URL(s.svc.url).port;
		const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
		const tags: string[] = [];
		for (const host of hosts) {
			const a = await getWithHost(listHref, host);
			expect(a.status).toBe(200);
			expect(a.text).toContain(`http://${host}/api/v1/`);
			const b = await getWithHost(listHref, host, { 'If-None-Match': a.etag! });
			expect(b.status).toBe(304);
			tags.push(a.etag!);
		}
		await put(dog._links.self.href, { faults: 1 });
		for (const [i, host] of hosts.entries()) {
			const c = await getWithHost(listHref, host, { 'If-None-Match': tags[i]! });
			expect(c.status).toBe(200);
			expect(c.text).toContain(`http://${host}/api/v1/`);
			expect(c.text).not.toContain(`http://${hosts[1 - i]!}/`);
		}
	});

	it('charges a cached 304 the items of the page, as a built one', async () => {
		const s = await start({ etag: true, readBudget: { perSecond: 1, burst: 12, now: () => 0 } });
		const href = `${s.svc.url}api/v1/competitionRuns/1/dogRuns?size=5`;
		const a = await call<DogRunList>(href); // 12 → 7
		expect(a.status).toBe(200);
		expect(a.body._embedded!.dogRuns).toHaveLength(5);
		const inm = { 'If-None-Match': etagOf(a) };
		expect((await call(href, { headers: inm })).status).toBe(304); // 7 → 2
		expect((await call(href, { headers: inm })).status).toBe(304); // 2 → -3
		expect((await call(href, { headers: inm })).status).toBe(429);
	});
});

/** An exchange of `method url` with `headers`, whose answer is noted in `answered`. */
function fakeExchange(
	method: string,
	url: string,
	headers: Record<string, string>,
	answered: number[],
	dataVersion = 0
): Exchange {
	const res = {
		statusCode: 0,
		setHeader: () => res,
		end: () => answered.push(res.statusCode)
	};
	const req = { method, url, headers, socket: { localAddress: '127.0.0.1', localPort: 80 } };
	const q = url.indexOf('?');
	return {
		req: req as unknown as IncomingMessage,
		res: res as unknown as ServerResponse,
		pathname: q >= 0 ? url.slice(0, q) : url,
		search: q >= 0 ? url.slice(q) : '',
		// Read at this version of the data (the store's, see router.ts).
		dataVersion
	};
}

describe('tag cache keys', () => {
	const value = { id: 1, _links: { self: { href: `${API_BASE}/competitions/1` } } };

	/** Builds the answer for `headers` at data version `version` (filling the cache). */
	function build(
		etags: ReturnType<typeof createEtags>,
		url: string,
		h: Record<string, string>,
		version = 0
	) {
		const answered: number[] = [];
		etags.send(fakeExchange('GET', url, h, answered, version), value);
		expect(answered).toEqual([200]);
	}
	/** Whether a conditional read is answered from the cache while `current` is the data version. */
	const cached = (
		etags: ReturnType<typeof createEtags>,
		method: string,
		url: string,
		h: Record<string, string>,
		current = 0
	): boolean =>
		etags.answerCached(fakeExchange(method, url, { 'if-none-match': '*', ...h }, []), current);

	it('separates Host, X-Forwarded-*, method and query', () => {
		const etags = createEtags(true);
		build(etags, '/api/v1/competitions?page=0', { host: 'a.example' });
		expect(cached(etags, 'GET', '/api/v1/competitions?page=0', { host: 'a.example' })).toBe(true);
		expect(cached(etags, 'GET', '/api/v1/competitions?page=0', { host: 'b.example' })).toBe(false);
		expect(
			cached(etags, 'GET', '/api/v1/competitions?page=0', {
				host: 'a.example',
				'x-forwarded-host': 'b.example'
			})
		).toBe(false);
		expect(
			cached(etags, 'GET', '/api/v1/competitions?page=0', {
				host: 'a.example',
				'x-forwarded-proto': 'https'
			})
		).toBe(false);
		expect(
			cached(etags, 'GET', '/api/v1/competitions?page=0', {
				host: 'a.example',
				'x-forwarded-prefix': '/results'
			})
		).toBe(false);
		expect(cached(etags, 'HEAD', '/api/v1/competitions?page=0', { host: 'a.example' })).toBe(false);
		expect(cached(etags, 'GET', '/api/v1/competitions?page=1', { host: 'a.example' })).toBe(false);
		expect(cached(etags, 'PUT', '/api/v1/competitions?page=0', { host: 'a.example' })).toBe(false);
	});

	it('misses after a change, without If-None-Match, on another tag of a HEAD, and with ETags off', () => {
		const etags = createEtags(true);
		const url = '/api/v1/competitions/1';
		const h = { host: 'a.example' };
		build(etags, url, h);
		expect(etags.answerCached(fakeExchange('GET', url, h, []), 0)).toBe(false);
		const head: number[] = [];
		etags.send(fakeExchange('HEAD', url, h, head), value);
		expect(cached(etags, 'HEAD', url, { ...h, 'if-none-match': '"other"' })).toBe(false);
		expect(cached(etags, 'GET', url, h)).toBe(true);
		// A change raised the data version.
		expect(cached(etags, 'GET', url, h, 1)).toBe(false);
		build(etags, url, h, 1);
		expect(cached(etags, 'GET', url, h, 1)).toBe(true);
		const off = createEtags(false);
		build(off, url, h);
		expect(cached(off, 'GET', url, h)).toBe(false);
	});

	it('answers an older tag with the kept answer of the current data, and a new build after a change', () => {
		const etags = createEtags(true);
		const url = '/api/v1/competitions/1';
		const h = { host: 'a.example' };
		const bodies: string[] = [];
		const exchange = (headers: Record<string, string>, answered: number[]) => {
			const ex = fakeExchange('GET', url, headers, answered);
			(ex.res as unknown as { end: (b: string) => void }).end = (b) => {
				answered.push(ex.res.statusCode);
				bodies.push(b);
			};
			return ex;
		};
		etags.send(exchange(h, []), value);
		const answered: number[] = [];
		expect(etags.answerCached(exchange({ ...h, 'if-none-match': '"old"' }, answered), 0)).toBe(
			true
		);
		expect(answered).toEqual([200]);
		expect(bodies[1]).toBe(bodies[0]);
		expect(JSON.parse(bodies[1]!)).toMatchObject({
			_links: { self: { href: 'http://a.example/api/v1/competitions/1' } }
		});
		// A change raised the data version.
		expect(etags.answerCached(exchange({ ...h, 'if-none-match': '"old"' }, []), 1)).toBe(false);
	});

	it('makes room for a new answer by dropping the least recently used ones', () => {
		const etags = createEtags(true);
		const h = { host: 'a.example' };
		const sized = { ...value, notes: 'x'.repeat(BODY_CACHE_MAX_BYTES - 200) };
		const count = Math.ceil(BODY_CACHE_TOTAL_BYTES / BODY_CACHE_MAX_BYTES) + 2;
		for (let i = 0; i < count; i++) etags.send(fakeExchange('GET', `/p${i}`, h, []), sized);
		const older = { ...h, 'if-none-match': '"old"' };
		// The newest are kept; the oldest gave way (their tags are still known).
		expect(cached(etags, 'GET', `/p${count - 1}`, older)).toBe(true);
		expect(cached(etags, 'GET', '/p0', older)).toBe(false);
		expect(cached(etags, 'GET', '/p0', h)).toBe(true);
	});

	it('keeps no answer larger than its bound, only its tag', () => {
		const etags = createEtags(true);
		const url = '/api/v1/competitions/2';
		const h = { host: 'a.example' };
		const big = { ...value, notes: 'x'.repeat(BODY_CACHE_MAX_BYTES) };
		etags.send(fakeExchange('GET', url, h, []), big);
		expect(cached(etags, 'GET', url, { ...h, 'if-none-match': '"old"' })).toBe(false);
		expect(cached(etags, 'GET', url, h)).toBe(true);
	});

	it('keeps at most its bound of keys, dropping the least recently used', () => {
		const etags = createEtags(true, 2);
		const h = { host: 'a.example' };
		build(etags, '/a', h);
		build(etags, '/b', h);
		expect(cached(etags, 'GET', '/a', h)).toBe(true); // /a is now the most recent
		build(etags, '/c', h); // drops /b
		expect(cached(etags, 'GET', '/b', h)).toBe(false);
		expect(cached(etags, 'GET', '/a', h)).toBe(true);
		expect(cached(etags, 'GET', '/c', h)).toBe(true);
	});
});

describe('a long list', () => {
	const envelope = (n: number) => ({
		_embedded: {
			dogRuns: Array.from({ length: n }, (_, i) => ({
				id: i,
				time: decimal(30_000 + i * 10),
				name: `<b>Dog ${i}</b> “${'ž'.repeat(i % 5)}”`,
				_links: { self: { href: `${API_BASE}/dogRuns/${i}` } }
			}))
		},
		_links: { self: { href: `${API_BASE}/competitionRuns/1/dogRuns?page=0&size=${n}` } },
		page: { size: n, totalElements: n, totalPages: 1, number: 0 }
	});

	it('is serialised in steps to the same text and tag as in one piece', async () => {
		for (const n of [LIST_CHUNK_ITEMS + 1, 450, 2000]) {
			const value = envelope(n);
			const built = await listTemplate(value);
			const whole = stringifyHal(value);
			expect(built!.parts.join('')).toBe(whole);
			expect(built!.tag).toBe(tagOfTemplate(whole));
		}
		expect(await listTemplate(envelope(LIST_CHUNK_ITEMS))).toBeNull();
	});

	it('lets the event loop turn between its chunks', async () => {
		let turns = 0;
		let done = false;
		const tick = (): void => {
			if (done) return;
			turns++;
			setImmediate(tick);
		};
		setImmediate(tick);
		await listTemplate(envelope(2000));
		done = true;
		expect(turns).toBeGreaterThanOrEqual(2000 / LIST_CHUNK_ITEMS - 1);
	});
});

describe('a long list built while a result is recorded', () => {
	it('is never kept under the data version after that result: its old tag then gets 200', async () => {
		// 17 reads of a long list in a few seconds: over the read budget on a quick machine (429).
		const s = await start({ etag: true, seed: 'realistic', readBudget: false });
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
		const ring = list.body._embedded!.competitions[0]!.rings[0]!;
		const href = `${ring._links.nextDogRuns.href}?size=2000`;
		const first = await call<DogRunList>(href);
		const dogs = first.body._embedded!.dogRuns;
		expect(dogs.length).toBeGreaterThan(LIST_CHUNK_ITEMS);
		for (let k = 0; k < 8; k++) {
			// The read starts first; the PUT commits while its answer is built in steps.
			const reading = call<DogRunList>(href);
			await new Promise((r) => setImmediate(r));
			const dog = dogs[dogs.length - 1 - k]!;
			expect((await put(dog._links.self.href, { faults: (dog.faults + 1) % 5 })).status).toBe(200);
			const read = await reading;
			const again = await call<DogRunList>(href, {
				headers: { 'If-None-Match': etagOf(read) }
			});
			const shown = read.body._embedded!.dogRuns.find((d) => d.id === dog.id)?.faults;
			if (shown !== (dog.faults + 1) % 5) expect(again.status).toBe(200);
		}
	}, 60_000);
});

describe('the shared data version asked by many conditional reads at once', () => {
	it('is one query at a time, each sent after the callers it answers called', async () => {
		let version = 0;
		let queries = 0;
		const sent: number[] = [];
		const query = async (): Promise<number> => {
			queries++;
			const v = version;
			sent.push(performance.now());
			await new Promise((r) => setTimeout(r, 20));
			return v;
		};
		const ask = coalesced(query);
		const first = ask();
		// Committed after the first query was sent: callers from now on must see it.
		version = 1;
		const later = Array.from({ length: 50 }, () => ask());
		expect(await first).toBe(0);
		expect(await Promise.all(later)).toEqual(Array(50).fill(1));
		expect(queries).toBe(2);
		// Alone, each caller gets its own query.
		version = 2;
		expect(await ask()).toBe(2);
		expect(queries).toBe(3);
	});
});
