// Property-based tests at the HTTP boundary (fast-check): arbitrary PUT bodies and list queries
// against small reference predicates written from the rules in docs/service.md.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from './seed/dates.ts';
import {
	call,
	startSmall,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type ErrorJson,
	type JsonAnswer,
	type RunJson,
	type RunList,
	type Started
} from './test-support.ts';

let s: Started;
let competitions: CompetitionJson[]; // every competition, in the documented order
let dogRunHref: string;
let runHref: string;

beforeAll(async () => {
	s = await startSmall();
	competitions = (await call<CompetitionList>(`${s.entry}?size=2000`)).body._embedded!.competitions;
	const inProgress = competitions.find((c) => c.state === 'IN_PROGRESS')!;
	const runs = await call<RunList>(inProgress._links.competitionRuns.href);
	const run = runs.body._embedded!.competitionRuns[1]!;
	runHref = run._links.self.href;
	const dogs = await call<{ _embedded: { dogRuns: DogRunJson[] } }>(run._links.dogRuns.href);
	dogRunHref = dogs.body._embedded.dogRuns[0]!._links.self.href;
});

afterAll(async () => {
	await s.svc.close();
});

// ---- reference rules (docs/service.md, "Validation of PUT bodies" and "Filters") -------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Fraction digits of the shortest decimal that reads back as this number (1e-7 has 7). */
function fractionDigits(x: number): number {
	const m = /^-?\d+(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x));
	if (!m) return Infinity;
	return Math.max(0, (m[1]?.length ?? 0) - Number(m[2] ?? 0));
}

const isJsonObject = (v: Json): v is JsonObject =>
	v !== null && typeof v === 'object' && !Array.isArray(v);

const decimalIn = (v: Json, max: number, digits: number): boolean =>
	typeof v === 'number' && v > 0 && v <= max && fractionDigits(v) <= digits;

const countIn = (v: Json): boolean =>
	typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 99;

function fieldsOk(body: JsonObject, rules: Record<string, (v: Json) => boolean>): boolean {
	const keys = Object.keys(body);
	if (keys.length === 0) return false;
	return keys.every((k) => Object.hasOwn(rules, k) && rules[k]!(body[k]!));
}

const DOG_RUN_RULES: Record<string, (v: Json) => boolean> = {
	time: (v) => v === null || decimalIn(v, 999.99, 2),
	refusals: countIn,
	faults: countIn,
	disqualified: (v) => typeof v === 'boolean',
	absence: (v) => typeof v === 'boolean'
};

const RUN_RULES: Record<string, (v: Json) => boolean> = {
	trackLength: (v) => decimalIn(v, 2000, 2),
	standardTime: (v) => decimalIn(v, 999.999, 3),
	maximalTime: (v) => decimalIn(v, 999.999, 3)
};

function dogRunBodyValid(body: Json): body is JsonObject {
	return isJsonObject(body) && fieldsOk(body, DOG_RUN_RULES);
}

function runBodyValid(body: Json, before: RunJson): body is JsonObject {
	if (!isJsonObject(body) || !fieldsOk(body, RUN_RULES)) return false;
	const st = typeof body.standardTime === 'number' ? body.standardTime : before.standardTime;
	const mt = typeof body.maximalTime === 'number' ? body.maximalTime : before.maximalTime;
	return mt >= st;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function calendarDate(v: string): boolean {
	if (v.length !== 10 || v[4] !== '-' || v[7] !== '-') return false;
	const parts = [v.slice(0, 4), v.slice(5, 7), v.slice(8, 10)];
	if (!parts.every((p) => [...p].every((c) => c >= '0' && c <= '9'))) return false;
	const [y, m, d] = parts.map(Number) as [number, number, number];
	if (m < 1 || m > 12) return false;
	const days = m === 2 && isLeap(y) ? 29 : MONTH_DAYS[m - 1]!;
	return d >= 1 && d <= days;
}

const digitsOnly = (v: string): boolean => /^[0-9]+$/.test(v);

// ---- generators --------------------------------------------------------------------------

const numbers = fc.oneof(
	fc.integer({ min: -10, max: 2100 }),
	fc.integer({ min: -1000, max: 210_000 }).map((n) => n / 100),
	fc.integer({ min: -1000, max: 1_100_000 }).map((n) => n / 1000),
	fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 10_000),
	fc.integer({ min: 1, max: 99_999 }).map((n) => n / 100 + 1e-9),
	fc.double({ min: -10, max: 2100, noNaN: true }),
	fc.double({ noNaN: true }),
	fc.constantFrom(
		0,
		1e-7,
		0.001,
		0.01,
		38.630000000000003,
		99,
		100,
		999.99,
		999.991,
		999.999,
		1000,
		2000,
		2000.01,
		2 ** 53 + 2,
		1e21,
		-1e300,
		Number.MAX_VALUE,
		Number.MIN_VALUE
	)
);

