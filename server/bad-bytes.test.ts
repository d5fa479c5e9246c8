// Text that no database stores: NUL (PostgreSQL refuses it in text), unpaired surrogates and
// bytes that are not UTF-8, in a query parameter, the path or a body. Each is bad input, a 400
// naming where it was, the same on SQLite and PostgreSQL (this suite runs on both), on every
// route; and every PUT still gets its PUT-log row.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
	call,
	startSmall,
	type CompetitionList,
	type DogRunList,
	type ErrorJson,
	type RunList,
	type Started
} from './test-support.ts';

let s: Started;
const errors: string[] = [];
let api: string;
let competitionId: number;
let runId: number;
let ringId: number;
let dogRunId: number;

beforeAll(async () => {
	s = await startSmall({ auth: 'open', logError: (line) => errors.push(line) });
	api = `${s.svc.url}api/v1`;
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const c = list.body._embedded!.competitions[0]!;
	competitionId = c.id;
	ringId = c.rings[0]!.id;
	const runs = await call<RunList>(c._links.competitionRuns.href);
	runId = runs.body._embedded!.competitionRuns[0]!.id;
	const dogs = await call<DogRunList>(runs.body._embedded!.competitionRuns[0]!._links.dogRuns.href);
	dogRunId = dogs.body._embedded!.dogRuns[0]!.id;
});

afterAll(async () => {
	await s.svc.close();
});

/** The bad texts, as a query value or path segment is percent-encoded. */
const BAD = {
	nul: '%00',
	'nul inside': 'IN%00PROGRESS',
	'unpaired surrogate (CESU-8)': '%ED%A0%80',
	'not UTF-8': '%FF',
	'cut UTF-8': '%C3'
};

const getRoutes = (): string[] => [
	'/competitions',
	`/competitions/${competitionId}`,
	`/competitions/${competitionId}/runs`,
	`/competitionRuns/${runId}`,
	`/competitionRuns/${runId}/dogRuns`,
	`/competitions/${competitionId}/nextDogRunsForRing/${ringId}`,
	`/dogRuns/${dogRunId}`,
	'/devices'
];

function expectBadInput(a: { status: number; body: ErrorJson }, what: string): void {
	expect(a.status, what).toBe(400);
	expect(a.body.error, what).toBe('Bad Request');
}

describe('a query parameter', () => {
	it.each(Object.entries(BAD))('holding %s is a 400 on every route', async (_name, bad) => {
		for (const route of getRoutes()) {
			for (const param of ['state', 'page', 'size', 'judgeId', 'dateFrom', 'anything']) {
				const a = await call<ErrorJson>(`${api}${route}?${param}=${bad}`);
				expectBadInput(a, `${route}?${param}=${bad}`);
				expect(a.body.message).toContain(`'${param}'`);
			}
		}
		// Its name too.
		expectBadInput(await call<ErrorJson>(`${api}/competitions?a${bad}=1`), 'name');
	});

	it('that is fine still answers as before', async () => {
		expect((await call(`${api}/competitions?state=IN%20PROGRESS`)).status).toBe(200);
		expect((await call(`${api}/competitions?state=%C5%A0`)).status).toBe(200);
	});
});

describe('the path', () => {
	it.each(Object.entries(BAD))('holding %s is a 400 on every route', async (_name, bad) => {
		for (const route of [...getRoutes(), '/elsewhere']) {
			const a = await call<ErrorJson>(`${api}${route}${bad}`);
			expectBadInput(a, `${route}${bad}`);
			expect(a.body.message).toMatch(/path/i);
		}
	});
});

/** Sends a PUT with `body` as raw bytes (fetch would encode a string as UTF-8). */
function rawPut(path: string, body: Buffer): Promise<{ status: number; body: ErrorJson }> {
	return new Promise((resolve, reject) => {
		const req = request(
			`${api}${path}`,
			{
				method: 'PUT',
				headers: { 'Content-Type': 'application/json', 'Content-Length': body.length }
			},
			(res) => {
				let text = '';
				res.setEncoding('utf8');
				res.on('data', (c: string) => (text += c));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as ErrorJson })
				);
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}

describe('a PUT body', () => {
	const bodies: [string, Buffer][] = [
		['a raw NUL in a string', Buffer.from('{"time": 31.5, "x": "a\0b"}')],
		['a raw NUL after the object', Buffer.from('{"time": 31.5}\0')],
		['an escaped NUL in a name', Buffer.from('{"name": "Phone\\u0000 1"}')],
		['an escaped NUL in a key', Buffer.from('{"time\\u0000": 31.5}')],
		['an unpaired surrogate in a name', Buffer.from('{"name": "Phone \\ud800"}')],
		[
			'bytes that are not UTF-8',
			Buffer.concat([Buffer.from('{"name": "Phone '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
		]
	];

	it.each(bodies)('holding %s is a 400 with its PUT-log row', async (_name, body) => {
		for (const path of [`/dogRuns/${dogRunId}`, `/competitionRuns/${runId}`, '/devices/1']) {
			const before = (await s.svc.readPutLog()).length;
			const a = await rawPut(path, body);
			expectBadInput(a, path);
			const log = (await s.svc.readPutLog()).slice(before);
			expect(log, path).toHaveLength(1);
			expect(log[0]).toMatchObject({ method: 'PUT', path: `/api/v1${path}`, status: 400 });
			expect(log[0]!.bodyBytes).toBe(body.length);
		}
	});

	it('the same with a NUL in the query of the PUT', async () => {
		const before = (await s.svc.readPutLog()).length;
		const a = await rawPut(`/dogRuns/${dogRunId}?x=%00`, Buffer.from('{"time": 31.5}'));
		expectBadInput(a, 'query');
		const log = (await s.svc.readPutLog()).slice(before);
		expect(log).toMatchObject([{ path: `/api/v1/dogRuns/${dogRunId}?x=%00`, status: 400 }]);
		// Nothing changed.
		const d = await call<{ time: number | null }>(`${api}/dogRuns/${dogRunId}`);
		expect(d.body.time).not.toBe(31.5);
	});
});

describe('a POST body', () => {
	it('holding an escaped NUL or an unpaired surrogate is a 400', async () => {
		for (const body of ['{"token": "abc\\u0000"}', '{"token": "x", "name": "\\udc00"}']) {
			const a = await call<ErrorJson>(`${api}/devices/join`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body
			});
			expectBadInput(a, body);
		}
		const link = await call<ErrorJson>(`${api}/join-links`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: '{"role": "viewer\\u0000"}'
		});
		expectBadInput(link, 'join-links');
	});
});

describe('the service', () => {
	it('logged no error: nothing reached the database that it refused', () => {
		expect(errors).toEqual([]);
	});
});
