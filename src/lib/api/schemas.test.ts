import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
	CompetitionListSchema,
	CompetitionRunSchema,
	CompetitionSchema,
	DogRunListSchema,
	DogRunSchema,
	ErrorBodySchema,
	LinksSchema,
	SelfLinksSchema
} from './schemas';
import {
	API,
	competitionJson,
	competitionRunJson,
	dogRunJson,
	errorJson,
	pageJson
} from './test-support';

function issuePaths(schema: v.GenericSchema, data: unknown): (string | null)[] {
	const result = v.safeParse(schema, data);
	return result.success ? [] : result.issues.map((issue) => v.getDotPath(issue));
}

describe('resource schemas', () => {
	it('accept the resources as the interface shows them', () => {
		expect(v.safeParse(CompetitionSchema, competitionJson()).success).toBe(true);
		expect(v.safeParse(CompetitionRunSchema, competitionRunJson()).success).toBe(true);
		expect(v.safeParse(DogRunSchema, dogRunJson()).success).toBe(true);
	});

	it('read decimals serialised with two or three fraction digits', () => {
		const text = JSON.stringify(competitionRunJson())
			.replace('"standardTime":38.5', '"standardTime":38.50')
			.replace('"maximalTime":57.75', '"maximalTime":57.750');
		expect(text).toContain('38.50');
		const run = v.parse(CompetitionRunSchema, JSON.parse(text));
		expect(run.standardTime).toBe(38.5);
		expect(run.maximalTime).toBe(57.75);
	});

	it('keep fields the interface does not list', () => {
		const run = v.parse(CompetitionRunSchema, { ...competitionRunJson(), sponsor: 'ACME' });
		expect(run.sponsor).toBe('ACME');
	});

	it('accept null details, fees, time and competitor country, and strings in their place', () => {
		const competition = v.parse(CompetitionSchema, {
			...competitionJson(),
			details: '# Welcome',
			fees: '20 EUR'
		});
		expect(competition.details).toBe('# Welcome');
		const dogRun = v.parse(DogRunSchema, { ...dogRunJson(), time: 35.12 });
		expect(dogRun.time).toBe(35.12);
		expect(dogRun.competitor.country).toBeNull();
	});

	it('accept a competition state they do not know', () => {
		expect(v.safeParse(CompetitionSchema, { ...competitionJson(), state: 'CLOSED' }).success).toBe(
			true
		);
	});

	it('refuse a number given as a string and name its path', () => {
		expect(
			issuePaths(CompetitionRunSchema, { ...competitionRunJson(), standardTime: '38.50' })
		).toEqual(['standardTime']);
	});

	it('refuse numbers that are not finite', () => {
		expect(
			issuePaths(CompetitionRunSchema, { ...competitionRunJson(), progress: Infinity })
		).toEqual(['progress']);
		expect(issuePaths(DogRunSchema, { ...dogRunJson(), time: Number.NaN })).toEqual(['time']);
	});

	it('refuse dates and times in other forms', () => {
		expect(
			issuePaths(CompetitionRunSchema, { ...competitionRunJson(), date: '10.05.2025' })
		).toEqual(['date']);
		expect(
			issuePaths(CompetitionRunSchema, { ...competitionRunJson(), startTime: '9:30' })
		).toEqual(['startTime']);
		expect(issuePaths(CompetitionSchema, { ...competitionJson(), dateTo: '2025-5-11' })).toEqual([
			'dateTo'
		]);
	});

	it('require the self link of a resource', () => {
		const run = competitionRunJson();
		const { self: _self, ...otherLinks } = run._links;
		expect(issuePaths(CompetitionRunSchema, { ...run, _links: otherLinks })).toEqual([
			'_links.self'
		]);
		const { _links: _all, ...noLinks } = dogRunJson();
		expect(issuePaths(DogRunSchema, noLinks)).toEqual(['_links']);
	});

	it('do not require links on judges, rings, or the run embedded in a dog run', () => {
		const dogRun = dogRunJson();
		const { _links: _runLinks, ...run } = dogRun.competitionRun;
		const { _links: _judgeLinks, ...judge } = run.judge;
		expect(
			v.safeParse(DogRunSchema, { ...dogRun, competitionRun: { ...run, judge } }).success
		).toBe(true);
	});
});

