import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import {
	expandLink,
	findLink,
	linkHref,
	requireLink,
	resolveHref,
	resolveLinks,
	type LinkMap
} from './links';
import { API, competitionJson, judgeJson, ringJson } from './test-support';

const judgeRuns = judgeJson(5, 1)._links.competitionRuns;

describe('findLink and linkHref', () => {
	const links: LinkMap = {
		self: { href: `${API}/competitions/1` },
		competitionRuns: [
			{ href: `${API}/competitions/1/runs?judgeId=5{&ringId}`, templated: true, name: 'judge' },
			{ href: `${API}/competitions/1/runs?ringId=2{&judgeId}`, templated: true, name: 'ring' }
		]
	};

	it('gives the one link of a relation', () => {
		expect(linkHref(links, 'self')).toBe(`${API}/competitions/1`);
	});

	it('gives the first link of an array', () => {
		expect(linkHref(links, 'competitionRuns')).toBe(
			`${API}/competitions/1/runs?judgeId=5{&ringId}`
		);
	});

	it('gives the link with the matching name', () => {
		expect(findLink(links, 'competitionRuns', { name: 'ring' })?.href).toBe(
			`${API}/competitions/1/runs?ringId=2{&judgeId}`
		);
	});

	it('gives undefined for a missing relation, an unknown name, an empty array or no links', () => {
		expect(linkHref(links, 'next')).toBeUndefined();
		expect(linkHref(links, 'competitionRuns', { name: 'dog' })).toBeUndefined();
		expect(linkHref({ items: [] }, 'items')).toBeUndefined();
		expect(linkHref(undefined, 'self')).toBeUndefined();
	});

	it('matches a name on a single link too', () => {
		const named: LinkMap = { self: { href: 'a', name: 'x' } };
		expect(linkHref(named, 'self', { name: 'x' })).toBe('a');
		expect(linkHref(named, 'self', { name: 'y' })).toBeUndefined();
	});
});

describe('requireLink', () => {
	it('gives the link when it is there', () => {
		expect(requireLink(competitionJson()._links, 'competitionRuns').href).toBe(
			`${API}/competitions/1/runs`
		);
	});

	it('throws missing-link naming the relation', () => {
		const error = (() => {
			try {
				requireLink(competitionJson()._links, 'dogRuns');
			} catch (e) {
				return e;
			}
		})();
		expect(error).toBeInstanceOf(ApiError);
		expect(error).toMatchObject({ code: 'missing-link', detail: 'dogRuns' });
	});

	it('throws missing-link when a judge carries no links at all', () => {
		expect(() => requireLink(undefined, 'competitionRuns')).toThrow(
			expect.objectContaining({ code: 'missing-link' })
		);
	});
});

describe('expandLink', () => {
	it("expands a judge's runs link with a ring", () => {
		expect(expandLink(judgeRuns, { ringId: 2 })).toBe(
			`${API}/competitions/1/runs?judgeId=5&ringId=2`
		);
	});

	it("expands a judge's runs link without a ring, dropping the optional part", () => {
		expect(expandLink(judgeRuns)).toBe(`${API}/competitions/1/runs?judgeId=5`);
		expect(expandLink(judgeRuns, { ringId: undefined })).toBe(
			`${API}/competitions/1/runs?judgeId=5`
		);
	});

	it("expands a ring's runs link with a judge", () => {
		expect(expandLink(ringJson(2, 1)._links.competitionRuns, { judgeId: 5 })).toBe(
			`${API}/competitions/1/runs?ringId=2&judgeId=5`
		);
	});

	it('percent-encodes values', () => {
		const link = { href: `${API}/competitions{?state}`, templated: true };
		expect(expandLink(link, { state: 'IN PROGRESS&x' })).toBe(
			`${API}/competitions?state=IN%20PROGRESS%26x`
		);
	});

	it('returns a link that is not templated as it is', () => {
		const link = { href: `${API}/competitions/1/nextDogRunsForRing/2` };
		expect(expandLink(link, { ringId: 3 })).toBe(link.href);
	});

	it('resolves a relative result against a base', () => {
		const link = { href: 'runs?judgeId=5{&ringId}', templated: true };
		expect(expandLink(link, { ringId: 2 }, `${API}/competitions/1`)).toBe(
			`${API}/competitions/runs?judgeId=5&ringId=2`
		);
		expect(expandLink({ href: '/api/v1/dogRuns/7' }, {}, `${API}/competitions/1`)).toBe(
			`${API}/dogRuns/7`
		);
	});
});

describe('resolveHref', () => {
	const doc = `${API}/competitions/1`;

	it('resolves a path-absolute href against the document', () => {
		expect(resolveHref('/api/v1/competitionRuns/11', doc)).toBe(`${API}/competitionRuns/11`);
	});

	it('resolves a path-relative href against the document', () => {
		expect(resolveHref('1/runs', `${API}/competitions/`)).toBe(`${API}/competitions/1/runs`);
		expect(resolveHref('?page=1&size=20', `${API}/competitions?page=0&size=20`)).toBe(
			`${API}/competitions?page=1&size=20`
		);
	});

	it('keeps a relative template a template', () => {
		expect(resolveHref('/api/v1/competitions/1/runs?judgeId=5{&ringId}', doc)).toBe(
			`${API}/competitions/1/runs?judgeId=5{&ringId}`
		);
	});

	it('leaves a template starting with an expression alone', () => {
		expect(resolveHref('{+base}/runs', doc)).toBe('{+base}/runs');
	});

	it('leaves absolute hrefs exactly as they are', () => {
		fc.assert(
			fc.property(fc.webUrl(), (url) => {
				expect(resolveHref(url, doc)).toBe(url);
			}),
			{ numRuns: 30 }
		);
	});
});

describe('resolveLinks', () => {
	it('makes every link absolute, embedded resources and link arrays included', () => {
		const doc = {
			_embedded: {
				competitions: [
					{
						id: 1,
						judges: [
							{
								_links: {
									competitionRuns: [{ href: '/api/v1/competitions/1/runs?judgeId=5{&ringId}' }]
								}
							}
						],
						_links: { self: { href: '/api/v1/competitions/1' } }
					}
				]
			},
			_links: { self: { href: '?page=0&size=20' }, next: { href: 'http://other.example/x' } }
		};
		resolveLinks(doc, `${API}/competitions`);
		expect(doc._links.self.href).toBe(`${API}/competitions?page=0&size=20`);
		expect(doc._links.next.href).toBe('http://other.example/x');
		const competition = doc._embedded.competitions[0];
		expect(competition?._links.self.href).toBe(`${API}/competitions/1`);
		expect(competition?.judges[0]?._links.competitionRuns[0]?.href).toBe(
			`${API}/competitions/1/runs?judgeId=5{&ringId}`
		);
	});

	it('leaves malformed links for the schema to report', () => {
		const doc = { _links: { self: { href: 42 }, next: 'x', last: null } };
		resolveLinks(doc, API);
		expect(doc).toEqual({ _links: { self: { href: 42 }, next: 'x', last: null } });
	});
});
