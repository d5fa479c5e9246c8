// Contract tests: walk the service by links only, starting at /api/v1/competitions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPutLog } from './app.ts';
import {
	call,
	expand,
	isDone,
	put,
	startSmall,
	walk,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type JsonAnswer,
	type RunJson,
	type RunList,
	type Started
} from './test-support.ts';

let s: Started;
let competition: CompetitionJson; // the IN_PROGRESS competition
let runs: RunJson[];

const SUCCESS_HEADERS: Record<string, string> = {
	'content-type': 'application/prs.hal-forms+json',
	'x-content-type-options': 'nosniff',
	'x-xss-protection': '0',
	'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
	pragma: 'no-cache',
	expires: '0',
	'x-frame-options': 'DENY'
};

function expectError(a: JsonAnswer<ErrorJson>, status: number, error: string, path?: string): void {
	expect(a.status).toBe(status);
	expect(a.res.headers.get('content-type')).toBe('application/hal+json');
	expect(Object.keys(a.body).sort()).toEqual(
		['error', 'message', 'path', 'status', 'timestamp', 'traceId'].sort()
	);
	expect(a.body.status).toBe(status);
	expect(a.body.error).toBe(error);
	expect(a.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
	expect(a.body.traceId).toMatch(/^[0-9a-f]{32}$/);
	expect(typeof a.body.message).toBe('string');
	expect(a.body.message).not.toMatch(/\n\s+at /);
	if (path) expect(a.body.path).toBe(path);
}

const pathOf = (href: string): string => new URL(href).pathname;

beforeAll(async () => {
	// Names a reverse proxy in front forwards (X-Forwarded-Host) are served once allowed (auth
	// open here: with such names it would be required by default).
	s = await startSmall({ allowHosts: ['results.example.org', 'ring.example.org'], auth: 'open' });
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	competition = list.body._embedded!.competitions[0]!;
	runs = (await walk(competition._links.competitionRuns.href, 'competitionRuns')).items;
});

afterAll(async () => {
	await s.svc.close();
});

describe('competitions list', () => {
	it('answers the paged envelope with the headers of 4.10', async () => {
		const a = await call<CompetitionList>(s.entry);
		expect(a.status).toBe(200);
		for (const [k, v] of Object.entries(SUCCESS_HEADERS)) expect(a.res.headers.get(k)).toBe(v);
		expect(Number(a.res.headers.get('content-length'))).toBe(Buffer.byteLength(a.text));
		expect(a.body.page).toEqual({ size: 20, totalElements: 3, totalPages: 1, number: 0 });
		expect(a.body._links.self.href).toBe(`${s.entry}?page=0&size=20`);
		expect(a.body._links.first?.href).toBe(`${s.entry}?page=0&size=20`);
		expect(a.body._links.last?.href).toBe(`${s.entry}?page=0&size=20`);
		expect(a.body._links.next).toBeUndefined();
		const dates = a.body._embedded!.competitions.map((c) => c.dateFrom);
		expect([...dates].sort()).toEqual(dates);
	});

	it('walks pages to the end without duplicates', async () => {
		const w = await walk(`${s.entry}?size=1`, 'competitions');
		expect(w.pages).toHaveLength(3);
		expect(w.items).toHaveLength(w.totalElements);
		expect(new Set(w.items.map((c) => c.id)).size).toBe(w.items.length);
		expect(w.pages[0]?._links.next?.href).toBe(`${s.entry}?page=1&size=1`);
		expect(w.pages[2]?._links.last?.href).toBe(`${s.entry}?page=2&size=1`);
	});

	it('filters by state, dateFrom and dateTo and keeps filters in links', async () => {
		const all = (await walk(s.entry, 'competitions')).items;
		const byState = await call<CompetitionList>(`${s.entry}?state=NEW`);
		expect(byState.body._embedded!.competitions.every((c) => c.state === 'NEW')).toBe(true);
		expect(byState.body.page.totalElements).toBe(all.filter((c) => c.state === 'NEW').length);
		expect(byState.body._links.self.href).toBe(`${s.entry}?state=NEW&page=0&size=20`);

		const from = competition.dateTo; // after the running event has started
		const a = await call<CompetitionList>(`${s.entry}?dateFrom=${from}&size=1`);
		const expected = all.filter((c) => c.dateFrom >= from);
		expect(a.body.page.totalElements).toBe(expected.length);
		expect(a.body._links.next?.href).toBe(`${s.entry}?dateFrom=${from}&page=1&size=1`);
		const w = await walk(`${s.entry}?dateFrom=${from}&size=1`, 'competitions');
		expect(w.items.map((c) => c.id)).toEqual(expected.map((c) => c.id));

		const to = competition.dateTo;
		const b = await call<CompetitionList>(`${s.entry}?dateTo=${to}`);
		expect(b.body._embedded!.competitions.map((c) => c.id)).toEqual(
			all.filter((c) => c.dateTo <= to).map((c) => c.id)
		);
	});

	it('answers an empty list with only self and zero totals', async () => {
		const a = await call<CompetitionList>(`${s.entry}?state=FINISHED`);
		expect(a.status).toBe(200);
		expect(a.body._embedded).toBeUndefined();
		expect(Object.keys(a.body._links)).toEqual(['self']);
		expect(a.body.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });
	});

	it('clamps size to 2000', async () => {
		const a = await call<CompetitionList>(`${s.entry}?size=5000`);
		expect(a.body.page.size).toBe(2000);
	});

	it.each([
		['dateFrom=2026-13-01', 'dateFrom'],
		['dateFrom=2026-02-30', 'dateFrom'],
		['dateFrom=12.5.2026', 'dateFrom'],
		['dateTo=yesterday', 'dateTo'],
		['page=-1', 'page'],
		['page=1.5', 'page'],
		['size=0', 'size'],
		['size=abc', 'size']
	])('rejects %s with 400 naming the parameter', async (q, name) => {
		const a = await call<ErrorJson>(`${s.entry}?${q}`);
		expectError(a, 400, 'Bad Request', '/api/v1/competitions');
		expect(a.body.message).toContain(`'${name}'`);
	});
});

