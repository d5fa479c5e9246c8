import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Contact } from './contact';
import { ApiError, isRetryable } from './errors';
import {
	ACCEPT,
	HalClient,
	entryPointFor,
	isJsonContentType,
	parseRetryAfter,
	type FetchLike
} from './hal-client';
import { expandLink, requireLink } from './links';
import { CompetitionRunSchema, CompetitionSchema, DogRunSchema } from './schemas';
import {
	API,
	SERVICE,
	competitionJson,
	competitionRunJson,
	dogRunJson,
	errorJson,
	fakeFetch,
	halResponse,
	hangingFetch,
	pageJson,
	redirectedTo
} from './test-support';

function client(fetch: FetchLike, timeoutMs?: number): HalClient {
	return new HalClient({ serviceUrl: SERVICE, fetch, timeoutMs });
}

/** The ApiError a promise rejects with (fails the test if it resolves or rejects otherwise). */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
	try {
		await promise;
	} catch (e) {
		if (e instanceof ApiError) return e;
		throw e;
	}
	throw new Error('expected an ApiError, but the promise resolved');
}

const runsUrl = `${API}/competitions/1/runs`;
const dogRunsUrl = `${API}/competitionRuns/11/dogRuns`;

describe('service address', () => {
	it.each([
		['http://127.0.0.1:4173', 'http://127.0.0.1:4173/api/v1/competitions'],
		['http://127.0.0.1:4173/', 'http://127.0.0.1:4173/api/v1/competitions'],
		['https://host/results', 'https://host/results/api/v1/competitions'],
		['https://host//results//', 'https://host/results/api/v1/competitions'],
		['  https://HOST:443/results  ', 'https://host/results/api/v1/competitions'],
		['https://host/results/api/v1', 'https://host/results/api/v1/competitions'],
		['https://host/results/api/v1/competitions/', 'https://host/results/api/v1/competitions']
	])('makes %j into the entry point %s', (serviceUrl, entryPoint) => {
		expect(entryPointFor(serviceUrl)).toBe(entryPoint);
		expect(new HalClient({ serviceUrl }).entryPoint).toBe(entryPoint);
	});

	it.each([
		['', 'not an absolute URL'],
		['results.example.org', 'not an absolute URL'],
		['/results', 'not an absolute URL'],
		['ftp://host/results', 'scheme ftp: is not http or https'],
		['javascript:alert(1)', 'scheme javascript: is not http or https'],
		['https://user:secret@host/results', 'credentials in the address'],
		['https://host/results?x=1', 'query or fragment in the address'],
		['https://host/results#top', 'query or fragment in the address']
	])('refuses %j as a bad address', (serviceUrl, detail) => {
		expect(() => new HalClient({ serviceUrl })).toThrow(
			expect.objectContaining({ code: 'bad-address', detail })
		);
	});

	it('refuses a time limit that is not a positive number', () => {
		expect(() => new HalClient({ serviceUrl: SERVICE, timeoutMs: 0 })).toThrow(RangeError);
		expect(() => new HalClient({ serviceUrl: SERVICE, timeoutMs: Number.NaN })).toThrow(RangeError);
	});

	it('builds the competition list address from the documented parameters only', () => {
		const c = new HalClient({ serviceUrl: SERVICE });
		expect(c.competitionsUrl()).toBe(`${API}/competitions`);
		expect(
			c.competitionsUrl({
				dateFrom: '2025-05-01',
				state: 'NEW',
				page: 0,
				size: 50,
				dateTo: undefined
			})
		).toBe(`${API}/competitions?dateFrom=2025-05-01&state=NEW&page=0&size=50`);
	});
});

