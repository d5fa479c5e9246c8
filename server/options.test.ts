// Options of the service: ETag, CORS, latency, persistence, static app, internal errors.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createService, readPutLog } from './app.ts';
import {
	call,
	parseJson,
	put,
	SEED_DATE,
	startSmall,
	useServices,
	tempDbFile,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunJson,
	type RunList,
	type Started,
	waitFor
} from './test-support.ts';

const start = useServices();

async function firstDogRun(s: Started): Promise<{ run: RunJson; dog: DogRunJson }> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const competition = list.body._embedded!.competitions[0]!;
	const runs = await call<RunList>(competition._links.competitionRuns.href);
	const run = runs.body._embedded!.competitionRuns[0]!;
	const dogs = await call<DogRunList>(run._links.dogRuns.href);
	return { run, dog: dogs.body._embedded!.dogRuns[0]! };
}

/** One line of the request log. */
interface RequestLogLine {
	method: string;
	path: string;
	status: number;
	ms: number;
	traceId?: string;
}

describe('ETag option', () => {
	it('is off by default', async () => {
		const s = await start();
		const { dog } = await firstDogRun(s);
		const a = await call(dog._links.self.href);
		expect(a.res.headers.get('etag')).toBeNull();
		// If-Match is ignored when ETags are off
		expect((await put(dog._links.self.href, { faults: 1 }, { 'If-Match': '"x"' })).status).toBe(
			200
		);
	});

	it('answers ETags, rejects a stale If-Match with 412 and accepts the current one', async () => {
		const s = await start({ etag: true });
		const { dog, run } = await firstDogRun(s);
		const a = await call(dog._links.self.href);
		const tag = a.res.headers.get('etag');
		expect(tag).toMatch(new RegExp(`^"dogRun-${dog.id}-\\d+"$`));
		const ok = await put(dog._links.self.href, { faults: 3 }, { 'If-Match': tag! });
		expect(ok.status).toBe(200);
		expect(ok.res.headers.get('etag')).toMatch(new RegExp(`^"dogRun-${dog.id}-\\d+"$`));
		expect(ok.res.headers.get('etag')).not.toBe(tag);
		const stale = await put<ErrorJson>(dog._links.self.href, { faults: 4 }, { 'If-Match': tag! });
		expect(stale.status).toBe(412);
		expect(stale.res.headers.get('content-type')).toBe('application/hal+json');
		expect(stale.body).toMatchObject({ status: 412, error: 'Precondition Failed' });
		expect(stale.body.traceId).toMatch(/^[0-9a-f]{32}$/);
		expect((await call<DogRunJson>(dog._links.self.href)).body.faults).toBe(3);
		expect((await put(dog._links.self.href, { faults: 4 }, { 'If-Match': '*' })).status).toBe(200);
		expect((await put(dog._links.self.href, { faults: 5 })).status).toBe(200);

		const r = await call(run._links.self.href);
		expect(r.res.headers.get('etag')).toMatch(new RegExp(`^"competitionRun-${run.id}-\\d+"$`));
		const r1 = await put(
			run._links.self.href,
			{ trackLength: 180 },
			{ 'If-Match': r.res.headers.get('etag')! }
		);
		expect(r1.status).toBe(200);
		expect(r1.res.headers.get('etag')).not.toBe(r.res.headers.get('etag'));
		const r2 = await put(
			run._links.self.href,
			{ trackLength: 181 },
			{ 'If-Match': r.res.headers.get('etag')! }
		);
		expect(r2.status).toBe(412);
	});

	it('logs the If-Match and the sender of every PUT', async () => {
		const s = await start({ etag: true });
		const { dog } = await firstDogRun(s);
		const tag = (await call(dog._links.self.href)).res.headers.get('etag')!;
		await put(dog._links.self.href, { faults: 1 }, { 'If-Match': tag, 'User-Agent': 'phone-A' });
		await put(dog._links.self.href, { faults: 2 }, { 'User-Agent': 'phone-B' });
		const log = readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: dog.id });
		expect(log.map((r) => [r.ifMatch, r.client, r.status])).toEqual([
			[tag, 'phone-A', 200],
			[null, 'phone-B', 200]
		]);
	});
});