describe('competition and its links', () => {
	it('has judges, rings and the links of 2.4–2.6', async () => {
		const a = await call<CompetitionJson>(competition._links.self.href);
		expect(a.status).toBe(200);
		expect(a.body).toEqual(competition);
		// The interface's three links, plus `changes` of the push extension, `publication` (the
		// settings of public views) and `checkIns` (the gate's marks; docs/service.md).
		expect(Object.keys(a.body._links).sort()).toEqual([
			'changes',
			'checkIns',
			'competitionRuns',
			'competitions',
			'publication',
			'self'
		]);
		expect(a.body._links.competitions.href).toBe(s.entry);
		for (const j of a.body.judges) {
			expect(j._links.competitionRuns).toEqual({
				href: `${a.body._links.self.href}/runs?judgeId=${j.id}{&ringId}`,
				templated: true
			});
			expect(j.country).toMatch(/^[A-Z]{2}$/);
		}
		for (const r of a.body.rings) {
			expect(r._links.competitionRuns).toEqual({
				href: `${a.body._links.self.href}/runs?ringId=${r.id}{&judgeId}`,
				templated: true
			});
			expect(r._links.nextDogRuns.href).toBe(
				`${a.body._links.self.href}/nextDogRunsForRing/${r.id}`
			);
		}
		expect(a.body.judges.length).toBe(3);
		expect(a.body.rings.length).toBe(2);
	});

	it('lists runs ordered by date, startTime, ring', async () => {
		expect(runs.length).toBe(6);
		const keys = runs.map((r) => `${r.date} ${r.startTime} ${r.competitionRing.id}`);
		expect([...keys].sort()).toEqual(keys);
		for (const r of runs) {
			expect(Object.keys(r._links).sort()).toEqual([
				'competition',
				'competitionRuns',
				'dogRuns',
				'self'
			]);
			expect(r._links.competition.href).toBe(competition._links.self.href);
			expect(r._links.competitionRuns.href).toBe(competition._links.competitionRuns.href);
			expect(Object.keys(r.judge).sort()).toEqual(['country', 'firstname', 'id', 'lastname']);
			expect(Object.keys(r.competitionRing).sort()).toEqual(['id', 'name']);
			expect(r.startTime).toMatch(/^\d{2}:\d{2}:\d{2}$/);
		}
	});

	it('narrows runs by the templated judge and ring links', async () => {
		for (const j of competition.judges) {
			const only = (await walk(expand(j._links.competitionRuns.href, {}), 'competitionRuns')).items;
			expect(only.map((r) => r.id)).toEqual(
				runs.filter((r) => r.judge.id === j.id).map((r) => r.id)
			);
			for (const ring of competition.rings) {
				const href = expand(j._links.competitionRuns.href, { ringId: ring.id });
				expect(href).toContain(`judgeId=${j.id}&ringId=${ring.id}`);
				const both = await call<RunList>(href);
				const expected = runs.filter(
					(r) => r.judge.id === j.id && r.competitionRing.id === ring.id
				);
				expect(both.body.page.totalElements).toBe(expected.length);
				if (expected.length > 0) {
					expect(both.body._links.self.href).toContain(`judgeId=${j.id}&ringId=${ring.id}&page=0`);
				}
			}
		}
		for (const ring of competition.rings) {
			const w = await walk(expand(ring._links.competitionRuns.href, {}), 'competitionRuns');
			expect(w.items.map((r) => r.id)).toEqual(
				runs.filter((r) => r.competitionRing.id === ring.id).map((r) => r.id)
			);
		}
	});

	it('rejects a non-integer judgeId or ringId and unknown competitions', async () => {
		const runsHref = competition._links.competitionRuns.href;
		expectError(await call(`${runsHref}?judgeId=x`), 400, 'Bad Request');
		expect((await call<ErrorJson>(`${runsHref}?ringId=1.5`)).body.message).toContain("'ringId'");
		const missing = competition._links.self.href.replace(/\/\d+$/, '/999999');
		expectError(await call(missing), 404, 'Not Found', '/api/v1/competitions/999999');
		expectError(await call(`${missing}/runs`), 404, 'Not Found');
		expectError(await call(`${missing}/nextDogRunsForRing/1`), 404, 'Not Found');
		expectError(
			await call(competition._links.self.href.replace(/\/\d+$/, '/abc')),
			400,
			'Bad Request'
		);
	});
});