const leaf: fc.Arbitrary<Json> = fc.oneof(
	{ weight: 8, arbitrary: numbers },
	{ weight: 2, arbitrary: fc.boolean() },
	{ weight: 2, arbitrary: fc.constant(null) },
	{ weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
	{ weight: 1, arbitrary: fc.constantFrom('12.5', '3', 'true', '', '38,63') },
	{ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> }
);

/** Values the documented rules accept, per field, so that valid bodies are common too. */
const VALID: Record<string, fc.Arbitrary<Json>> = {
	time: fc.oneof(
		fc.constant(null),
		fc.integer({ min: 1, max: 99_999 }).map((n) => n / 100)
	),
	refusals: fc.integer({ min: 0, max: 99 }),
	faults: fc.integer({ min: 0, max: 99 }),
	disqualified: fc.boolean(),
	absence: fc.boolean(),
	trackLength: fc.integer({ min: 1, max: 200_000 }).map((n) => n / 100),
	standardTime: fc.integer({ min: 1, max: 120_000 }).map((n) => n / 1000),
	maximalTime: fc.integer({ min: 20_000, max: 999_999 }).map((n) => n / 1000)
};

function bodies(known: readonly string[]): fc.Arbitrary<Json> {
	const model: Record<string, fc.Arbitrary<Json>> = {};
	for (const k of known) {
		model[k] = fc.oneof({ weight: 4, arbitrary: VALID[k] ?? leaf }, { weight: 1, arbitrary: leaf });
	}
	const knownOnly = fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<JsonObject>;
	const unknownKey = fc
		.oneof(
			fc.string({ maxLength: 8 }),
			fc.constantFrom('__proto__', 'constructor', 'toString', 'id', 'Time', 'faults ', 'version')
		)
		.filter((k) => !known.includes(k));
	const withUnknown = fc
		.tuple(knownOnly, fc.dictionary(unknownKey, leaf, { minKeys: 1, maxKeys: 2 }))
		.map(([a, b]) => ({ ...a, ...b }) as JsonObject);
	return fc.oneof(
		{ weight: 12, arbitrary: knownOnly },
		{ weight: 2, arbitrary: withUnknown },
		{ weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> }
	);
}

/** A request body text: mostly JSON of a generated value, sometimes arbitrary text. */
const bodyText = (known: readonly string[]): fc.Arbitrary<string> =>
	fc.oneof(
		{ weight: 12, arbitrary: bodies(known).map((v) => JSON.stringify(v)) },
		{ weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
		{ weight: 1, arbitrary: fc.constantFrom('', '{', '{"faults":1}{', 'null', '[]', '{"a":01}') }
	);

/** The body as the service parses it, or undefined when it is not JSON. */
function wireValue(text: string): Json | undefined {
	try {
		return JSON.parse(text) as Json;
	} catch {
		return undefined;
	}
}

// ---- checks --------------------------------------------------------------------------------

function expectErrorObject(a: JsonAnswer<ErrorJson>, status: number, path: string): void {
	expect(a.res.headers.get('content-type')).toBe('application/hal+json');
	expect(Object.keys(a.body).sort()).toEqual(
		['error', 'message', 'path', 'status', 'timestamp', 'traceId'].sort()
	);
	expect(a.body).toMatchObject({ status, path });
	expect(typeof a.body.error).toBe('string');
	expect(a.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
	expect(a.body.traceId).toMatch(/^[0-9a-f]{32}$/);
	expect(a.body.message).not.toMatch(/\n\s+at |SQLITE_/);
}

const putText = <T>(href: string, text: string): Promise<JsonAnswer<T>> =>
	call<T>(href, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: text });

/** A dog run without the derived `progress` of its embedded run. */
function withoutProgress(d: DogRunJson): unknown {
	const { progress: _progress, ...run } = d.competitionRun;
	return { ...d, competitionRun: run };
}

describe('PUT bodies (property-based)', () => {
	it('dog runs: 200 exactly for documented-valid bodies (merged), otherwise 400 and no change', async () => {
		const path = new URL(dogRunHref).pathname;
		const seen = { 200: 0, 400: 0 };
		await fc.assert(
			fc.asyncProperty(bodyText(Object.keys(DOG_RUN_RULES)), async (text) => {
				const before = await call<DogRunJson>(dogRunHref);
				const a = await putText<DogRunJson & ErrorJson>(dogRunHref, text);
				expect([200, 400]).toContain(a.status);
				seen[a.status as 200 | 400]++;
				const after = await call<DogRunJson>(dogRunHref);
				const value = wireValue(text);
				const valid = value !== undefined && dogRunBodyValid(value);
				expect(a.status).toBe(valid ? 200 : 400);
				if (value !== undefined && dogRunBodyValid(value)) {
					expect(a.res.headers.get('content-type')).toBe('application/prs.hal-forms+json');
					expect(a.body).toEqual(after.body);
					expect(withoutProgress(after.body)).toEqual(
						withoutProgress({ ...before.body, ...value } as DogRunJson)
					);
				} else {
					expectErrorObject(a, 400, path);
					expect(after.text).toBe(before.text);
				}
			}),
			{ numRuns: 200 }
		);
		// Both outcomes are well represented (guards against generators drifting to one side).
		expect(seen[200]).toBeGreaterThanOrEqual(20);
		expect(seen[400]).toBeGreaterThanOrEqual(20);
	}, 20000);

	it('competition runs: same, including maximalTime >= standardTime after merging', async () => {
		const path = new URL(runHref).pathname;
		const seen = { 200: 0, 400: 0 };
		await fc.assert(
			fc.asyncProperty(bodyText(Object.keys(RUN_RULES)), async (text) => {
				const before = await call<RunJson>(runHref);
				const a = await putText<RunJson & ErrorJson>(runHref, text);
				expect([200, 400]).toContain(a.status);
				seen[a.status as 200 | 400]++;
				const after = await call<RunJson>(runHref);
				const value = wireValue(text);
				const valid = value !== undefined && runBodyValid(value, before.body);
				expect(a.status).toBe(valid ? 200 : 400);
				if (value !== undefined && runBodyValid(value, before.body)) {
					expect(a.body).toEqual(after.body);
					expect(after.body).toEqual({ ...before.body, ...value });
				} else {
					expectErrorObject(a, 400, path);
					expect(after.text).toBe(before.text);
				}
			}),
			{ numRuns: 200 }
		);
		// Both outcomes are well represented (guards against generators drifting to one side).
		expect(seen[200]).toBeGreaterThanOrEqual(20);
		expect(seen[400]).toBeGreaterThanOrEqual(20);
	}, 20000);
});

describe('competition list query (property-based)', () => {
	/** Dates around the seeded competitions' own dates, so that filters cut between them. */
	const nearDate = (): fc.Arbitrary<string> =>
		fc
			.tuple(
				fc.constantFrom(...competitions.flatMap((c) => [c.dateFrom, c.dateTo])),
				fc.integer({ min: -2, max: 2 })
			)
			.map(([d, n]) => addDays(d, n));
	const dateLike = fc
		.tuple(
			fc.integer({ min: 0, max: 9999 }),
			fc.integer({ min: 0, max: 13 }),
			fc.integer({ min: 0, max: 32 })
		)
		.map(
			([y, m, d]) =>
				`${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
		);
	const date = (): fc.Arbitrary<string> =>
		fc.oneof(
			{ weight: 8, arbitrary: nearDate() },
			{ weight: 2, arbitrary: dateLike },
			{
				weight: 1,
				arbitrary: fc.constantFrom('0000-02-29', '1900-02-29', '2000-02-29', '2026-5-1')
			},
			{ weight: 1, arbitrary: fc.string({ maxLength: 12 }) }
		);
	const numberText = fc.oneof(
		{ weight: 8, arbitrary: fc.nat({ max: 2 }).map(String) },
		{ weight: 1, arbitrary: fc.nat().map(String) },
		{
			weight: 1,
			arbitrary: fc.constantFrom('0000000001', '999999999', '1000000000', '9'.repeat(30))
		},
		{ weight: 1, arbitrary: fc.constantFrom('-1', '1.5', ' 1', '+1', '0x10', '1e3', '', '٣') },
		{ weight: 1, arbitrary: fc.string({ maxLength: 5 }) }
	);
	const state = fc.oneof(
		{ weight: 4, arbitrary: fc.constantFrom('NEW', 'IN_PROGRESS') },
		{ weight: 1, arbitrary: fc.constantFrom('new', 'FINISHED', '') },
		{ weight: 1, arbitrary: fc.string({ maxLength: 6 }) }
	);

	it('answers 200 with exactly the documented page of matches, or 400 with the error object', async () => {
		const query = fc.record(
			{ dateFrom: date(), dateTo: date(), state, page: numberText, size: numberText },
			{ requiredKeys: [] }
		);
		const seen = { 200: 0, 400: 0, nonEmpty: 0 };
		await fc.assert(
			fc.asyncProperty(query, async (q) => {
				const search = new URLSearchParams();
				for (const [k, v] of Object.entries(q)) if (v !== undefined) search.append(k, v);
				// What the service reads (URL encoding turns lone surrogates into U+FFFD).
				const sent = new URLSearchParams(search.toString());
				const get = (k: string): string | undefined => sent.get(k) ?? undefined;
				const [dateFrom, dateTo, st, page, size] = [
					get('dateFrom'),
					get('dateTo'),
					get('state'),
					get('page'),
					get('size')
				];
				const valid =
					(dateFrom === undefined || calendarDate(dateFrom)) &&
					(dateTo === undefined || calendarDate(dateTo)) &&
					(page === undefined || (digitsOnly(page) && Number(page) <= 999_999_999)) &&
					(size === undefined || (digitsOnly(size) && Number(size) >= 1));
				const a = await call<CompetitionList & ErrorJson>(`${s.entry}?${search.toString()}`);
				expect([200, 400]).toContain(a.status);
				expect(a.status).toBe(valid ? 200 : 400);
				seen[a.status as 200 | 400]++;
				if (a.status === 400) {
					expectErrorObject(a, 400, '/api/v1/competitions');
					return;
				}
				const matches = competitions.filter(
					(c) =>
						(dateFrom === undefined || c.dateFrom >= dateFrom) &&
						(dateTo === undefined || c.dateTo <= dateTo) &&
						(st === undefined || c.state === st)
				);
				const pageNo = page === undefined ? 0 : Number(page);
				const pageSize = size === undefined ? 20 : Math.min(Number(size), 2000);
				const expected = matches.slice(pageNo * pageSize, (pageNo + 1) * pageSize);
				expect(a.body.page).toEqual({
					size: pageSize,
					totalElements: matches.length,
					totalPages: Math.ceil(matches.length / pageSize),
					number: pageNo
				});
				expect((a.body._embedded?.competitions ?? []).map((c) => c.id)).toEqual(
					expected.map((c) => c.id)
				);
				if (expected.length > 0 && expected.length < competitions.length) seen.nonEmpty++;
			}),
			{ numRuns: 300 }
		);
		expect(seen[200]).toBeGreaterThanOrEqual(30);
		expect(seen[400]).toBeGreaterThanOrEqual(30);
		// Filters that keep some but not all competitions.
		expect(seen.nonEmpty).toBeGreaterThanOrEqual(10);
	}, 20000);
});