describe('reading documents', () => {
	it('asks for HAL-FORMS, HAL, then JSON, and sends no Content-Type on GET', async () => {
		const { fetch, calls } = fakeFetch({ [`${API}/competitions/1`]: competitionJson() });
		await client(fetch).get(`${API}/competitions/1`, CompetitionSchema);
		expect(calls).toHaveLength(1);
		const headers = new Headers(calls[0]?.init.headers);
		expect(headers.get('Accept')).toBe(
			'application/prs.hal-forms+json, application/hal+json;q=0.9, application/json;q=0.8'
		);
		expect(headers.get('Accept')).toBe(ACCEPT);
		expect(headers.has('Content-Type')).toBe(false);
		expect(calls[0]?.init.method).toBe('GET');
		expect(calls[0]?.init.redirect).toBe('manual');
		expect(calls[0]?.init.signal).toBeInstanceOf(AbortSignal);
	});

	it('returns the validated body, the ETag and the document URL', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitionRuns/11`]: () =>
				halResponse(competitionRunJson(), { headers: { ETag: '"v7"' } })
		});
		const result = await client(fetch).get(`${API}/competitionRuns/11`, CompetitionRunSchema);
		expect(result.body.standardTime).toBe(38.5);
		expect(result.body.judge.lastname).toBe('Nováková');
		expect(result.etag).toBe('"v7"');
		expect(result.url).toBe(`${API}/competitionRuns/11`);
	});

	it('leaves the ETag out when the service sends none', async () => {
		const { fetch } = fakeFetch({ [`${API}/competitions/1`]: competitionJson() });
		const result = await client(fetch).get(`${API}/competitions/1`, CompetitionSchema);
		expect(result.etag).toBeUndefined();
	});

	it('lists competitions with filters on the entry point', async () => {
		const listUrl = `${API}/competitions`;
		const { fetch, calls } = fakeFetch({}, () =>
			halResponse(
				pageJson(listUrl, 'competitions', [competitionJson(1), competitionJson(2)], {
					number: 0,
					size: 20,
					totalElements: 2
				})
			)
		);
		const result = await client(fetch).listCompetitions({ dateFrom: '2025-05-01', state: 'NEW' });
		expect(calls[0]?.url).toBe(`${listUrl}?dateFrom=2025-05-01&state=NEW`);
		expect(result.items.map((c) => c.name)).toEqual(['Spring Cup', 'Spring Cup']);
		expect(result.page).toEqual({ size: 20, totalElements: 2, totalPages: 1, number: 0 });
		expect(result.links.self.href).toBe(`${listUrl}?page=0&size=20`);
	});

	it('gives an empty item list when _embedded is absent', async () => {
		const { fetch } = fakeFetch({
			[dogRunsUrl]: pageJson(dogRunsUrl, 'dogRuns', [], { number: 0, size: 20, totalElements: 0 })
		});
		const result = await client(fetch).getPage(dogRunsUrl, 'dogRuns', DogRunSchema);
		expect(result.items).toEqual([]);
		expect(result.page.totalElements).toBe(0);
	});

	it("follows a judge's templated runs link with and without a ring", async () => {
		const { fetch, calls } = fakeFetch({ [`${API}/competitions/1`]: competitionJson() }, (url) =>
			halResponse(
				pageJson(url.split('?')[0] ?? url, 'competitionRuns', [competitionRunJson()], {
					number: 0,
					size: 20,
					totalElements: 1
				})
			)
		);
		const c = client(fetch);
		const { body: competition } = await c.get(`${API}/competitions/1`, CompetitionSchema);
		const judge = competition.judges[0];
		const link = requireLink(judge?._links, 'competitionRuns');
		const onRing = await c.getPage(
			expandLink(link, { ringId: competition.rings[0]?.id }),
			'competitionRuns',
			CompetitionRunSchema
		);
		const everywhere = await c.getPage(expandLink(link), 'competitionRuns', CompetitionRunSchema);
		expect(calls.map((call) => call.url)).toEqual([
			`${API}/competitions/1`,
			`${runsUrl}?judgeId=5&ringId=2`,
			`${runsUrl}?judgeId=5`
		]);
		expect(onRing.items[0]?.id).toBe(11);
		expect(everywhere.items).toHaveLength(1);
	});

	it('follows a link picked by name from a link array', async () => {
		const competition = competitionJson();
		const judge = {
			...competition.judges[0],
			_links: {
				competitionRuns: [
					{ href: `${runsUrl}?judgeId=5&ringId=2`, name: 'Ring A' },
					{ href: `${runsUrl}?judgeId=5&ringId=3`, name: 'Ring B' }
				]
			}
		};
		const { fetch, calls } = fakeFetch(
			{ [`${API}/competitions/1`]: { ...competition, judges: [judge] } },
			() =>
				halResponse(
					pageJson(runsUrl, 'competitionRuns', [], { number: 0, size: 20, totalElements: 0 })
				)
		);
		const c = client(fetch);
		const { body } = await c.get(`${API}/competitions/1`, CompetitionSchema);
		const link = requireLink(body.judges[0]?._links, 'competitionRuns', { name: 'Ring B' });
		await c.getPage(expandLink(link), 'competitionRuns', CompetitionRunSchema);
		expect(calls[1]?.url).toBe(`${runsUrl}?judgeId=5&ringId=3`);
	});

	it('resolves relative links against the document URL before returning them', async () => {
		const run = competitionRunJson();
		const relative = {
			...run,
			_links: {
				self: { href: '/api/v1/competitionRuns/11' },
				dogRuns: { href: '11/dogRuns' },
				competition: { href: '../competitions/1' }
			}
		};
		const { fetch, calls } = fakeFetch({
			[`${API}/competitionRuns/11`]: relative,
			[dogRunsUrl]: pageJson(dogRunsUrl, 'dogRuns', [], { number: 0, size: 20, totalElements: 0 })
		});
		const c = client(fetch);
		const { body } = await c.get(`${API}/competitionRuns/11`, CompetitionRunSchema);
		expect(body._links.self.href).toBe(`${API}/competitionRuns/11`);
		expect(requireLink(body._links, 'dogRuns').href).toBe(dogRunsUrl);
		expect(requireLink(body._links, 'competition').href).toBe(`${API}/competitions/1`);
		await c.getPage(requireLink(body._links, 'dogRuns').href, 'dogRuns', DogRunSchema);
		expect(calls[1]?.url).toBe(dogRunsUrl);
	});

	it('resolves a relative href given to it against the entry point', async () => {
		const { fetch, calls } = fakeFetch({ [`${API}/competitionRuns/11`]: competitionRunJson() });
		await client(fetch).get('/api/v1/competitionRuns/11', CompetitionRunSchema);
		expect(calls[0]?.url).toBe(`${API}/competitionRuns/11`);
	});

	it.each([
		'application/json',
		'application/hal+json;charset=UTF-8',
		'Application/Prs.Hal-Forms+JSON',
		'application/vnd.other+json'
	])('accepts a %s answer', async (contentType) => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				halResponse(competitionJson(), { headers: { 'Content-Type': contentType } })
		});
		const { body } = await client(fetch).get(`${API}/competitions/1`, CompetitionSchema);
		expect(body.id).toBe(1);
	});
});

describe('conditional reads', () => {
	it('takes a 304 to If-None-Match as "unchanged" (null), not as a redirect it refuses', async () => {
		const url = `${API}/competitionRuns/11/dogRuns`;
		const { fetch, calls } = fakeFetch({ [url]: () => new Response(null, { status: 304 }) });
		expect(await client(fetch).getPageIfChanged(url, 'dogRuns', DogRunSchema, '"v1"')).toBeNull();
		expect(new Headers(calls[0]!.init.headers).get('If-None-Match')).toBe('"v1"');
	});

	it('reads one resource again only when changed: null on 304, else the body and its new tag', async () => {
		const url = `${API}/competitions/1`;
		let tag = '"v1"';
		const { fetch, calls } = fakeFetch({
			[url]: (_url: string, init?: RequestInit) =>
				new Headers(init?.headers).get('If-None-Match') === tag
					? new Response(null, { status: 304 })
					: halResponse(competitionJson(), { headers: { ETag: tag } })
		});
		const c = client(fetch);
		const first = await c.getIfChanged(url, CompetitionSchema, undefined);
		expect(first?.etag).toBe('"v1"');
		expect(new Headers(calls[0]!.init.headers).has('If-None-Match')).toBe(false);
		expect(await c.getIfChanged(url, CompetitionSchema, first?.etag)).toBeNull();
		tag = '"v2"';
		const changed = await c.getIfChanged(url, CompetitionSchema, first?.etag);
		expect(changed?.body.id).toBe(1);
		expect(changed?.etag).toBe('"v2"');
	});
});

describe('paging', () => {
	const listUrl = runsUrl;
	const pageOf = (n: number) =>
		pageJson(
			listUrl,
			'competitionRuns',
			[competitionRunJson(10 + 2 * n), competitionRunJson(11 + 2 * n)],
			{
				number: n,
				size: 2,
				totalElements: 6
			}
		);

	it('reads three pages by following next until there is none', async () => {
		const { fetch, calls } = fakeFetch({
			[listUrl]: pageOf(0),
			[`${listUrl}?page=1&size=2`]: pageOf(1),
			[`${listUrl}?page=2&size=2`]: pageOf(2)
		});
		const ids: number[] = [];
		const numbers: number[] = [];
		for await (const page of client(fetch).pages(
			listUrl,
			'competitionRuns',
			CompetitionRunSchema
		)) {
			numbers.push(page.page.number);
			ids.push(...page.items.map((run) => run.id));
		}
		expect(numbers).toEqual([0, 1, 2]);
		expect(ids).toEqual([10, 11, 12, 13, 14, 15]);
		expect(calls.map((call) => call.url)).toEqual([
			listUrl,
			`${listUrl}?page=1&size=2`,
			`${listUrl}?page=2&size=2`
		]);
	});

	it('reads an empty list as one empty page', async () => {
		const { fetch, calls } = fakeFetch({
			[dogRunsUrl]: pageJson(dogRunsUrl, 'dogRuns', [], { number: 0, size: 20, totalElements: 0 })
		});
		const pages = [];
		for await (const page of client(fetch).pages(dogRunsUrl, 'dogRuns', DogRunSchema))
			pages.push(page);
		expect(pages).toHaveLength(1);
		expect(pages[0]?.items).toEqual([]);
		expect(calls).toHaveLength(1);
	});

	it('stops with invalid-shape when next leads back to a page already read', async () => {
		const looping = { ...pageOf(1), _links: { ...pageOf(1)._links, next: pageOf(0)._links.self } };
		const { fetch, calls } = fakeFetch({
			[`${listUrl}?page=0&size=2`]: pageOf(0),
			[`${listUrl}?page=1&size=2`]: looping
		});
		const seen: number[] = [];
		const error = await apiError(
			(async () => {
				const pages = client(fetch).pages(
					`${listUrl}?page=0&size=2`,
					'competitionRuns',
					CompetitionRunSchema
				);
				for await (const page of pages) seen.push(page.page.number);
			})()
		);
		expect(error.code).toBe('invalid-shape');
		expect(error.detail).toMatch(/paging loop/);
		expect(seen).toEqual([0, 1]);
		expect(calls).toHaveLength(2);
	});

	it('stops with invalid-shape when next is the page itself', async () => {
		const stuck = { ...pageOf(0), _links: { ...pageOf(0)._links, next: pageOf(0)._links.self } };
		const { fetch, calls } = fakeFetch({ [listUrl]: stuck });
		const error = await apiError(
			(async () => {
				for await (const _page of client(fetch).pages(
					listUrl,
					'competitionRuns',
					CompetitionRunSchema
				)) {
					// read all
				}
			})()
		);
		expect(error.code).toBe('invalid-shape');
		expect(calls).toHaveLength(1);
	});

	it('expands a templated next link with nothing', async () => {
		const first = {
			...pageOf(0),
			_links: {
				self: { href: listUrl },
				next: { href: `${listUrl}?page=1&size=2{&sort}`, templated: true }
			}
		};
		const last = pageJson(listUrl, 'competitionRuns', [], { number: 1, size: 2, totalElements: 2 });
		const { fetch, calls } = fakeFetch({ [listUrl]: first, [`${listUrl}?page=1&size=2`]: last });
		for await (const _page of client(fetch).pages(
			listUrl,
			'competitionRuns',
			CompetitionRunSchema
		)) {
			// read all
		}
		expect(calls.map((call) => call.url)).toEqual([listUrl, `${listUrl}?page=1&size=2`]);
	});

	it('pages on past a self link that is not a URL', async () => {
		const odd = { ...pageOf(0), _links: { ...pageOf(0)._links, self: { href: 'http://[bad' } } };
		const { fetch, calls } = fakeFetch({
			[listUrl]: odd,
			[`${listUrl}?page=1&size=2`]: pageOf(1),
			[`${listUrl}?page=2&size=2`]: pageOf(2)
		});
		const numbers: number[] = [];
		for await (const page of client(fetch).pages(
			listUrl,
			'competitionRuns',
			CompetitionRunSchema
		)) {
			numbers.push(page.page.number);
		}
		expect(numbers).toEqual([0, 1, 2]);
		expect(calls).toHaveLength(3);
	});

	it('refuses a next link to another origin without requesting it', async () => {
		const first = {
			...pageOf(0),
			_links: { ...pageOf(0)._links, next: { href: 'https://evil.example/api/v1/page1' } }
		};
		const { fetch, calls } = fakeFetch({ [listUrl]: first });
		const error = await apiError(
			(async () => {
				for await (const _page of client(fetch).pages(
					listUrl,
					'competitionRuns',
					CompetitionRunSchema
				)) {
					// read all
				}
			})()
		);
		expect(error.code).toBe('foreign-origin');
		expect(calls).toHaveLength(1);
	});
});

describe('error answers', () => {
	it("reads the service's error object into status, message and trace id", async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions?dateFrom=tomorrow`]: () =>
				halResponse(
					errorJson(400, 'Bad Request', "Invalid value for 'dateFrom'", '/api/v1/competitions'),
					{ status: 400 }
				)
		});
		const error = await apiError(client(fetch).listCompetitions({ dateFrom: 'tomorrow' }));
		expect(error).toMatchObject({
			code: 'http',
			status: 400,
			serverMessage: "Invalid value for 'dateFrom'",
			traceId: '6f1c2a9e4b7d3f10',
			url: `${API}/competitions?dateFrom=tomorrow`
		});
		expect(isRetryable(error)).toBe(false);
	});

	it('reports a 404 for a resource that does not exist', async () => {
		const { fetch } = fakeFetch();
		const error = await apiError(client(fetch).get(`${API}/competitions/999`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'http', status: 404, serverMessage: 'No such resource' });
	});

	it("reports a proxy's HTML 500 page with its status only, as retryable", async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				new Response('<html><body><h1>500 Internal Server Error</h1></body></html>', {
					status: 500,
					headers: { 'Content-Type': 'text/html' }
				})
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.code).toBe('http');
		expect(error.status).toBe(500);
		expect(error.serverMessage).toBeUndefined();
		expect(error.traceId).toBeUndefined();
		expect(isRetryable(error)).toBe(true);
	});

	it('ignores a JSON error body that is not the error object', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () => halResponse({ fault: 'gateway' }, { status: 502 })
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'http', status: 502 });
		expect(error.serverMessage).toBeUndefined();
	});

	it('reads Retry-After in seconds on a 429', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				halResponse(errorJson(429, 'Too Many Requests', 'Slow down', '/api/v1/competitions/1'), {
					status: 429,
					headers: { 'Retry-After': '120' }
				})
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'http', status: 429, retryAfterMs: 120_000 });
		expect(isRetryable(error)).toBe(true);
	});

	it('reads Retry-After as an HTTP date on a 503', async () => {
		const at = new Date(Date.now() + 30_000).toUTCString();
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				new Response('Service Unavailable', {
					status: 503,
					headers: { 'Retry-After': at, 'Content-Type': 'text/plain' }
				})
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.status).toBe(503);
		// toUTCString drops milliseconds, and time passes during the test.
		expect(error.retryAfterMs).toBeGreaterThan(28_000);
		expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
	});

	it('has no retryAfterMs without Retry-After', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () => halResponse({ status: 503, message: 'x' }, { status: 503 })
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.retryAfterMs).toBeUndefined();
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2025-05-10T08:00:00Z');

	it.each([
		['0', 0],
		['120', 120_000],
		[' 5 ', 5_000],
		['Sat, 10 May 2025 08:01:30 GMT', 90_000],
		['Saturday, 10-May-25 08:00:10 GMT', 10_000],
		['Sat May 10 08:00:20 2025', 20_000],
		['Sat, 10 May 2025 07:00:00 GMT', 0]
	])('reads %j as %d ms', (value, ms) => {
		expect(parseRetryAfter(value, now)).toBe(ms);
	});

	it.each([null, '', '-5', '1.5', 'soon', '2025-05-10T08:01:00Z'])('ignores %j', (value) => {
		expect(parseRetryAfter(value, now)).toBeUndefined();
	});

	it('reads any whole number of seconds', () => {
		fc.assert(
			fc.property(fc.nat(), (seconds) => {
				expect(parseRetryAfter(String(seconds), now)).toBe(seconds * 1000);
			})
		);
	});
});