describe('ids out of range', () => {
	// Ids are stored as 32-bit integers on both engines: a bigger one names nothing.
	const api = () => `${s.svc.url}api/v1`;
	const bigIds = ['2147483648', '3000000000', '99999999999999999999'];

	it('answers a path id beyond 2147483647 with 404 on every route, as an unknown id', async () => {
		const cid = competition.id;
		for (const big of bigIds) {
			for (const path of [
				`/competitions/${big}`,
				`/competitions/${big}/runs`,
				`/competitions/${big}/changes`,
				`/competitions/${big}/nextDogRunsForRing/1`,
				`/competitions/${cid}/nextDogRunsForRing/${big}`,
				`/competitionRuns/${big}`,
				`/competitionRuns/${big}/dogRuns`,
				`/dogRuns/${big}`,
				`/devices/${big}`
			]) {
				expectError(await call(`${api()}${path}`), 404, 'Not Found', `/api/v1${path}`);
			}
		}
		expectError(await call(`${api()}/dogRuns/2147483647`), 404, 'Not Found');
	});

	it('answers a query id beyond 2147483647, and 0 anywhere, with 400 naming it', async () => {
		const runsHref = competition._links.competitionRuns.href;
		for (const q of ['judgeId=3000000000', 'ringId=2147483648', 'judgeId=0', 'ringId=00']) {
			const a = await call<ErrorJson>(`${runsHref}?${q}`);
			expectError(a, 400, 'Bad Request');
			expect(a.body.message).toContain(`'${q.split('=')[0]}'`);
		}
		for (const path of ['/dogRuns/0', '/competitionRuns/0', '/competitions/0', '/devices/0']) {
			const a = await call<ErrorJson>(`${api()}${path}`);
			expectError(a, 400, 'Bad Request', `/api/v1${path}`);
			expect(a.body.message).toContain('positive integer');
		}
	});

	it('logs a PUT of such an id with its 404 (no resource id)', async () => {
		const before = readPutLog(s.svc.db!).length;
		for (const path of ['/dogRuns/3000000000', '/competitionRuns/2147483648']) {
			expectError(await put(`${api()}${path}`, { faults: 1 }), 404, 'Not Found');
		}
		const log = readPutLog(s.svc.db!).slice(before);
		expect(log).toMatchObject([
			{ path: '/api/v1/dogRuns/3000000000', status: 404, resourceKind: 'dogRun', resourceId: null },
			{
				path: '/api/v1/competitionRuns/2147483648',
				status: 404,
				resourceKind: 'competitionRun',
				resourceId: null
			}
		]);
	});
});