describe('links', () => {
	it('accept a relation holding an array of links', () => {
		const links = v.parse(LinksSchema, {
			competitionRuns: [
				{ href: `${API}/competitions/1/runs?judgeId=5{&ringId}`, templated: true, name: 'ring-2' },
				{ href: `${API}/competitions/1/runs?judgeId=5{&ringId}`, templated: true, name: 'ring-3' }
			]
		});
		expect(Array.isArray(links.competitionRuns)).toBe(true);
	});

	it('refuse a link without href', () => {
		expect(
			issuePaths(SelfLinksSchema, { self: { href: `${API}/x` }, next: { title: 'x' } })
		).toEqual(['next']);
	});

	it('keep unknown link properties (deprecation, profile, hreflang)', () => {
		const links = v.parse(SelfLinksSchema, { self: { href: `${API}/x`, profile: 'p' } });
		expect(links.self.profile).toBe('p');
	});
});

describe('paged list envelope', () => {
	it('holds the items of the named collection', () => {
		const list = v.parse(
			CompetitionListSchema,
			pageJson(`${API}/competitions`, 'competitions', [competitionJson(1), competitionJson(2)], {
				number: 0,
				size: 20,
				totalElements: 2
			})
		);
		expect(list._embedded?.competitions.map((c) => c.id)).toEqual([1, 2]);
	});

	it('accepts an empty list without _embedded', () => {
		const list = v.parse(
			DogRunListSchema,
			pageJson(`${API}/competitionRuns/11/dogRuns`, 'dogRuns', [], {
				number: 0,
				size: 20,
				totalElements: 0
			})
		);
		expect(list._embedded).toBeUndefined();
		expect(list.page).toEqual({ size: 20, totalElements: 0, totalPages: 0, number: 0 });
	});

	it('refuses a page that should hold items but has no _embedded', () => {
		const list = pageJson(`${API}/competitions`, 'competitions', [], {
			number: 0,
			size: 20,
			totalElements: 3
		});
		expect(issuePaths(CompetitionListSchema, list)).toEqual(['_embedded']);
	});

	it('refuses items under another collection name', () => {
		const list = pageJson(`${API}/competitions`, 'competitionList', [competitionJson()], {
			number: 0,
			size: 20,
			totalElements: 1
		});
		expect(issuePaths(CompetitionListSchema, list)).toEqual(['_embedded.competitions']);
	});

	it('names the path of a bad item', () => {
		const list = pageJson(
			`${API}/competitions`,
			'competitions',
			[competitionJson(1), { ...competitionJson(2), dateFrom: 20250510 }],
			{ number: 0, size: 20, totalElements: 2 }
		);
		expect(issuePaths(CompetitionListSchema, list)).toEqual(['_embedded.competitions.1.dateFrom']);
	});

	it('requires the page object', () => {
		const { page: _page, ...list } = pageJson(`${API}/competitions`, 'competitions', [], {
			number: 0,
			size: 20,
			totalElements: 0
		});
		expect(issuePaths(CompetitionListSchema, list)).toEqual(['page']);
	});
});

describe('error object', () => {
	it('reads the whole object of section 7', () => {
		const body = v.parse(
			ErrorBodySchema,
			errorJson(400, 'Bad Request', 'Invalid dateFrom', '/api/v1/competitions')
		);
		expect(body.traceId).toBe('6f1c2a9e4b7d3f10');
	});

	it('needs only status and message', () => {
		expect(v.safeParse(ErrorBodySchema, { status: 500, message: 'boom' }).success).toBe(true);
		expect(v.safeParse(ErrorBodySchema, { status: 500 }).success).toBe(false);
	});
});
