// Fault injection: each kind as specified, put_log records, counts, and the exactly-once ledger.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPutLog, type FaultOptions } from '../app.ts';
import { decideFault, parseDelayRange } from './faults.ts';
import { mulberry32 } from '../seed/seed.ts';
import {
	call,
	parseJson,
	put,
	startSmall,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunList,
	type Started
} from '../test-support.ts';

const start = useServices();

/** A random source that returns the given values in turn, then repeats the last one. */
function script(...values: number[]): () => number {
	let i = 0;
	return () => values[Math.min(i++, values.length - 1)] ?? 0;
}

/** A dog run of the IN_PROGRESS competition, found by links while no faults are on. */
async function aDogRun(s: Started, index = 0): Promise<DogRunJson> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const runs = await call<RunList>(
		list.body._embedded!.competitions[0]!._links.competitionRuns.href
	);
	const run = runs.body._embedded!.competitionRuns[0]!;
	const dogs = await call<DogRunList>(run._links.dogRuns.href);
	return dogs.body._embedded!.dogRuns[index]!;
}

async function rejects(p: Promise<unknown>): Promise<boolean> {
	try {
		await p;
		return false;
	} catch {
		return true;
	}
}

const lastLog = (s: Started) => readPutLog(s.svc.db!).at(-1)!;