describe('competition runs and dog runs', () => {
	it('reads a run by its self link, with decimals of two or three digits', async () => {
		for (const r of runs) {
			const a = await call<RunJson>(r._links.self.href);
			expect(a.status).toBe(200);
			expect(a.body).toEqual(r);
			expect(a.text).toMatch(/"standardTime":\d+\.\d{2,3},"maximalTime":\d+\.\d{2,3},/);
		}
	});

	it('pages the dog runs of the biggest run to the end', async () => {
		const sizes: [RunJson, number][] = [];
		for (const r of runs) {
			const first = await call<DogRunList>(r._links.dogRuns.href);
			sizes.push([r, first.body.page.totalElements]);
		}
		const [run, total] = sizes.sort((a, b) => b[1] - a[1])[0]!;
		expect(total).toBeGreaterThan(20);
		const w = await walk(run._links.dogRuns.href, 'dogRuns');
		expect(w.pages.length).toBe(Math.ceil(total / 20));
		expect(w.items).toHaveLength(total);
		expect(new Set(w.items.map((d) => d.id)).size).toBe(total);
		expect(w.pages.at(-1)?._links.next).toBeUndefined();
		for (const d of w.items) {
			expect(d.competitionRun).toEqual(run);
			expect(d._links.competitionRun.href).toBe(run._links.self.href);
			expect(d._links.competition.href).toBe(competition._links.self.href);
			expect(Object.keys(d.dog).sort()).toEqual(
				[
					'birthday',
					'competitionLevel',
					'dogSizeClass',
					'homeName',
					'id',
					'name',
					'workbookNo'
				].sort()
			);
			expect(d.dog.competitionLevel.name).toBe(run.competitionRunLevel.name);
			expect(d.dog.dogSizeClass).toEqual(run.dogSizeClass);
			expect(Object.keys(d.competitor).sort()).toEqual(
				['country', 'firstname', 'id', 'identifier', 'lastname'].sort()
			);
			if (d.time !== null) expect(Math.round(d.time * 100)).toBeCloseTo(d.time * 100, 6);
		}
		const one = await call<DogRunJson>(w.items[0]!._links.self.href);
		expect(one.body).toEqual(w.items[0]);
	});

	it('derives progress from done dog runs', async () => {
		for (const r of runs) {
			const dogs = (await walk(r._links.dogRuns.href, 'dogRuns')).items;
			const done = dogs.filter(isDone).length;
			expect(r.progress).toBe(Math.floor((done * 100) / dogs.length));
		}
		const partial = runs.find((r) => r.progress > 0 && r.progress < 100);
		expect(partial).toBeDefined();
		const dogs = (await walk(partial!._links.dogRuns.href, 'dogRuns')).items;
		const open = dogs.find((d) => !isDone(d));
		const a = await put<DogRunJson>(open!._links.self.href, { time: 41.07 });
		expect(a.status).toBe(200);
		const done = dogs.filter(isDone).length + 1;
		expect(a.body.competitionRun.progress).toBe(Math.floor((done * 100) / dogs.length));
		expect((await call<RunJson>(partial!._links.self.href)).body.progress).toBe(
			Math.floor((done * 100) / dogs.length)
		);
	});
});