describe('CORS option', () => {
	it('sends no CORS headers by default and refuses preflights', async () => {
		const s = await start();
		const a = await call(s.entry, { headers: { Origin: 'http://app.test' } });
		expect(a.res.headers.get('access-control-allow-origin')).toBeNull();
		const pre = await call<ErrorJson>(s.entry, {
			method: 'OPTIONS',
			headers: { Origin: 'http://app.test', 'Access-Control-Request-Method': 'PUT' }
		});
		expect(pre.status).toBe(403);
		expect(pre.body.error).toBe('Forbidden');
	});

	it('allows listed origins, answers preflights and ignores others', async () => {
		const s = await start({ corsOrigins: ['http://app.test', 'http://other.test'] });
		const { dog } = await firstDogRun(s);
		const a = await call(s.entry, { headers: { Origin: 'http://app.test' } });
		expect(a.res.headers.get('access-control-allow-origin')).toBe('http://app.test');
		expect(a.res.headers.get('vary')).toBe('Origin');
		expect(a.res.headers.get('access-control-expose-headers')).toBe('ETag');
		const pre = await fetch(dog._links.self.href, {
			method: 'OPTIONS',
			headers: {
				Origin: 'http://app.test',
				'Access-Control-Request-Method': 'PUT',
				'Access-Control-Request-Headers': 'content-type, if-match'
			}
		});
		expect(pre.status).toBe(204);
		expect(pre.headers.get('access-control-allow-origin')).toBe('http://app.test');
		expect(pre.headers.get('access-control-allow-methods')).toBe('GET, PUT, OPTIONS');
		expect(pre.headers.get('access-control-allow-headers')).toBe(
			'Content-Type, If-Match, If-None-Match, Last-Event-ID, Accept'
		);
		expect(pre.headers.get('access-control-max-age')).toBe('600');

		const bad = await call(s.entry, { headers: { Origin: 'http://evil.test' } });
		expect(bad.status).toBe(200);
		expect(bad.res.headers.get('access-control-allow-origin')).toBeNull();
		const badPre = await call(dog._links.self.href, {
			method: 'OPTIONS',
			headers: { Origin: 'http://evil.test', 'Access-Control-Request-Method': 'PUT' }
		});
		expect(badPre.status).toBe(403);
		expect(badPre.res.headers.get('access-control-allow-origin')).toBeNull();
	});

	it('allows any origin with *', async () => {
		const s = await start({ corsOrigins: ['*'] });
		const a = await call(s.entry, { headers: { Origin: 'http://anything.test' } });
		expect(a.res.headers.get('access-control-allow-origin')).toBe('http://anything.test');
	});

	it('answers a plain OPTIONS with Allow', async () => {
		const s = await start();
		const a = await fetch(s.entry, { method: 'OPTIONS' });
		expect(a.status).toBe(204);
		expect(a.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
	});
});

describe('shutdown', () => {
	it('lets a request being handled answer before the database closes', async () => {
		const s = await start({ latencyMs: 200 });
		const { dog } = await firstDogRun(s);
		const pending = put<DogRunJson>(dog._links.self.href, { faults: 2 });
		await new Promise((resolve) => setTimeout(resolve, 50));
		await s.svc.close();
		const answer = await pending;
		expect(answer.status).toBe(200);
		expect(answer.body.faults).toBe(2);
	});
});

describe('latency option', () => {
	it('delays API answers', async () => {
		const s = await start({ latencyMs: 150 });
		const t0 = performance.now();
		await call(s.entry);
		expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
	});
});

describe('storage', () => {
	it('keeps data across a restart on the same file and reseeds on reset', async () => {
		const dbFile = tempDbFile();
		const first = await startSmall({ dbFile });
		expect(first.svc.seeded?.size).toBe('small');
		const { dog } = await firstDogRun(first);
		const changed = await put(dog._links.self.href, { time: 12.34, faults: 7 });
		expect(changed.status).toBe(200);
		const path = new URL(dog._links.self.href).pathname;
		await first.svc.close();

		const second = await startSmall({ dbFile });
		expect(second.svc.seeded).toBeNull();
		const again = await call<DogRunJson>(`${second.svc.url}${path.slice(1)}`);
		expect(again.body).toMatchObject({ time: 12.34, faults: 7 });
		expect(second.svc.db!.pragma('journal_mode', { simple: true })).toBe('wal');
		await second.svc.close();

		const third = await startSmall({ dbFile, reset: true });
		expect(third.svc.seeded?.size).toBe('small');
		const reset = await call<DogRunJson>(`${third.svc.url}${path.slice(1)}`);
		expect(reset.body.faults).toBe(dog.faults);
		await third.svc.close();
	});

	it('creates the data folder', async () => {
		const dir = join(mkdtempSync(join(tmpdir(), 'ringside-dir-')), 'nested', 'deeper');
		const s = await start({ dbFile: join(dir, 'db.sqlite') });
		expect((await call(s.entry)).status).toBe(200);
	});

	it('answers 500 with the error object and no stack trace when storage fails', async () => {
		const errors: string[] = [];
		const s = await start({ logError: (l) => errors.push(l) });
		s.svc.db!.pragma('foreign_keys = OFF');
		s.svc.db!.exec('DROP TABLE competition_judge');
		const a = await call<ErrorJson>(`${s.entry}`);
		expect(a.status).toBe(500);
		expect(a.res.headers.get('content-type')).toBe('application/hal+json');
		expect(a.body).toMatchObject({ status: 500, error: 'Internal Server Error' });
		expect(a.body.message).not.toMatch(/competition_judge|\n\s+at /);
		expect(errors.join('\n')).toContain(a.body.traceId);
	});
});

describe('static app', () => {
	it('serves the built app with SPA fallback and cache headers; API routes win', async () => {
		const app = mkdtempSync(join(tmpdir(), 'ringside-app-'));
		mkdirSync(join(app, '_app', 'immutable'), { recursive: true });
		writeFileSync(join(app, 'index.html'), '<!doctype html><title>Ringside</title>');
		writeFileSync(join(app, 'service-worker.js'), 'self.x = 1;');
		writeFileSync(join(app, 'manifest.webmanifest'), '{}');
		writeFileSync(join(app, '_app', 'immutable', 'entry.abc123.js'), 'export {};');
		const s = await start({ appDir: app });
		const root = await fetch(s.svc.url);
		expect(root.status).toBe(200);
		expect(await root.text()).toContain('<title>Ringside</title>');
		expect(root.headers.get('cache-control')).toBe('no-cache');
		const deep = await fetch(`${s.svc.url}competitions/1/rings/2`);
		expect(await deep.text()).toContain('<title>Ringside</title>');
		expect(deep.headers.get('cache-control')).toBe('no-cache');
		const sw = await fetch(`${s.svc.url}service-worker.js`);
		expect(sw.headers.get('cache-control')).toBe('no-cache');
		expect(sw.headers.get('content-type')).toContain('javascript');
		const mf = await fetch(`${s.svc.url}manifest.webmanifest`);
		expect(mf.headers.get('cache-control')).toBe('no-cache');
		const imm = await fetch(`${s.svc.url}_app/immutable/entry.abc123.js`);
		expect(imm.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
		const missing = await call<ErrorJson>(`${s.svc.url}missing.js`);
		expect(missing.status).toBe(404);
		expect(missing.body.error).toBe('Not Found');
		const api = await call(s.entry);
		expect(api.res.headers.get('content-type')).toBe('application/prs.hal-forms+json');
		const apiMissing = await call(`${s.svc.url}api/v1/unknown`);
		expect(apiMissing.status).toBe(404);
		expect(apiMissing.res.headers.get('content-type')).toBe('application/hal+json');
	});

	it('refuses a missing app folder', async () => {
		await expect(
			createService({
				appDir: '/nonexistent/build',
				dbFile: tempDbFile(),
				seed: 'small',
				seedDate: SEED_DATE,
				quiet: true
			})
		).rejects.toThrow(/does not exist/);
	});
});

describe('request log', () => {
	it('writes one JSON line per request with traceId on errors', async () => {
		const lines: string[] = [];
		const s = await start({ quiet: false, log: (l) => lines.push(l) });
		await call(s.entry);
		await call(`${s.entry}?page=-1`);
		const reqLines = lines.map((l) => parseJson<RequestLogLine>(l));
		expect(reqLines).toHaveLength(2);
		expect(reqLines[0]).toMatchObject({ method: 'GET', path: '/api/v1/competitions', status: 200 });
		expect(typeof reqLines[0]!.ms).toBe('number');
		expect(reqLines[1]!.status).toBe(400);
		expect(reqLines[1]!.traceId).toMatch(/^[0-9a-f]{32}$/);
	});

	it('logs the status the client got for the pages and files of the app', async () => {
		const app = mkdtempSync(join(tmpdir(), 'ringside-app-'));
		mkdirSync(join(app, '_app', 'immutable'), { recursive: true });
		writeFileSync(join(app, 'index.html'), '<!doctype html><title>Ringside</title>');
		writeFileSync(join(app, '_app', 'immutable', 'entry.abc123.js'), 'export {};');
		const lines: string[] = [];
		const s = await start({ appDir: app, quiet: false, log: (l) => lines.push(l) });
		const got: [string, number][] = [];
		const fetchLogged = async (path: string, init: RequestInit = {}): Promise<Response> => {
			const res = await fetch(`${s.svc.url}${path}`, init);
			await res.arrayBuffer();
			got.push([`${init.method ?? 'GET'} /${path}`, res.status]);
			return res;
		};
		const root = await fetchLogged('');
		await fetchLogged('', { headers: { 'If-None-Match': root.headers.get('etag')! } });
		await fetchLogged('competitions/1/rings/2');
		await fetchLogged('_app/immutable/entry.abc123.js');
		await fetchLogged('', { method: 'HEAD' });
		await fetchLogged('missing.js');
		await fetchLogged('', { method: 'POST' });
		expect(got.map(([, status]) => status)).toEqual([200, 304, 200, 200, 200, 404, 405]);
		// A line is written once the connection is done with the answer (not always in order).
		await waitFor(() => lines.length >= got.length);
		const logged = lines
			.map((l) => parseJson<RequestLogLine>(l))
			.map((l): [string, number] => [`${l.method} ${l.path}`, l.status]);
		const order = (a: [string, number], b: [string, number]) =>
			a[0].localeCompare(b[0]) || a[1] - b[1];
		expect(logged.sort(order)).toEqual(got.sort(order));
	});

	it('logs the 200 it answered when the client goes away before the end of the page', async () => {
		// A browser cancels a load it no longer needs (a navigation, a page closed) once the
		// status line is in: the service did answer 200.
		const app = mkdtempSync(join(tmpdir(), 'ringside-app-'));
		const filler = `<!--${'x'.repeat(16 * 1024 * 1024)}-->`;
		writeFileSync(join(app, 'index.html'), `<!doctype html><title>Ringside</title>${filler}`);
		const lines: string[] = [];
		const s = await start({ appDir: app, quiet: false, log: (l) => lines.push(l) });
		const status = await new Promise<number>((resolve, reject) => {
			const req = request(s.svc.url, (res) => {
				resolve(res.statusCode ?? 0);
				res.destroy();
			});
			req.on('error', reject);
			req.end();
		});
		expect(status).toBe(200);
		await waitFor(() => lines.length > 0);
		expect(parseJson<RequestLogLine>(lines[0]!)).toMatchObject({
			method: 'GET',
			path: '/',
			status: 200
		});
	});
});