describe('fault injection', () => {
	it('is off by default: counts stay zero and put_log.fault is null', async () => {
		const s = await start();
		const d = await aDogRun(s);
		expect((await put(d._links.self.href, { faults: 2 })).status).toBe(200);
		expect(s.svc.faultCounts()).toEqual({
			error503: 0,
			resetBefore: 0,
			resetAfter: 0,
			delayed: 0,
			unreachable: 0
		});
		expect(lastLog(s)).toMatchObject({ status: 200, fault: null });
	});

	it('answers 503 with the error object and Retry-After, and does not apply the PUT', async () => {
		const s = await start();
		const d = await aDogRun(s);
		s.svc.setFaults({ error503Rate: 0.5, random: () => 0.49 });
		const get = await call<ErrorJson>(d._links.self.href);
		expect(get.status).toBe(503);
		expect(get.res.headers.get('content-type')).toBe('application/hal+json');
		expect(get.res.headers.get('retry-after')).toBe('1');
		expect(Object.keys(get.body).sort()).toEqual(
			['error', 'message', 'path', 'status', 'timestamp', 'traceId'].sort()
		);
		expect(get.body).toMatchObject({
			status: 503,
			error: 'Service Unavailable',
			path: new URL(d._links.self.href).pathname
		});
		const p = await put<ErrorJson>(d._links.self.href, { faults: 7 });
		expect(p.status).toBe(503);
		expect(p.body.status).toBe(503);
		expect(lastLog(s)).toMatchObject({
			status: 503,
			fault: '503',
			resourceKind: 'dogRun',
			resourceId: d.id,
			requestBody: '{"faults":7}'
		});
		s.svc.setFaults(null);
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
		expect(s.svc.faultCounts().error503).toBe(2);
	});

	it('gives a 503 the CORS and security headers of a normal answer for an allowed origin', async () => {
		const s = await start({ corsOrigins: ['http://app.test'] });
		const d = await aDogRun(s);
		const origin = { Origin: 'http://app.test' };
		const ok = await call(d._links.self.href, { headers: origin });
		s.svc.setFaults({ error503Rate: 1 });
		const get = await call<ErrorJson>(d._links.self.href, { headers: origin });
		const p = await put<ErrorJson>(d._links.self.href, { faults: 6 }, origin);
		const other = await call(d._links.self.href, { headers: { Origin: 'http://evil.test' } });
		s.svc.setFaults(null);
		const shared = [
			'access-control-allow-origin',
			'vary',
			'access-control-expose-headers',
			'x-content-type-options',
			'x-xss-protection',
			'cache-control',
			'pragma',
			'expires',
			'x-frame-options'
		];
		const pick = (h: Headers) => Object.fromEntries(shared.map((k) => [k, h.get(k)]));
		expect(ok.res.headers.get('access-control-allow-origin')).toBe('http://app.test');
		for (const a of [get, p]) {
			expect(a.status).toBe(503);
			expect(a.res.headers.get('retry-after')).toBe('1');
			expect(pick(a.res.headers)).toEqual(pick(ok.res.headers));
		}
		expect(other.status).toBe(503);
		expect(other.res.headers.get('access-control-allow-origin')).toBeNull();
		expect(s.svc.faultCounts().error503).toBe(3);
	});

	it('applies the latency option to faulted requests, but not to unreachable', async () => {
		const s = await start({ latencyMs: 150 });
		const d = await aDogRun(s);
		const timed = async (p: Promise<unknown>): Promise<number> => {
			const t0 = performance.now();
			await p.catch(() => undefined);
			return performance.now() - t0;
		};
		s.svc.setFaults({ error503Rate: 1 });
		expect(await timed(call(s.entry))).toBeGreaterThanOrEqual(140);
		s.svc.setFaults({ resetRate: 1, random: script(0, 0.2) });
		expect(await timed(put(d._links.self.href, { faults: 1 }))).toBeGreaterThanOrEqual(140);
		s.svc.setFaults({ resetRate: 1, random: script(0, 0.7) });
		expect(await timed(put(d._links.self.href, { faults: 1 }))).toBeGreaterThanOrEqual(140);
		// 'unreachable' stands for no service at all: the connection fails at once.
		s.svc.setFaults({ unreachable: true });
		expect(await timed(fetch(s.entry))).toBeLessThan(140);
		expect(s.svc.faultCounts()).toMatchObject({
			error503: 1,
			resetBefore: 1,
			resetAfter: 1,
			unreachable: 1
		});
	});

	it('resets before handling: fetch rejects and nothing is applied', async () => {
		const s = await start();
		const d = await aDogRun(s);
		// reset hit (0 < rate), flavour 0.2 < 0.5: before
		s.svc.setFaults({ resetRate: 0.1, random: script(0, 0.2, 0, 0.2) });
		expect(await rejects(fetch(d._links.self.href))).toBe(true);
		expect(await rejects(put(d._links.self.href, { faults: 9 }))).toBe(true);
		s.svc.setFaults(null);
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
		expect(lastLog(s)).toMatchObject({
			status: 0,
			fault: 'reset-before',
			resourceId: d.id,
			requestBody: '{"faults":9}',
			responseSummary: null
		});
		expect(s.svc.faultCounts()).toMatchObject({ resetBefore: 2, resetAfter: 0 });
	});

	it('resets after applying a PUT: fetch rejects, the change is stored and logged', async () => {
		const s = await start();
		const d = await aDogRun(s);
		// reset hit, flavour 0.7 >= 0.5: after
		s.svc.setFaults({ resetRate: 1, random: script(0, 0.7) });
		expect(await rejects(put(d._links.self.href, { faults: 5, time: 41.27 }))).toBe(true);
		expect(await rejects(put(d._links.self.href, { faults: 500 }))).toBe(true);
		expect(await rejects(fetch(d._links.self.href))).toBe(true);
		s.svc.setFaults(null);
		const after = await call<DogRunJson>(d._links.self.href);
		expect(after.body).toMatchObject({ faults: 5, time: 41.27 });
		const log = readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: d.id });
		expect(log.slice(-2)).toMatchObject([
			{ status: 200, fault: 'reset-after-apply', requestBody: '{"faults":5,"time":41.27}' },
			{ status: 400, fault: 'reset-after' }
		]);
		expect(log.at(-2)!.responseSummary).toContain(`updated dogRun ${d.id}`);
		expect(s.svc.faultCounts()).toMatchObject({ resetBefore: 0, resetAfter: 3 });
	});

	it('unreachable drops every /api request but still serves the static app', async () => {
		const app = mkdtempSync(join(tmpdir(), 'ringside-app-'));
		writeFileSync(join(app, 'index.html'), '<!doctype html><title>Ringside</title>');
		const s = await start({ appDir: app });
		const d = await aDogRun(s);
		s.svc.setFaults({ unreachable: true });
		expect(await rejects(fetch(s.entry))).toBe(true);
		expect(await rejects(fetch(d._links.self.href, { method: 'OPTIONS' }))).toBe(true);
		expect(await rejects(put(d._links.self.href, { refusals: 3 }))).toBe(true);
		expect(await rejects(fetch(`${s.svc.url}api/v1/nothing`))).toBe(true);
		const root = await fetch(s.svc.url);
		expect(root.status).toBe(200);
		expect(await root.text()).toContain('<title>Ringside</title>');
		expect((await fetch(`${s.svc.url}some/deep/route`)).status).toBe(200);
		expect(lastLog(s)).toMatchObject({ status: 0, fault: 'unreachable', resourceId: d.id });
		expect(s.svc.faultCounts().unreachable).toBe(4);
		s.svc.setFaults(null);
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
	});

	it('delays answers by a random time in the range', async () => {
		const s = await start();
		s.svc.setFaults({ delayMs: [0, 300], random: () => 0.5 });
		const t0 = performance.now();
		expect((await call(s.entry)).status).toBe(200);
		expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
		expect(s.svc.faultCounts().delayed).toBe(1);
		s.svc.setFaults({ delayMs: [0, 300], random: () => 0 });
		await call(s.entry);
		expect(s.svc.faultCounts().delayed).toBe(1);
	});

	it('takes faults from the options, and rejects bad settings', async () => {
		const s = await start({ faults: { error503Rate: 1 } });
		expect((await call(s.entry)).status).toBe(503);
		expect(() => s.svc.setFaults({ error503Rate: 1.5 })).toThrow(/error503Rate/);
		expect(() => s.svc.setFaults({ resetRate: -0.1 })).toThrow(/resetRate/);
		expect(() => s.svc.setFaults({ delayMs: [50, 10] })).toThrow(/delayMs/);
		expect((await call(s.entry)).status).toBe(503);
		s.svc.setFaults(null);
		expect((await call(s.entry)).status).toBe(200);
		await expect(startSmall({ faults: { resetRate: 2 } })).rejects.toThrow(/resetRate/);
	});

	it('writes the fault into the request log line', async () => {
		const lines: string[] = [];
		const s = await start({ quiet: false, log: (l) => lines.push(l) });
		const d = await aDogRun(s);
		lines.length = 0;
		s.svc.setFaults({ resetRate: 1, random: script(0, 0.9) });
		await rejects(put(d._links.self.href, { faults: 1 }));
		s.svc.setFaults({ error503Rate: 1 });
		await call(s.entry);
		await new Promise((r) => setTimeout(r, 20));
		const parsed = lines.map((l) => parseJson<Record<string, unknown>>(l));
		expect(parsed).toMatchObject([
			{ method: 'PUT', status: 200, fault: 'reset-after-apply' },
			{ method: 'GET', status: 503, fault: '503' }
		]);
	});

	it('writes the put_log row of a PUT before its answer or its reset leaves', async () => {
		const s = await start();
		const d = await aDogRun(s);
		// A slow disk: every put_log row takes 150 ms to write.
		const sql = s.svc.store!.sql;
		const get = sql.get.bind(sql);
		sql.get = async <T>(text: string, params?: Record<string, unknown>): Promise<T | undefined> => {
			if (text.startsWith('INSERT INTO put_log')) await new Promise((r) => setTimeout(r, 150));
			return get<T>(text, params as never);
		};
		const newest = async () => (await s.svc.readPutLog()).at(-1)!;
		s.svc.setFaults({ error503Rate: 1 });
		expect((await put(d._links.self.href, { faults: 1 })).status).toBe(503);
		expect(await newest()).toMatchObject({
			status: 503,
			fault: '503',
			requestBody: '{"faults":1}'
		});
		s.svc.setFaults({ resetRate: 1, random: script(0, 0.1) });
		expect(await rejects(put(d._links.self.href, { faults: 2 }))).toBe(true);
		expect(await newest()).toMatchObject({
			status: 0,
			fault: 'reset-before',
			requestBody: '{"faults":2}'
		});
		s.svc.setFaults(null);
		const refused = await put(d._links.self.href, { faults: -3 });
		expect(refused.status).toBe(400);
		expect(await newest()).toMatchObject({ status: 400, requestBody: '{"faults":-3}' });
	});

	it('keeps an exact ledger under mixed faults: applied = 200 answers + lost answers', async () => {
		const s = await start();
		const d = await aDogRun(s, 1);
		s.svc.setFaults({ error503Rate: 0.2, resetRate: 0.3, delayMs: [0, 5], random: mulberry32(7) });
		const seen: { body: string; outcome: number | 'rejected' }[] = [];
		for (let i = 0; i < 80; i++) {
			const body = JSON.stringify({ faults: i % 100, refusals: i % 7 });
			try {
				const a = await put(d._links.self.href, body);
				seen.push({ body, outcome: a.status });
			} catch {
				seen.push({ body, outcome: 'rejected' });
			}
		}
		s.svc.setFaults(null);
		const counts = s.svc.faultCounts();
		const log = readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: d.id }).slice(-80);
		expect(log.map((e) => e.requestBody)).toEqual(seen.map((e) => e.body));
		for (const [i, e] of log.entries()) {
			const outcome = seen[i]!.outcome;
			if (outcome === 'rejected') {
				expect(['reset-before', 'reset-after-apply']).toContain(e.fault);
				expect(e.status).toBe(e.fault === 'reset-before' ? 0 : 200);
			} else {
				expect(e.status).toBe(outcome);
				expect(e.fault).toBe(outcome === 503 ? '503' : null);
			}
		}
		expect(seen.filter((e) => e.outcome === 503).length).toBe(counts.error503);
		expect(seen.filter((e) => e.outcome === 'rejected').length).toBe(
			counts.resetBefore + counts.resetAfter
		);
		expect(counts.error503).toBeGreaterThan(0);
		expect(counts.resetBefore).toBeGreaterThan(0);
		expect(counts.resetAfter).toBeGreaterThan(0);
		// The stored state is the last applied PUT, whether or not its answer arrived.
		const lastApplied = log.filter((e) => e.status === 200).at(-1)!;
		const final = await call<DogRunJson>(d._links.self.href);
		expect(final.body).toMatchObject(parseJson<object>(lastApplied.requestBody!));
		expect(final.body.competitor).toEqual(d.competitor);
	});
});