describe('updates', () => {
	async function openDogRun(): Promise<DogRunJson> {
		for (const r of runs) {
			const dogs = (await walk(r._links.dogRuns.href, 'dogRuns')).items;
			const open = dogs.find((d) => !isDone(d) && d.faults === 0 && d.refusals === 0);
			if (open) return open;
		}
		throw new Error('no open dog run');
	}

	it('applies a partial PUT of a dog run and answers the dog run', async () => {
		const d = await openDogRun();
		const t = await put<DogRunJson>(d._links.self.href, { time: 38.63 });
		expect(t.status).toBe(200);
		for (const [k, v] of Object.entries(SUCCESS_HEADERS)) expect(t.res.headers.get(k)).toBe(v);
		expect(t.body.id).toBe(d.id);
		expect(t.body.time).toBe(38.63);
		expect(t.text).toContain('"time":38.63,');
		const f = await put<DogRunJson>(d._links.self.href, { faults: 2 });
		expect(f.body.time).toBe(38.63);
		expect(f.body.faults).toBe(2);
		const r = await put<DogRunJson>(d._links.self.href, {
			refusals: 1,
			disqualified: false,
			absence: false
		});
		expect(r.body).toMatchObject({ time: 38.63, faults: 2, refusals: 1 });
		const cleared = await put<DogRunJson>(d._links.self.href, { time: null });
		expect(cleared.body.time).toBeNull();
		expect(cleared.body.faults).toBe(2);
		const g = await call<DogRunJson>(d._links.self.href);
		expect(g.body).toEqual(cleared.body);
		// The interface's three links, plus the gate's mark (`checkIn`, an extension: docs/service.md).
		expect(Object.keys(g.body._links).sort()).toEqual([
			'checkIn',
			'competition',
			'competitionRun',
			'self'
		]);
	});

	it.each([
		[{ time: '38.63' }, 'time'],
		[{ time: -1 }, 'time'],
		[{ time: 0 }, 'time'],
		[{ time: 1000 }, 'time'],
		[{ time: 38.631 }, 'time'],
		[{ faults: 1.5 }, 'faults'],
		[{ faults: -1 }, 'faults'],
		[{ faults: '2' }, 'faults'],
		[{ refusals: 100 }, 'refusals'],
		[{ refusals: null }, 'refusals'],
		[{ disqualified: 'yes' }, 'disqualified'],
		[{ absence: 1 }, 'absence'],
		[{ faults: 1, colour: 'red' }, 'colour'],
		[{}, 'nothing to update'],
		[[1, 2], 'JSON object'],
		['null', 'JSON object'],
		['{"faults": 1,', 'Malformed JSON']
	])('rejects dog run body %j with 400 and changes nothing', async (payload, mention) => {
		const d = await openDogRun();
		const a = await put<ErrorJson>(d._links.self.href, payload);
		expectError(a, 400, 'Bad Request', pathOf(d._links.self.href));
		expect(a.body.message).toContain(mention);
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
	});

	it('updates competition run parameters partially and serialises decimals', async () => {
		const run = runs[runs.length - 1]!;
		const a = await put<RunJson>(run._links.self.href, { standardTime: 65, maximalTime: 97.5 });
		expect(a.status).toBe(200);
		expect(a.text).toContain('"standardTime":65.00,"maximalTime":97.50,');
		expect(a.body.trackLength).toBe(run.trackLength);
		const b = await put(run._links.self.href, { standardTime: 43.333 });
		expect(b.text).toContain('"standardTime":43.333,"maximalTime":97.50,');
		const c = await put<RunJson>(run._links.self.href, { trackLength: 219 });
		expect(c.body.trackLength).toBe(219);
		expect(c.text).toContain('"standardTime":43.333');
		expect((await call(run._links.self.href)).text).toContain(
			'"standardTime":43.333,"maximalTime":97.50,"trackLength":219,'
		);
		// the dog runs embed the updated run
		const dogs = await call(run._links.dogRuns.href);
		expect(dogs.text).toContain('"standardTime":43.333,"maximalTime":97.50,');
	});

	it.each([
		[{ trackLength: 0 }, 'trackLength'],
		[{ trackLength: 2001 }, 'trackLength'],
		[{ trackLength: '200' }, 'trackLength'],
		[{ standardTime: -5 }, 'standardTime'],
		[{ standardTime: 1.2345 }, 'standardTime'],
		[{ maximalTime: 1000 }, 'maximalTime'],
		[{ maximalTime: 10 }, 'maximalTime'],
		[{ standardTime: 500 }, 'maximalTime'],
		[{ name: 'x' }, "Unknown field 'name'"],
		[{}, 'nothing to update']
	])('rejects competition run body %j with 400 and changes nothing', async (payload, mention) => {
		const run = runs[0]!;
		const before = await call(run._links.self.href);
		const a = await put<ErrorJson>(run._links.self.href, payload);
		expectError(a, 400, 'Bad Request');
		expect(a.body.message).toContain(mention);
		expect((await call(run._links.self.href)).text).toBe(before.text);
	});

	it('answers 404, 405, 413 and 415 with the error object', async () => {
		const d = await openDogRun();
		const missing = d._links.self.href.replace(/\/\d+$/, '/999999');
		expectError(await put(missing, { faults: 1 }), 404, 'Not Found', '/api/v1/dogRuns/999999');
		expectError(await call(missing), 404, 'Not Found');
		const missingRun = runs[0]!._links.self.href.replace(/\/\d+$/, '/999999');
		expectError(await put(missingRun, { trackLength: 100 }), 404, 'Not Found');
		expectError(await call(`${missingRun}/dogRuns`), 404, 'Not Found');
		expectError(await call(`${s.svc.url}api/v1/nothing`), 404, 'Not Found', '/api/v1/nothing');
		expectError(await call(`${s.svc.url}elsewhere`), 404, 'Not Found');

		const del = await call<ErrorJson>(d._links.self.href, { method: 'DELETE' });
		expectError(del, 405, 'Method Not Allowed');
		expect(del.res.headers.get('allow')).toBe('GET, PUT, HEAD, OPTIONS');
		const putList = await put<ErrorJson>(s.entry, { a: 1 });
		expectError(putList, 405, 'Method Not Allowed');
		expect(putList.res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');

		const big = await put<ErrorJson>(
			d._links.self.href,
			JSON.stringify({ faults: 1, pad: 'x'.repeat(70000) })
		);
		expectError(big, 413, 'Payload Too Large');

		const text = await call<ErrorJson>(d._links.self.href, {
			method: 'PUT',
			headers: { 'Content-Type': 'text/plain' },
			body: '{"faults":1}'
		});
		expectError(text, 415, 'Unsupported Media Type');
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
	});

	it('records every PUT, accepted or rejected, in put_log exactly once', async () => {
		const d = await openDogRun();
		const before = readPutLog(s.svc.db!).length;
		await put(d._links.self.href, { faults: 1 });
		await put(d._links.self.href, { faults: -1 });
		await put(d._links.self.href.replace(/\/\d+$/, '/999999'), { faults: 1 });
		const log = readPutLog(s.svc.db!).slice(before);
		expect(log.map((e) => e.status)).toEqual([200, 400, 404]);
		expect(log[0]).toMatchObject({
			method: 'PUT',
			path: pathOf(d._links.self.href),
			resourceKind: 'dogRun',
			resourceId: d.id,
			requestBody: '{"faults":1}'
		});
		expect(log[0]!.at).toMatch(/Z$/);
		expect(log[1]!.responseSummary).toContain('faults');
		const mine = readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: d.id });
		expect(mine.every((e) => e.resourceId === d.id && e.resourceKind === 'dogRun')).toBe(true);
		expect(mine.slice(-2).map((e) => e.status)).toEqual([200, 400]);
		expect(new Set(readPutLog(s.svc.db!).map((e) => e.id)).size).toBe(readPutLog(s.svc.db!).length);
	});
});

