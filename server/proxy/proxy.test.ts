// Proxy mode: a second service forwards /api/* to an upstream.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, readPutLog, type Service } from '../app.ts';
import {
	call,
	openSse,
	put,
	startSmall,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type HalLink,
	type RunList,
	type Started
} from '../test-support.ts';

type WithChanges = CompetitionJson & { _links: { changes?: HalLink } };

let upstream: Started;
let proxy: Service;

beforeAll(async () => {
	upstream = await startSmall();
	proxy = await createService({ port: 0, upstream: upstream.svc.url, quiet: true });
});

afterAll(async () => {
	await proxy.close();
	await upstream.svc.close();
});

function listen(server: Server): Promise<string> {
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () =>
			resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
		)
	);
}

describe('proxy mode', () => {
	it('answers with links through the proxy origin and forwards PUTs', async () => {
		expect(proxy.db).toBeNull();
		const entry = `${proxy.url}api/v1/competitions`;
		const list = await call<CompetitionList>(`${entry}?state=IN_PROGRESS`);
		expect(list.status).toBe(200);
		expect(list.res.headers.get('content-type')).toBe('application/prs.hal-forms+json');
		expect(list.res.headers.get('x-frame-options')).toBe('DENY');
		expect(list.body._links.self.href).toBe(`${entry}?state=IN_PROGRESS&page=0&size=20`);
		expect(list.text).not.toContain(upstream.svc.url);
		const c = list.body._embedded!.competitions[0]!;
		const runs = await call<RunList>(c._links.competitionRuns.href);
		const run = runs.body._embedded!.competitionRuns[0]!;
		expect(run._links.self.href.startsWith(proxy.url)).toBe(true);
		const dogs = await call<DogRunList>(run._links.dogRuns.href);
		const dog = dogs.body._embedded!.dogRuns[0]!;
		const before = readPutLog(upstream.svc.db!).length;
		const a = await put<DogRunJson>(dog._links.self.href, { faults: 4 });
		expect(a.status).toBe(200);
		expect(a.body.faults).toBe(4);
		expect(a.body._links.self.href).toBe(dog._links.self.href);
		expect(readPutLog(upstream.svc.db!).length).toBe(before + 1);
		const bad = await put<ErrorJson>(dog._links.self.href, { faults: 'x' });
		expect(bad.status).toBe(400);
		expect(bad.res.headers.get('content-type')).toBe('application/hal+json');
		expect(bad.body.path).toBe(new URL(dog._links.self.href).pathname);
	});

	it("passes its own host on, never a client's X-Forwarded-*", async () => {
		const a = await call<CompetitionList>(`${proxy.url}api/v1/competitions`, {
			headers: { 'X-Forwarded-Host': 'ring.example.org', 'X-Forwarded-Prefix': '/results' }
		});
		expect(a.body._links.self.href).toBe(`${proxy.url}api/v1/competitions?page=0&size=20`);
	});

	it('rewrites absolute upstream links when the upstream ignores X-Forwarded-*', async () => {
		let seen: Record<string, string | string[] | undefined> = {};
		const fake = createServer((req, res) => {
			seen = req.headers;
			const self = `http://${req.headers.host}${req.url}`; // req.url already holds /base
			const body = JSON.stringify({
				_links: { self: { href: self } },
				other: 'http://elsewhere/x'
			});
			res.writeHead(200, { 'Content-Type': 'application/hal+json' });
			res.end(body);
		});
		const base = await listen(fake);
		const p = await createService({ port: 0, upstream: `${base}/base/`, quiet: true });
		try {
			const a = await call<{ _links: { self: HalLink }; other: string }>(
				`${p.url}api/v1/competitions?page=0`
			);
			expect(a.body._links.self.href).toBe(`${p.url}api/v1/competitions?page=0`);
			expect(a.body.other).toBe('http://elsewhere/x');
			expect(seen['x-forwarded-host']).toBe(new URL(p.url).host);
			expect(seen['x-forwarded-proto']).toBe('http');
			expect(seen['x-forwarded-prefix']).toBe('');
		} finally {
			await p.close();
			fake.closeAllConnections();
			fake.close();
		}
	});

	it('answers 502 when the upstream is down and 504 when it does not answer', async () => {
		const gone = createServer();
		const base = await listen(gone);
		await new Promise<void>((r) => gone.close(() => r()));
		const down = await createService({ port: 0, upstream: base, quiet: true });
		try {
			const a = await call(`${down.url}api/v1/competitions`);
			expect(a.status).toBe(502);
			expect(a.res.headers.get('content-type')).toBe('application/hal+json');
			expect(a.body).toMatchObject({
				status: 502,
				error: 'Bad Gateway',
				path: '/api/v1/competitions'
			});
		} finally {
			await down.close();
		}
		const hang = createServer(() => {
			/* never answers */
		});
		const hangBase = await listen(hang);
		const slow = await createService({
			port: 0,
			upstream: hangBase,
			upstreamTimeoutMs: 300,
			quiet: true
		});
		try {
			const a = await call<ErrorJson>(`${slow.url}api/v1/competitions`);
			expect(a.status).toBe(504);
			expect(a.body.error).toBe('Gateway Timeout');
		} finally {
			await slow.close();
			hang.closeAllConnections();
			hang.close();
		}
	});

	it('streams the upstream changes through, with working links and Last-Event-ID resume', async () => {
		const entry = `${proxy.url}api/v1/competitions`;
		const list = await call<CompetitionList>(`${entry}?state=IN_PROGRESS`);
		const c = list.body._embedded!.competitions[0]! as WithChanges;
		expect(c._links.changes?.href).toBe(`${entry}/${c.id}/changes`);
		const stream = await openSse(c._links.changes!.href);
		expect(stream.status).toBe(200);
		expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
		expect(stream.res.headers.get('cache-control')).toBe('no-store');
		const ready = (await stream.nextEvent())!;
		expect(ready.event).toBe('ready');
		const runs = await call<RunList>(c._links.competitionRuns.href);
		const dogs = await call<DogRunList>(
			runs.body._embedded!.competitionRuns[1]!._links.dogRuns.href
		);
		const dog = dogs.body._embedded!.dogRuns[0]!;
		expect((await put(dog._links.self.href, { refusals: 3 })).status).toBe(200);
		const e = (await stream.nextEvent())!;
		expect(e.event).toBe('dogRun');
		expect(e.data).toBe((await call(dog._links.self.href)).text);
		expect(e.data).toContain(proxy.url);
		expect(e.data).not.toContain(upstream.svc.url);
		// Resume through the proxy: Last-Event-ID is passed on. The change is in the upstream's
		// feed once the open stream has it (on PostgreSQL it reaches the feed after the commit,
		// by NOTIFY), so the resumed stream must replay it.
		await put(dog._links.self.href, { refusals: 4 });
		expect(JSON.parse((await stream.nextEvent())!.data).refusals).toBe(4);
		stream.close();
		const again = await openSse(c._links.changes!.href, { 'Last-Event-ID': e.id! });
		const missed = (await again.nextEvent())!;
		again.close();
		expect([missed.event, JSON.parse(missed.data).refusals]).toEqual(['dogRun', 4]);
	});

	it('passes a stream on as it comes (no buffering), rewrites its links, and ends it on close', async () => {
		let write: ((text: string) => void) | null = null;
		const fake = createServer((req, res) => {
			res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8' });
			write = (text) => res.write(text);
			const self = `http://${req.headers.host}/base/api/v1/dogRuns/1`;
			res.write(`id: e-1\nevent: dogRun\ndata: {"_links":{"self":{"href":"${self}"}}}\n\n`);
		});
		const base = await listen(fake);
		const p = await createService({ port: 0, upstream: `${base}/base`, quiet: true });
		try {
			const stream = await openSse(`${p.url}api/v1/competitions/1/changes`);
			const first = (await stream.nextEvent())!;
			expect(JSON.parse(first.data)).toEqual({
				_links: { self: { href: `${p.url}api/v1/dogRuns/1` } }
			});
			// The upstream writes an event in two pieces; it arrives once complete, links rewritten.
			write!(`id: e-2\nevent: dogRun\ndata: {"href":"${base}/ba`);
			await new Promise((r) => setTimeout(r, 50));
			write!(`se/api/v1/dogRuns/2"}\n\n: heartbeat\n\n`);
			const second = (await stream.nextEvent())!;
			expect([second.id, second.data]).toEqual(['e-2', `{"href":"${p.url}api/v1/dogRuns/2"}`]);
			expect((await stream.next())!.comments).toEqual(['heartbeat']);
			const t0 = Date.now();
			await p.close();
			expect(Date.now() - t0).toBeLessThan(1000);
			expect(await stream.next(1000)).toBeNull();
		} finally {
			await p.close();
			fake.closeAllConnections();
			fake.close();
		}
	});

	it('passes ETags and 304 answers through', async () => {
		const up = await startSmall({ etag: true });
		const p = await createService({ port: 0, upstream: up.svc.url, quiet: true });
		try {
			const href = `${p.url}api/v1/competitions`;
			const a = await call(href);
			const tag = a.res.headers.get('etag');
			expect(tag).toMatch(/^"[^"]+"$/);
			const b = await call(href, { headers: { 'If-None-Match': tag! } });
			expect(b.status).toBe(304);
			expect(b.text).toBe('');
			expect(b.res.headers.get('etag')).toBe(tag);
			expect(b.res.headers.get('content-length')).toBeNull();
		} finally {
			await p.close();
			await up.svc.close();
		}
	});
});