describe('fault decisions', () => {
	it('draws 503, reset, flavour and delay in the documented order', () => {
		const f = (random: () => number): FaultOptions => ({
			error503Rate: 0.1,
			resetRate: 0.1,
			delayMs: [100, 200],
			random
		});
		expect(decideFault(null)).toEqual({ kind: 'none', delayMs: 0 });
		expect(decideFault({ unreachable: true, error503Rate: 1 })).toEqual({
			kind: 'unreachable',
			delayMs: 0
		});
		expect(decideFault(f(script(0.05, 0.5)))).toEqual({ kind: '503', delayMs: 150 });
		expect(decideFault(f(script(0.5, 0.05, 0.4, 1)))).toEqual({
			kind: 'reset-before',
			delayMs: 200
		});
		expect(decideFault(f(script(0.5, 0.05, 0.6, 0)))).toEqual({
			kind: 'reset-after',
			delayMs: 100
		});
		expect(decideFault(f(script(0.5, 0.5, 0.25)))).toEqual({ kind: 'none', delayMs: 125 });
	});

	it('parses CLI delay ranges', () => {
		expect(parseDelayRange('0-300')).toEqual([0, 300]);
		expect(parseDelayRange('250')).toEqual([250, 250]);
		expect(parseDelayRange(' 10 - 20 ')).toEqual([10, 20]);
		expect(parseDelayRange('300-0')).toBeNull();
		expect(parseDelayRange('-5')).toBeNull();
		expect(parseDelayRange('a-b')).toBeNull();
	});
});