describe('next dog runs for a ring', () => {
	it('lists unfinished dog runs in start order and drops a recorded one', async () => {
		for (const ring of competition.rings) {
			const next = await walk(ring._links.nextDogRuns.href, 'dogRuns');
			const expected: number[] = [];
			for (const r of runs.filter((x) => x.competitionRing.id === ring.id)) {
				const dogs = (await walk(r._links.dogRuns.href, 'dogRuns')).items;
				expected.push(...dogs.filter((d) => !isDone(d)).map((d) => d.id));
			}
			expect(next.items.map((d) => d.id)).toEqual(expected);
			expect(next.totalElements).toBe(expected.length);
			for (const d of next.items) expect(d.competitionRun.competitionRing.id).toBe(ring.id);
		}
		const ring = competition.rings[0]!;
		const first = await call<DogRunList>(ring._links.nextDogRuns.href);
		const [a, b] = first.body._embedded!.dogRuns;
		expect((await put(a!._links.self.href, { absence: true })).status).toBe(200);
		const after = await call<DogRunList>(ring._links.nextDogRuns.href);
		expect(after.body._embedded!.dogRuns[0]?.id).toBe(b!.id);
		expect(after.body.page.totalElements).toBe(first.body.page.totalElements - 1);
		const missingRing = ring._links.nextDogRuns.href.replace(/\/\d+$/, '/999999');
		expectError(await call(missingRing), 404, 'Not Found');
	});
});