describe('answers that are not the expected document', () => {
	it('refuses a 200 HTML page (a captive portal or proxy) as not-json', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				new Response('<!doctype html><title>Login to Wi-Fi</title>', {
					headers: { 'Content-Type': 'text/html; charset=utf-8' }
				})
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'not-json', status: 200 });
		expect(error.detail).toContain('text/html');
		expect(isRetryable(error)).toBe(true);
	});

	it('refuses a body without Content-Type as not-json', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () => new Response(new Blob([JSON.stringify(competitionJson())]))
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.code).toBe('not-json');
	});

	it('refuses truncated JSON as invalid-json', async () => {
		const text = JSON.stringify(competitionJson());
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () => halResponse(text.slice(0, text.length / 2))
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'invalid-json', url: `${API}/competitions/1` });
		expect(error.cause).toBeInstanceOf(SyntaxError);
	});

	it('refuses an empty 200 as invalid-json', async () => {
		const { fetch } = fakeFetch({ [`${API}/competitions/1`]: () => halResponse('') });
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'invalid-json', detail: 'empty body' });
	});

	it('refuses a field of the wrong type as invalid-shape, naming its path', async () => {
		const { fetch } = fakeFetch({
			[`${API}/competitionRuns/11`]: { ...competitionRunJson(), standardTime: '38.50' }
		});
		const error = await apiError(
			client(fetch).get(`${API}/competitionRuns/11`, CompetitionRunSchema)
		);
		expect(error.code).toBe('invalid-shape');
		expect(error.detail).toMatch(/^standardTime: /);
		expect(error.url).toBe(`${API}/competitionRuns/11`);
	});

	it('names the path of a bad item in a list', async () => {
		const bad = { ...competitionRunJson(12), startTime: '9:30' };
		const { fetch } = fakeFetch({
			[runsUrl]: pageJson(runsUrl, 'competitionRuns', [competitionRunJson(11), bad], {
				number: 0,
				size: 20,
				totalElements: 2
			})
		});
		const error = await apiError(
			client(fetch).getPage(runsUrl, 'competitionRuns', CompetitionRunSchema)
		);
		expect(error.code).toBe('invalid-shape');
		expect(error.detail).toMatch(/^_embedded\.competitionRuns\.1\.startTime: /);
	});

	it('refuses a resource without its self link as missing-link', async () => {
		const run = competitionRunJson();
		const { self: _self, ...links } = run._links;
		const { fetch } = fakeFetch({ [`${API}/competitionRuns/11`]: { ...run, _links: links } });
		const error = await apiError(
			client(fetch).get(`${API}/competitionRuns/11`, CompetitionRunSchema)
		);
		expect(error.code).toBe('missing-link');
		expect(error.detail).toMatch(/^_links\.self: /);
		expect(isRetryable(error)).toBe(true);
	});

	it('refuses a list item without _links as missing-link', async () => {
		const { _links: _gone, ...bare } = competitionJson();
		const listUrl = `${API}/competitions`;
		const { fetch } = fakeFetch({
			[listUrl]: pageJson(listUrl, 'competitions', [bare], {
				number: 0,
				size: 20,
				totalElements: 1
			})
		});
		const error = await apiError(client(fetch).listCompetitions());
		expect(error.code).toBe('missing-link');
		expect(error.detail).toMatch(/^_embedded\.competitions\.0\._links: /);
	});

	it('calls a missing self link together with a bad field invalid-shape', async () => {
		const run = competitionRunJson();
		const { self: _self, ...links } = run._links;
		const { fetch } = fakeFetch({
			[`${API}/competitionRuns/11`]: { ...run, progress: null, _links: links }
		});
		const error = await apiError(
			client(fetch).get(`${API}/competitionRuns/11`, CompetitionRunSchema)
		);
		expect(error.code).toBe('invalid-shape');
	});
});

