// The push extension: `_links.changes` on each competition, a Server-Sent Events stream of the
// accepted PUTs of that competition, Last-Event-ID resume, reset, heartbeat, limits, shutdown.
import { describe, expect, it } from 'vitest';
import { createService } from '../app.ts';
import {
	call,
	openSse,
	put,
	startSmall,
	tempDbFile,
	useServices,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunList,
	type SseStream,
	type Started
} from '../test-support.ts';

const start = useServices();

type WithChanges = CompetitionJson & { _links: { changes?: { href: string } } };

async function competitions(s: Started): Promise<WithChanges[]> {
	return (await call<CompetitionList>(`${s.entry}?size=50`)).body._embedded!
		.competitions as WithChanges[];
}

/** The IN_PROGRESS competition, its changes link, and a few of its dog runs. */
async function scene(s: Started): Promise<{ c: WithChanges; changes: string; dogs: DogRunJson[] }> {
	const c = (await competitions(s)).find((x) => x.state === 'IN_PROGRESS')!;
	const runs = await call<RunList>(c._links.competitionRuns.href);
	const run = runs.body._embedded!.competitionRuns[0]!;
	const dogs = await call<DogRunList>(run._links.dogRuns.href);
	return { c, changes: c._links.changes!.href, dogs: dogs.body._embedded!.dogRuns };
}

/** Opens a stream and reads its first message (`ready` or `reset`). */
async function opened(href: string, headers: Record<string, string> = {}) {
	const stream = await openSse(href, headers);
	expect(stream.status).toBe(200);
	const first = await stream.nextEvent();
	return { stream, first: first! };
}

const ID = /^([a-z0-9]+)-(\d+)$/;
const seqOf = (id: string | undefined): number => Number(ID.exec(id ?? '')?.[2]);
const epochOf = (id: string | undefined): string => ID.exec(id ?? '')?.[1] ?? '';

describe('the changes link', () => {
	it('is on every competition, single and listed, next to its self link', async () => {
		const s = await start();
		for (const c of await competitions(s)) {
			expect(c._links.changes).toEqual({ href: `${c._links.self.href}/changes` });
			const one = await call<WithChanges>(c._links.self.href);
			expect(one.body._links.changes).toEqual(c._links.changes);
		}
	});

	it('is absent, and the stream answers 404, with push off', async () => {
		const s = await start({ push: false });
		for (const c of await competitions(s)) {
			expect(c._links.changes).toBeUndefined();
			expect(Object.keys(c._links)).toEqual([
				'self',
				'competitions',
				'competitionRuns',
				'publication',
				'checkIns'
			]);
		}
		const c = (await competitions(s))[0]!;
		const a = await call<ErrorJson>(`${c._links.self.href}/changes`);
		expect(a.status).toBe(404);
		expect(a.body).toMatchObject({ status: 404, error: 'Not Found' });
	});

	it('answers 404 for a competition that does not exist and 400 for a bad id', async () => {
		const s = await start();
		expect((await call(`${s.entry}/99999/changes`)).status).toBe(404);
		expect((await call(`${s.entry}/x/changes`)).status).toBe(400);
	});

	it('refuses push: false in proxy mode (the upstream decides)', async () => {
		await expect(
			createService({ port: 0, upstream: 'http://127.0.0.1:9', push: false, quiet: true })
		).rejects.toThrow(/proxy mode/);
	});
});