describe('links honour forwarding headers', () => {
	it('builds absolute links from Host and X-Forwarded-*', async () => {
		const a = await call<CompetitionList>(s.entry, {
			headers: { 'X-Forwarded-Host': 'results.example.org' }
		});
		expect(a.body._links.self.href).toBe(
			'http://results.example.org/api/v1/competitions?page=0&size=20'
		);
		const b = await call<CompetitionJson>(competition._links.self.href, {
			headers: {
				'X-Forwarded-Proto': 'https',
				'X-Forwarded-Host': 'ring.example.org:8443',
				'X-Forwarded-Prefix': '/results'
			}
		});
		const base = 'https://ring.example.org:8443/results/api/v1';
		expect(b.body._links.self.href).toBe(`${base}/competitions/${competition.id}`);
		expect(b.body.rings[0]?._links.nextDogRuns.href).toBe(
			`${base}/competitions/${competition.id}/nextDogRunsForRing/${competition.rings[0]!.id}`
		);
		expect(b.text).not.toContain('127.0.0.1');
		const c = await call<DogRunList>(runs[0]!._links.dogRuns.href, {
			headers: { 'X-Forwarded-Prefix': 'results/' }
		});
		expect(c.body._links.self.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/results\/api\/v1\//);
		expect(c.body._embedded!.dogRuns[0]?.competitionRun._links.self.href).toContain(
			'/results/api/v1/'
		);
	});
});