describe('origin and address checks', () => {
	it.each([
		'https://evil.example/api/v1/competitionRuns/11',
		'http://127.0.0.1:4174/api/v1/competitionRuns/11',
		'https://127.0.0.1:4173/api/v1/competitionRuns/11',
		'http://localhost:4173/api/v1/competitionRuns/11',
		'//evil.example/api/v1/competitionRuns/11'
	])('refuses a link to another origin (%s) without sending a request', async (href) => {
		const { fetch, calls } = fakeFetch();
		const error = await apiError(client(fetch).get(href, CompetitionRunSchema));
		expect(error.code).toBe('foreign-origin');
		expect(calls).toHaveLength(0);
	});

	it("refuses a competition's foreign runs link before any request for it", async () => {
		const competition = competitionJson();
		const evil = {
			...competition,
			_links: { ...competition._links, competitionRuns: { href: 'https://evil.example/runs' } }
		};
		const { fetch, calls } = fakeFetch({ [`${API}/competitions/1`]: evil });
		const c = client(fetch);
		const { body } = await c.get(`${API}/competitions/1`, CompetitionSchema);
		const error = await apiError(
			c.getPage(
				requireLink(body._links, 'competitionRuns').href,
				'competitionRuns',
				CompetitionRunSchema
			)
		);
		expect(error.code).toBe('foreign-origin');
		expect(calls).toHaveLength(1);
	});

	it('refuses a templated href that was not expanded, without sending a request', async () => {
		const { fetch, calls } = fakeFetch();
		const error = await apiError(
			client(fetch).getPage(
				`${runsUrl}?judgeId=5{&ringId}`,
				'competitionRuns',
				CompetitionRunSchema
			)
		);
		expect(error).toMatchObject({ code: 'bad-address', detail: 'unexpanded URI template' });
		expect(calls).toHaveLength(0);
	});

	it('refuses an answer that was redirected to another origin', async () => {
		const { fetch, calls } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				redirectedTo(halResponse(competitionJson()), 'https://evil.example/api/v1/competitions/1')
		});
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({
			code: 'foreign-origin',
			url: 'https://evil.example/api/v1/competitions/1'
		});
		expect(calls).toHaveLength(1);
		expect(isRetryable(error)).toBe(true);
	});

	it('accepts a redirect within the origin and resolves links against where it ended', async () => {
		const run = { ...competitionRunJson(), _links: { self: { href: '11' } } };
		const { fetch } = fakeFetch({
			[`${API}/competitionRuns/11/`]: () =>
				redirectedTo(halResponse(run), `${API}/competitionRuns/11`)
		});
		const result = await client(fetch).get(`${API}/competitionRuns/11/`, CompetitionRunSchema);
		expect(result.url).toBe(`${API}/competitionRuns/11`);
		expect(result.body._links.self.href).toBe(`${API}/competitionRuns/11`);
	});
});