describe('the changes stream', () => {
	it('is an uncompressed, uncached event stream that begins with a retry hint and ready', async () => {
		const s = await start();
		const { changes } = await scene(s);
		const { stream, first } = await opened(changes, { 'Accept-Encoding': 'gzip, br' });
		try {
			expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
			expect(stream.res.headers.get('cache-control')).toBe('no-store');
			expect(stream.res.headers.get('content-encoding')).toBeNull();
			expect(stream.res.headers.get('content-length')).toBeNull();
			expect(stream.res.headers.get('x-content-type-options')).toBe('nosniff');
			expect(first.event).toBe('ready');
			expect(first.id).toMatch(/^[a-z0-9]+-0$/);
			expect(first.retry).toBeGreaterThan(0);
			expect(JSON.parse(first.data)).toEqual({});
		} finally {
			stream.close();
		}
	});

	it('sends one event per accepted PUT, with the resource exactly as its self link answers', async () => {
		const s = await start();
		const { changes, dogs } = await scene(s);
		const { stream, first } = await opened(changes);
		try {
			const dog = dogs[0]!;
			expect((await put(dog._links.self.href, { time: 38.63, faults: 5 })).status).toBe(200);
			const e1 = (await stream.nextEvent())!;
			expect(e1.event).toBe('dogRun');
			expect(epochOf(e1.id)).toBe(epochOf(first.id));
			expect(seqOf(e1.id)).toBe(1);
			expect(e1.data).toBe((await call(dog._links.self.href)).text);

			const runHref = dog.competitionRun._links.self.href;
			expect((await put(runHref, { trackLength: 190 })).status).toBe(200);
			const e2 = (await stream.nextEvent())!;
			expect(e2.event).toBe('run');
			expect(seqOf(e2.id)).toBe(2);
			expect(e2.data).toBe((await call(runHref)).text);

			// Refused PUTs send nothing.
			expect((await put(dog._links.self.href, { faults: 'x' })).status).toBe(400);
			expect((await put(runHref, { standardTime: 99, maximalTime: 10 })).status).toBe(400);
			expect((await put(dogs[1]!._links.self.href, { refusals: 2 })).status).toBe(200);
			const e3 = (await stream.nextEvent())!;
			expect(e3.event).toBe('dogRun');
			expect(seqOf(e3.id)).toBe(3);
			expect(JSON.parse(e3.data)).toMatchObject({ id: dogs[1]!.id, refusals: 2 });
		} finally {
			stream.close();
		}
	});

	it('renders the data with the links of the address the stream was opened through', async () => {
		const s = await start({ allowHosts: ['ring.example.org'], auth: 'open' });
		const { changes, dogs } = await scene(s);
		const headers = { 'X-Forwarded-Host': 'ring.example.org', 'X-Forwarded-Prefix': '/r' };
		const { stream } = await opened(changes, headers);
		try {
			await put(dogs[0]!._links.self.href, { faults: 1 });
			const e = (await stream.nextEvent())!;
			const self = `http://ring.example.org/r/api/v1/dogRuns/${dogs[0]!.id}`;
			expect(JSON.parse(e.data)).toMatchObject({ _links: { self: { href: self } } });
			expect(e.data).toBe((await call(dogs[0]!._links.self.href, { headers })).text);
		} finally {
			stream.close();
		}
	});

	it('sends the events of its own competition only', async () => {
		const s = await start();
		const all = await competitions(s);
		const a = all.find((c) => c.state === 'IN_PROGRESS')!;
		const b = all.find((c) => c.id !== a.id)!;
		const bRuns = await call<RunList>(b._links.competitionRuns.href);
		const bRun = bRuns.body._embedded!.competitionRuns[0]!;
		const { dogs } = await scene(s);
		const { stream } = await opened(b._links.changes!.href);
		try {
			await put(dogs[0]!._links.self.href, { faults: 1 }); // competition a: seq 1
			await put(bRun._links.self.href, { trackLength: 150 }); // competition b: seq 2
			const e = (await stream.nextEvent())!;
			expect(e.event).toBe('run');
			expect(seqOf(e.id)).toBe(2);
		} finally {
			stream.close();
		}
	});

	it('resumes after Last-Event-ID with the missed events, then ready', async () => {
		const s = await start();
		const { changes, dogs } = await scene(s);
		const { stream } = await opened(changes);
		await put(dogs[0]!._links.self.href, { faults: 1 });
		const seen = (await stream.nextEvent())!;
		stream.close();
		// Missed while away: two changes.
		await put(dogs[1]!._links.self.href, { faults: 2 });
		await put(dogs[2]!._links.self.href, { faults: 3 });
		const again = await openSse(changes, { 'Last-Event-ID': seen.id! });
		try {
			const m1 = (await again.nextEvent())!;
			const m2 = (await again.nextEvent())!;
			const ready = (await again.nextEvent())!;
			expect([m1.event, seqOf(m1.id), JSON.parse(m1.data).faults]).toEqual(['dogRun', 2, 2]);
			expect([m2.event, seqOf(m2.id), JSON.parse(m2.data).faults]).toEqual(['dogRun', 3, 3]);
			expect([ready.event, seqOf(ready.id)]).toEqual(['ready', 3]);
			// …and goes on live.
			await put(dogs[3]!._links.self.href, { faults: 4 });
			expect(seqOf((await again.nextEvent())!.id)).toBe(4);
		} finally {
			again.close();
		}
		// Nothing missed: just ready.
		const current = await openSse(changes, { 'Last-Event-ID': `${epochOf(seen.id)}-4` });
		try {
			const m = (await current.nextEvent())!;
			expect([m.event, seqOf(m.id)]).toEqual(['ready', 4]);
		} finally {
			current.close();
		}
	});

	it('answers reset (with the current id) to an unknown, expired or older-process Last-Event-ID', async () => {
		const dbFile = tempDbFile();
		const s = await start({ dbFile, push: { bufferSize: 2 } });
		const { changes, dogs } = await scene(s);
		const { stream, first } = await opened(changes);
		stream.close();
		const epoch = epochOf(first.id);
		for (let i = 0; i < 3; i++) await put(dogs[i]!._links.self.href, { faults: i + 1 });
		const cases: [string, string][] = [
			['garbage', 'unknown'],
			[`${epoch}-99`, 'unknown'], // from the future
			[`${epoch}-0`, 'expired'], // events 1..3, only 2..3 still kept
			['zzzzzz-1', 'restarted']
		];
		for (const [lastId, reason] of cases) {
			const { stream: st, first: m } = await opened(changes, { 'Last-Event-ID': lastId });
			st.close();
			expect([m.event, m.id, JSON.parse(m.data)], lastId).toEqual([
				'reset',
				`${epoch}-3`,
				{ reason }
			]);
		}
		// The oldest kept event can still be resumed from the one before it.
		const { stream: ok, first: m } = await opened(changes, { 'Last-Event-ID': `${epoch}-1` });
		ok.close();
		expect([m.event, seqOf(m.id)]).toEqual(['dogRun', 2]);

		// A restarted service (same data) has another epoch: an id of the old process is reset.
		await s.svc.close();
		const again = await start({ dbFile });
		const { stream: st2, first: r } = await opened(changes.replace(s.svc.url, again.svc.url), {
			'Last-Event-ID': `${epoch}-3`
		});
		st2.close();
		expect(r.event).toBe('reset');
		expect(JSON.parse(r.data)).toEqual({ reason: 'restarted' });
		expect(epochOf(r.id)).not.toBe(epoch);
		expect(seqOf(r.id)).toBe(0);
	});

	it('sends a comment heartbeat at the configured interval', async () => {
		const s = await start({ push: { heartbeatMs: 40 } });
		const { changes } = await scene(s);
		const { stream } = await opened(changes);
		try {
			const t0 = Date.now();
			const m1 = (await stream.next(1000))!;
			const m2 = (await stream.next(1000))!;
			expect(m1.comments.length).toBeGreaterThan(0);
			expect(m1.data).toBe('');
			expect(m1.event).toBe('message');
			expect(m2.comments.length).toBeGreaterThan(0);
			expect(Date.now() - t0).toBeGreaterThanOrEqual(60);
		} finally {
			stream.close();
		}
	});

	it('refuses streams beyond the limit with 503 and the error object, and frees closed ones', async () => {
		const s = await start({ push: { maxStreams: 2 } });
		const { changes } = await scene(s);
		const a = await opened(changes);
		const b = await opened(changes);
		const refused = await call<ErrorJson>(changes);
		expect(refused.status).toBe(503);
		expect(refused.res.headers.get('content-type')).toBe('application/hal+json');
		expect(refused.res.headers.get('retry-after')).toMatch(/^\d+$/);
		expect(refused.body).toMatchObject({ status: 503, error: 'Service Unavailable' });
		expect(refused.body.message).toMatch(/stream/);
		a.stream.close();
		let reopened: SseStream | null = null;
		for (let i = 0; i < 50 && !reopened; i++) {
			const st = await openSse(changes);
			if (st.status === 200) reopened = st;
			else await new Promise((r) => setTimeout(r, 20));
		}
		expect(reopened).not.toBeNull();
		reopened!.close();
		b.stream.close();
	});

	it('ends open streams cleanly and at once when the service closes', async () => {
		const s = await startSmall({ push: { heartbeatMs: 60_000 } });
		const { changes } = await scene(s);
		const streams = await Promise.all([opened(changes), opened(changes), opened(changes)]);
		const t0 = Date.now();
		await s.svc.close();
		expect(Date.now() - t0).toBeLessThan(1000);
		for (const { stream } of streams) expect(await stream.next(1000)).toBeNull();
	});

	it('drops open streams when the service is made unreachable, and refuses new ones', async () => {
		const s = await start();
		const { changes } = await scene(s);
		const { stream } = await opened(changes);
		s.svc.setFaults({ unreachable: true });
		expect(await stream.next(1000)).toBeNull();
		await expect(fetch(changes)).rejects.toThrow();
		s.svc.setFaults(null);
		const back = await opened(changes);
		back.stream.close();
	});

	it('answers a preflight that asks for Last-Event-ID and If-None-Match', async () => {
		const s = await start({ corsOrigins: ['http://app.test'] });
		const { changes } = await scene(s);
		const pre = await fetch(changes, {
			method: 'OPTIONS',
			headers: {
				Origin: 'http://app.test',
				'Access-Control-Request-Method': 'GET',
				'Access-Control-Request-Headers': 'last-event-id, if-none-match'
			}
		});
		expect(pre.status).toBe(204);
		const allowed = pre.headers.get('access-control-allow-headers')!.toLowerCase();
		expect(allowed).toContain('last-event-id');
		expect(allowed).toContain('if-none-match');
		const stream = await openSse(changes, { Origin: 'http://app.test' });
		expect(stream.res.headers.get('access-control-allow-origin')).toBe('http://app.test');
		stream.close();
	});
});