describe('time limit, aborting and network failures', () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it('gives up with timeout when no answer comes in time', async () => {
		const { fetch, calls } = hangingFetch();
		const started = Date.now();
		const error = await apiError(client(fetch, 50).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error).toMatchObject({ code: 'timeout', url: `${API}/competitions/1` });
		expect(Date.now() - started).toBeLessThan(2_000);
		expect(calls[0]?.init.signal?.aborted).toBe(true);
		expect(isRetryable(error)).toBe(true);
	});

	it('gives up with timeout when the body stops half way', async () => {
		const text = JSON.stringify(competitionJson());
		const stalled = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(new TextEncoder().encode(text.slice(0, 40)));
			}
		});
		const { fetch } = fakeFetch({
			[`${API}/competitions/1`]: () =>
				new Response(stalled, { headers: { 'Content-Type': 'application/prs.hal-forms+json' } })
		});
		const error = await apiError(client(fetch, 50).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.code).toBe('timeout');
	});

	it('gives up with timeout even when fetch ignores its signal', async () => {
		const fetch: FetchLike = () => new Promise<Response>(() => undefined);
		const error = await apiError(client(fetch, 50).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.code).toBe('timeout');
	});

	it('reports aborted when the caller aborts', async () => {
		const { fetch } = hangingFetch();
		const controller = new AbortController();
		const pending = client(fetch).get(`${API}/competitions/1`, CompetitionSchema, {
			signal: controller.signal
		});
		controller.abort();
		const error = await apiError(pending);
		expect(error.code).toBe('aborted');
		expect(isRetryable(error)).toBe(false);
	});

	it('sends nothing when the caller has already aborted', async () => {
		const { fetch, calls } = fakeFetch();
		const error = await apiError(
			client(fetch).get(`${API}/competitions/1`, CompetitionSchema, { signal: AbortSignal.abort() })
		);
		expect(error.code).toBe('aborted');
		expect(calls).toHaveLength(0);
	});

	it('reports network when fetch rejects, keeping the cause', async () => {
		const cause = new TypeError('fetch failed');
		const fetch: FetchLike = () => Promise.reject(cause);
		const error = await apiError(client(fetch).get(`${API}/competitions/1`, CompetitionSchema));
		expect(error.code).toBe('network');
		expect(error.cause).toBe(cause);
		expect(isRetryable(error)).toBe(true);
	});

	it('leaves no timer and no listener behind after an answer', async () => {
		vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
		const { fetch } = fakeFetch({ [`${API}/competitions/1`]: competitionJson() });
		const controller = new AbortController();
		const remove = vi.spyOn(controller.signal, 'removeEventListener');
		await client(fetch).get(`${API}/competitions/1`, CompetitionSchema, {
			signal: controller.signal
		});
		expect(vi.getTimerCount()).toBe(0);
		expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
	});
});

describe('updates', () => {
	const runUrl = `${API}/competitionRuns/11`;
	const dogRunUrl = `${API}/dogRuns/101`;

	it('sends a JSON PUT with If-Match and returns the updated competition run', async () => {
		const updated = { ...competitionRunJson(), trackLength: 185 };
		const { fetch, calls } = fakeFetch({
			[runUrl]: () => halResponse(updated, { headers: { ETag: '"v8"' } })
		});
		const result = await client(fetch).put(
			runUrl,
			{ trackLength: 185, standardTime: 38.5, maximalTime: 57.75 },
			CompetitionRunSchema,
			{ ifMatch: '"v7"' }
		);
		const call = calls[0];
		const headers = new Headers(call?.init.headers);
		expect(call?.init.method).toBe('PUT');
		expect(call?.init.redirect).toBe('manual');
		expect(headers.get('Content-Type')).toBe('application/json');
		expect(headers.get('Accept')).toBe(ACCEPT);
		expect(headers.get('If-Match')).toBe('"v7"');
		expect(JSON.parse(String(call?.init.body))).toEqual({
			trackLength: 185,
			standardTime: 38.5,
			maximalTime: 57.75
		});
		expect(result.status).toBe(200);
		expect(result.body?.trackLength).toBe(185);
		expect(result.etag).toBe('"v8"');
	});

	it('returns the updated dog run when the answer is one', async () => {
		const { fetch } = fakeFetch({ [dogRunUrl]: { ...dogRunJson(), time: 35.12, faults: 1 } });
		const result = await client(fetch).put(dogRunUrl, { time: 35.12, faults: 1 }, DogRunSchema);
		expect(result.body?.time).toBe(35.12);
		expect(result.body?.faults).toBe(1);
	});

	it('gives body undefined and the raw answer when a dog-run PUT returns a competition run', async () => {
		const { fetch } = fakeFetch({ [dogRunUrl]: competitionRunJson() });
		const result = await client(fetch).put(
			dogRunUrl,
			{ time: 35.12, refusals: 0, faults: 0, disqualified: false, absence: false },
			DogRunSchema
		);
		expect(result.status).toBe(200);
		expect(result.body).toBeUndefined();
		expect(result.raw).toMatchObject({ id: 11, name: 'Agility A3 Large' });
	});

	it('answers body undefined for 204 No Content', async () => {
		const { fetch } = fakeFetch({ [dogRunUrl]: () => new Response(null, { status: 204 }) });
		const result = await client(fetch).put(dogRunUrl, { absence: true }, DogRunSchema);
		expect(result).toMatchObject({ status: 204, body: undefined, raw: undefined });
	});

	it('throws the http error of a refused update', async () => {
		const { fetch } = fakeFetch({
			[dogRunUrl]: () =>
				halResponse(errorJson(400, 'Bad Request', 'faults must be >= 0', '/api/v1/dogRuns/101'), {
					status: 400
				})
		});
		const error = await apiError(client(fetch).put(dogRunUrl, { faults: -1 }, DogRunSchema));
		expect(error).toMatchObject({
			code: 'http',
			status: 400,
			serverMessage: 'faults must be >= 0'
		});
		expect(isRetryable(error)).toBe(false);
	});

	it('throws not-json for a 200 HTML answer to a PUT (it may not have reached the service)', async () => {
		const { fetch } = fakeFetch({
			[dogRunUrl]: () => new Response('<html></html>', { headers: { 'Content-Type': 'text/html' } })
		});
		const error = await apiError(client(fetch).put(dogRunUrl, { faults: 1 }, DogRunSchema));
		expect(error.code).toBe('not-json');
	});

	it('does not follow a redirect of an update', async () => {
		const { fetch, calls } = fakeFetch({
			[dogRunUrl]: () =>
				new Response(null, {
					status: 307,
					headers: { Location: 'https://evil.example/dogRuns/101' }
				})
		});
		const error = await apiError(client(fetch).put(dogRunUrl, { faults: 1 }, DogRunSchema));
		expect(error).toMatchObject({
			code: 'foreign-origin',
			status: 307,
			url: 'https://evil.example/dogRuns/101'
		});
		expect(calls).toHaveLength(1);
		// Kept and tried again later: the service may stop redirecting (a captive portal logs in).
		expect(isRetryable(error)).toBe(true);
	});

	it('refuses to update a resource on another origin without sending anything', async () => {
		const { fetch, calls } = fakeFetch();
		const error = await apiError(
			client(fetch).put('https://evil.example/api/v1/dogRuns/101', { faults: 1 }, DogRunSchema)
		);
		expect(error.code).toBe('foreign-origin');
		expect(calls).toHaveLength(0);
	});
});

describe('isJsonContentType', () => {
	it.each([
		['application/json', true],
		['application/json; charset=utf-8', true],
		['application/hal+json', true],
		['application/prs.hal-forms+json;charset=UTF-8', true],
		['application/problem+json', true],
		['text/html', false],
		['text/plain', false],
		['+json', false],
		['application/jsonp', false],
		['', false],
		[null, false]
	])('%j → %s', (type, expected) => {
		expect(isJsonContentType(type)).toBe(expected);
	});
});

describe('what each request tells the observer of the service', () => {
	const entry = `${API}/competitions`;
	function observed(fetch: FetchLike, timeoutMs?: number) {
		const contacts: Contact[] = [];
		const c = new HalClient({
			serviceUrl: SERVICE,
			fetch,
			timeoutMs,
			observe: (contact) => contacts.push(contact)
		});
		return { c, contacts };
	}

	it('the status of every answer, a refusal or a busy answer too, with its Retry-After', async () => {
		const { fetch } = fakeFetch({
			[entry]: pageJson(entry, 'competitions', [competitionJson(1)], {
				number: 0,
				size: 20,
				totalElements: 1
			}),
			[`${API}/competitions/2`]: () =>
				halResponse(errorJson(503, 'Service Unavailable', 'busy', '/x'), {
					status: 503,
					headers: { 'Retry-After': '7' }
				})
		});
		const { c, contacts } = observed(fetch);
		const before = Date.now();
		await c.getPage(entry, 'competitions', CompetitionSchema);
		await apiError(c.get(`${API}/competitions/2`, CompetitionSchema));
		await apiError(c.get(`${API}/competitions/3`, CompetitionSchema));
		expect(
			contacts.map(({ status, code, retryAfterMs }) => ({ status, code, retryAfterMs }))
		).toEqual([
			{ status: 200, code: undefined, retryAfterMs: undefined },
			{ status: 503, code: undefined, retryAfterMs: 7_000 },
			{ status: 404, code: undefined, retryAfterMs: undefined }
		]);
		for (const contact of contacts) {
			expect(contact.startedAt).toBeGreaterThanOrEqual(before);
			expect(contact.at).toBeGreaterThanOrEqual(contact.startedAt);
		}
	});

	it('a 304 to a conditional read, which is the answer, not a redirect', async () => {
		const { fetch } = fakeFetch({ [entry]: () => new Response(null, { status: 304 }) });
		const { c, contacts } = observed(fetch);
		expect(await c.getPageIfChanged(entry, 'competitions', CompetitionSchema, '"t"')).toBeNull();
		expect(contacts.map((x) => x.status)).toEqual([304]);
	});

	it('no answer at all, a time-out, a redirect and a page that is not JSON, each by its code', async () => {
		const down = observed(async () => {
			throw new TypeError('Failed to fetch');
		});
		await apiError(down.c.get(entry, CompetitionSchema));
		const hanging = observed(hangingFetch().fetch, 20);
		await apiError(hanging.c.get(entry, CompetitionSchema));
		const portal = observed(async () =>
			redirectedTo(
				new Response('<html>Sign in to the Wi-Fi</html>', {
					status: 200,
					headers: { 'Content-Type': 'text/html' }
				}),
				'http://portal.example/login'
			)
		);
		await apiError(portal.c.get(entry, CompetitionSchema));
		const page = observed(
			async () =>
				new Response('<html>Welcome</html>', {
					status: 200,
					headers: { 'Content-Type': 'text/html' }
				})
		);
		await apiError(page.c.get(entry, CompetitionSchema));
		expect(
			[down, hanging, portal, page].map(({ contacts }) => contacts.map((x) => x.code))
		).toEqual([['network'], ['timeout'], ['foreign-origin'], ['not-json']]);
	});

	it('nothing for a request the app cancelled, and an observer that throws breaks no request', async () => {
		const controller = new AbortController();
		const { c, contacts } = observed(hangingFetch().fetch);
		const pending = c.get(entry, CompetitionSchema, { signal: controller.signal });
		controller.abort();
		expect((await apiError(pending)).code).toBe('aborted');
		expect(contacts).toEqual([]);

		const { fetch } = fakeFetch({
			[entry]: pageJson(entry, 'competitions', [competitionJson(1)], {
				number: 0,
				size: 20,
				totalElements: 1
			})
		});
		const throwing = new HalClient({
			serviceUrl: SERVICE,
			fetch,
			observe: () => {
				throw new Error('observer');
			}
		});
		const page = await throwing.getPage(entry, 'competitions', CompetitionSchema);
		expect(page.items).toHaveLength(1);
	});
});
