// The deterministic seed generator: one seeded dice and small steps (lookups, competitors, dogs,
// then per event its competition, rings, planned and scheduled runs, start lists and results).
//
// Long because the events' specifications and the steps draw from one dice in one order: moving a
// step elsewhere is easy, but each seed's data depends on that order staying as it is.
import { SEED_TABLES, type SeedRows, type SeedTable } from '../store/seed-tables.ts';
import type { SqlValue } from '../store/sql.ts';
import { addDays } from './dates.ts';
import {
	CZ_FEMALE,
	CZ_MALE,
	CZ_SURNAMES,
	DOG_NAMES,
	FOREIGN,
	FOREIGN_COUNTRIES,
	JUDGES,
	KENNELS
} from './seed-names.ts';

export type SeedSize = 'small' | 'realistic' | 'stress';
export const SEED_SIZES: readonly SeedSize[] = ['small', 'realistic', 'stress'];

export interface SeedSummary {
	size: SeedSize;
	seedDate: string;
	competitions: number;
	competitionRuns: number;
	dogRuns: number;
	dogs: number;
	competitors: number;
	ms: number;
}

/** Deterministic PRNG (mulberry32). */
export function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const LEVELS = ['A1', 'A2', 'A3'] as const;
const SIZES = ['Small', 'Medium', 'Intermediate', 'Large'] as const;
// ids: level index + 1, size index + 1
const [A1, A2, A3] = [0, 1, 2];
const [S, M, I, L] = [0, 1, 2, 3];

interface GroupSpec {
	level: number;
	size: number;
	teams: number;
	rounds: number;
}

interface EventSpec {
	name: string;
	state: string;
	dayOffset: number;
	days: number;
	rings: number;
	judges: number[];
	groups: GroupSpec[];
	participation: [number, number];
	live: boolean;
	details: string | null;
	fees: string | null;
}

function g(level: number, size: number, teams: number, rounds: number): GroupSpec {
	return { level, size, teams, rounds };
}

const REALISTIC_GROUPS: GroupSpec[] = [
	g(A3, L, 215, 3),
	g(A3, S, 130, 3),
	g(A3, M, 115, 3),
	g(A3, I, 105, 3),
	g(A2, L, 120, 3),
	g(A2, S, 105, 3),
	g(A2, M, 40, 3),
	g(A2, I, 32, 2),
	g(A1, L, 110, 3),
	g(A1, S, 35, 3),
	g(A1, M, 20, 2),
	g(A1, I, 15, 2)
];

const NEW_DETAILS = `## Velká cena Moravy

Two days of **A1–A3** agility and jumping on grass, two rings.

- Course walk 10 minutes before each run
- Results are published live
- Camping next to the grounds`;

const NEW_FEES = `| Entry | Fee |
|---|---|
| First run | 450 CZK |
| Each further run | 350 CZK |

Payment by bank transfer by the entry deadline.`;

function eventsFor(size: SeedSize, year: string): EventSpec[] {
	const newEvent = (groups: GroupSpec[]): EventSpec => ({
		name: `Velká cena Moravy ${year}`,
		state: 'NEW',
		dayOffset: 21,
		days: 2,
		rings: 2,
		judges: [6, 7, 0, 2],
		groups,
		participation: [0.9, 0.99],
		live: false,
		details: NEW_DETAILS,
		fees: NEW_FEES
	});
	const club = (groups: GroupSpec[]): EventSpec => ({
		name: 'Klubové závody ZKO Praha-Troja',
		state: 'NEW',
		dayOffset: 35,
		days: 1,
		rings: 1,
		judges: [10, 1],
		groups,
		participation: [0.9, 0.99],
		live: false,
		details: null,
		fees: null
	});
	if (size === 'small') {
		return [
			{
				name: `Czech Agility Open ${year}`,
				state: 'IN_PROGRESS',
				dayOffset: -1,
				days: 3,
				rings: 2,
				judges: [0, 2, 3],
				groups: [g(A3, L, 34, 2), g(A2, M, 18, 2), g(A1, S, 15, 2)],
				participation: [0.93, 0.97],
				live: true,
				details: null,
				fees: null
			},
			newEvent([g(A3, L, 20, 2)]),
			club([g(A1, L, 14, 1)])
		];
	}
	const main: EventSpec = {
		name: `Czech Agility Open ${year}`,
		state: 'IN_PROGRESS',
		dayOffset: -1,
		days: 3,
		rings: 3,
		judges: [0, 1, 2, 3, 4, 5],
		groups: REALISTIC_GROUPS,
		participation: [0.9, 0.99],
		live: true,
		details: null,
		fees: null
	};
	if (size === 'stress') {
		main.name = `Agility World Open ${year}`;
		main.dayOffset = -2;
		main.days = 5;
		main.rings = 10;
		main.judges = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
		main.groups = REALISTIC_GROUPS.map((x) => ({
			...x,
			teams: Math.round(x.teams * 2.4),
			rounds: 5
		}));
	}
	return [
		main,
		newEvent([
			g(A3, L, 60, 2),
			g(A3, S, 40, 2),
			g(A3, M, 30, 2),
			g(A3, I, 25, 2),
			g(A2, L, 35, 2),
			g(A2, S, 25, 2),
			g(A1, L, 30, 2)
		]),
		club([g(A1, L, 16, 2), g(A2, S, 15, 2), g(A3, L, 22, 2)])
	];
}

interface PlannedRun {
	group: GroupSpec;
	name: string;
	day: number;
	round: number;
	entries: number[]; // dog ids in start order
	ring: number;
	startSec: number;
	trackLength: number;
	sctMs: number;
	mctMs: number;
}

const SEEDS: Record<SeedSize, number> = { small: 1001, realistic: 2026, stress: 12000 };

const hhmmss = (sec: number): string => {
	const p = (n: number): string => String(n).padStart(2, '0');
	return `${p(Math.floor(sec / 3600))}:${p(Math.floor((sec % 3600) / 60))}:${p(sec % 60)}`;
};

// ---- randomness -------------------------------------------------------------------------------

/** The seeded dice every step draws from, in one fixed order (which fixes the data). */
interface Dice {
	/** A number in [0, 1). */
	random(): number;
	/** An integer in [min, max]. */
	int(min: number, max: number): number;
	pick<T>(arr: readonly T[]): T;
	/** A number in [a, b). */
	between(a: number, b: number): number;
	/** The index of the first cumulative share above a draw (the last one if none is). */
	weighted(cum: number[]): number;
	/** Shuffles `arr` in place (Fisher–Yates) and returns it. */
	shuffle<T>(arr: T[]): T[];
}

function createDice(seed: number): Dice {
	const random = mulberry32(seed);
	return {
		random,
		int: (min, max) => min + Math.floor(random() * (max - min + 1)),
		pick: <T>(arr: readonly T[]): T => arr[Math.floor(random() * arr.length)] as T,
		between: (a, b) => a + random() * (b - a),
		weighted(cum) {
			const r = random();
			const i = cum.findIndex((c) => r < c);
			return i < 0 ? cum.length - 1 : i;
		},
		shuffle<T>(arr: T[]): T[] {
			for (let i = arr.length - 1; i > 0; i--) {
				const j = Math.floor(random() * (i + 1));
				const tmp = arr[i] as T;
				arr[i] = arr[j] as T;
				arr[j] = tmp;
			}
			return arr;
		}
	};
}

// ---- inserts ----------------------------------------------------------------------------------

/** Collects the rows; `ins.dog.run(…)` adds a row to `dog`. */
function collectInserts(rows: SeedRows) {
	const sink = (t: SeedTable) => ({
		run: (...values: SqlValue[]): void => {
			rows[t].push(values);
		}
	});
	return {
		level: sink('level'),
		runLevel: sink('runLevel'),
		size: sink('size'),
		judge: sink('judge'),
		competition: sink('competition'),
		compJudge: sink('compJudge'),
		ring: sink('ring'),
		competitor: sink('competitor'),
		dog: sink('dog'),
		run: sink('run'),
		dogRun: sink('dogRun')
	};
}

type Inserts = ReturnType<typeof collectInserts>;

/** What the steps of one seeding share. */
interface Seeding {
	dice: Dice;
	ins: Inserts;
	seedDate: string;
	/** Dog ids per `level/size` pool. */
	pools: Map<string, number[]>;
	/** The competitor (owner) of each dog. */
	competitorOf: Map<number, number>;
	/** The last ids used; also how many rows there are. */
	last: { ring: number; run: number; dogRun: number };
}

// ---- the people and dogs ----------------------------------------------------------------------

/** How many dogs each `level/size` pool needs: as many as the largest event needs. */
function dogPoolSizes(events: EventSpec[]): Map<string, number> {
	const poolSize = new Map<string, number>();
	for (const gr of events.flatMap((e) => e.groups)) {
		const k = `${gr.level}/${gr.size}`;
		poolSize.set(k, Math.max(poolSize.get(k) ?? 0, gr.teams));
	}
	return poolSize;
}

function createLookups(ins: Inserts): void {
	LEVELS.forEach((n, i) => {
		ins.level.run(i + 1, n);
		ins.runLevel.run(i + 1, n);
	});
	SIZES.forEach((n, i) => ins.size.run(i + 1, n));
	JUDGES.forEach(([f, l, c], i) => ins.judge.run(i + 1, f, l, c));
}

function createCompetitors(ins: Inserts, dice: Dice, count: number): void {
	for (let id = 1; id <= count; id++) {
		const foreign = dice.random() < 0.2;
		const female = dice.random() < 0.7;
		const c = foreign ? foreignCompetitor(dice, female) : czechCompetitor(dice, female);
		const country = dice.random() < 0.1 ? null : c.country;
		ins.competitor.run(id, c.first, c.last, c.identifier, country);
	}
}

interface CompetitorDraw {
	first: string;
	last: string;
	identifier: string;
	country: string;
}

function foreignCompetitor(dice: Dice, female: boolean): CompetitorDraw {
	const country = dice.pick(FOREIGN_COUNTRIES);
	const [ff, mf, fl, ml] = FOREIGN[country] as [string[], string[], string[], string[]];
	const first = dice.pick(female ? ff : mf);
	const last = dice.pick(female ? fl : ml);
	const identifier = `${country}-${String(dice.int(100000, 999999))}`;
	return { first, last, identifier, country };
}

function czechCompetitor(dice: Dice, female: boolean): CompetitorDraw {
	const pair = dice.pick(CZ_SURNAMES);
	const first = dice.pick(female ? CZ_FEMALE : CZ_MALE);
	const last = female ? pair[1] : pair[0];
	const identifier = `CZ-KA-${String(dice.int(1000, 29999)).padStart(5, '0')}`;
	return { first, last, identifier, country: 'CZ' };
}

/** Inserts each pool's dogs (ids from 1 on) and returns the dog ids per pool. */
function createDogs(
	ins: Inserts,
	dice: Dice,
	poolSizes: Map<string, number>,
	seedDate: string,
	competitorCount: number,
	competitorOf: Map<number, number>
): Map<string, number[]> {
	const pools = new Map<string, number[]>();
	let dogId = 0;
	for (const [k, n] of poolSizes) {
		const [lv, sz] = k.split('/').map(Number) as [number, number];
		const ids: number[] = [];
		for (let i = 0; i < n; i++) {
			dogId++;
			competitorOf.set(
				dogId,
				createDog(ins, dice, { id: dogId, level: lv, size: sz, seedDate, competitorCount })
			);
			ids.push(dogId);
		}
		pools.set(k, ids);
	}
	return pools;
}

interface DogSpec {
	id: number;
	level: number;
	size: number;
	seedDate: string;
	competitorCount: number;
}

/** Adds a dog; returns its competitor (owner). */
function createDog(ins: Inserts, dice: Dice, d: DogSpec): number {
	const birthday = addDays(d.seedDate, -dice.int(730, 3650));
	const workbook = `VK ${String(dice.int(1000, 49999)).padStart(5, '0')}/${birthday.slice(2, 4)}`;
	const name = dice.pick(DOG_NAMES);
	const kennel = dice.pick(KENNELS);
	const owner = dice.int(1, d.competitorCount);
	ins.dog.run(d.id, name, kennel, workbook, birthday, d.level + 1, d.size + 1, owner);
	return owner;
}

// ---- one event --------------------------------------------------------------------------------

/** Inserts event `e` as competition `cid`: its judges, rings, runs, start lists and results. */
function createEvent(s: Seeding, e: EventSpec, cid: number): void {
	const dateFrom = createCompetition(s, e, cid);
	const ringIds = createRings(s, e, cid);
	const planned = planRuns(s, e);
	scheduleRuns(planned, e);
	const recorded = recordedShares(planned, e);
	for (const p of planned) {
		const runId = createRun(s, { e, cid, dateFrom, ringIds }, p);
		createDogRuns(s, p, runId, recorded.get(p) ?? 0);
	}
}

/** Inserts the competition and its judges; returns its first day. */
function createCompetition(s: Seeding, e: EventSpec, cid: number): string {
	const dateFrom = addDays(s.seedDate, e.dayOffset);
	const dateTo = addDays(dateFrom, e.days - 1);
	s.ins.competition.run(cid, e.name, dateFrom, dateTo, e.details, e.fees, e.state);
	e.judges.forEach((j, pos) => s.ins.compJudge.run(cid, j + 1, pos));
	return dateFrom;
}

function createRings(s: Seeding, e: EventSpec, cid: number): number[] {
	const ringIds: number[] = [];
	for (let r = 0; r < e.rings; r++) {
		s.last.ring++;
		s.ins.ring.run(s.last.ring, cid, `Ring ${r + 1}`);
		ringIds.push(s.last.ring);
	}
	return ringIds;
}

/** Plans every round of every group: its entries, and parts of at most ~180 when larger. */
function planRuns(s: Seeding, e: EventSpec): PlannedRun[] {
	const planned: PlannedRun[] = [];
	e.groups.forEach((gr, gi) => {
		const teams = (s.pools.get(`${gr.level}/${gr.size}`) ?? []).slice(0, gr.teams);
		for (let k = 0; k < gr.rounds; k++) planned.push(...planRound(s.dice, e, gr, gi, k, teams));
	});
	return planned;
}

/** Round `k` of group `gr` (index `gi`): who enters, split into parts, each with its course. */
function planRound(
	dice: Dice,
	e: EventSpec,
	gr: GroupSpec,
	gi: number,
	k: number,
	teams: number[]
): PlannedRun[] {
	const discipline = k % 2 === 0 ? 'Agility' : 'Jumping';
	const no = Math.floor(k / 2) + 1;
	const base = `${discipline}${no > 1 ? ` ${no}` : ''} ${LEVELS[gr.level]} ${SIZES[gr.size]}`;
	let n = Math.round(teams.length * dice.between(e.participation[0], e.participation[1]));
	n = Math.min(teams.length, Math.max(Math.min(14, teams.length), n));
	const entries = dice.shuffle([...teams]).slice(0, n);
	const parts = n > 208 ? Math.ceil(n / 180) : 1;
	const per = Math.ceil(n / parts);
	const runs: PlannedRun[] = [];
	for (let p = 0; p < parts; p++) {
		runs.push({
			group: gr,
			name: parts > 1 ? `${base} (part ${p + 1})` : base,
			day: (k + gi) % e.days,
			round: k,
			entries: entries.slice(p * per, (p + 1) * per),
			ring: 0,
			startSec: 0,
			...planCourse(dice, gr.level, discipline)
		});
	}
	return runs;
}

/** Track length and the standard and maximal course times, from a speed typical of the level. */
function planCourse(
	dice: Dice,
	level: number,
	discipline: string
): Pick<PlannedRun, 'trackLength' | 'sctMs' | 'mctMs'> {
	const trackLength = dice.int(160, 220);
	const lo = [3.0, 3.4, 3.8][level] ?? 3.5;
	const speed = Math.min(4.5, dice.between(lo, lo + 0.6) + (discipline === 'Jumping' ? 0.2 : 0));
	const variant = dice.random();
	let sctMs: number;
	if (variant < 0.7) sctMs = Math.round(trackLength / speed) * 1000;
	else if (variant < 0.85) sctMs = (Math.round((trackLength / speed) * 2) / 2) * 1000;
	else sctMs = Math.round((trackLength / speed) * 1000);
	const mv = dice.random();
	let mctMs: number;
	if (mv < 0.6) mctMs = Math.round(sctMs * 1.5);
	else if (mv < 0.85) mctMs = sctMs * 2;
	else mctMs = trackLength * 400;
	return { trackLength, sctMs, mctMs };
}

/** Per day, each run onto the least busy ring, with sequential start times; then sorts by start. */
function scheduleRuns(planned: PlannedRun[], e: EventSpec): void {
	for (let day = 0; day < e.days; day++) {
		const todays = planned
			.filter((p) => p.day === day)
			.sort(
				(a, b) => a.group.level - b.group.level || a.group.size - b.group.size || a.round - b.round
			);
		scheduleDay(todays, e.rings);
	}
	planned.sort((a, b) => a.day - b.day || a.startSec - b.startSec || a.ring - b.ring);
}

function scheduleDay(todays: PlannedRun[], rings: number): void {
	const load = new Array<number>(rings).fill(0);
	const clock = new Array<number>(rings).fill(7 * 3600 + 30 * 60);
	for (const p of todays) {
		let best = 0;
		for (let r = 1; r < rings; r++) if ((load[r] ?? 0) < (load[best] ?? 0)) best = r;
		p.ring = best;
		const walked = (clock[best] ?? 0) + 600;
		p.startSec = Math.ceil(walked / 300) * 300;
		clock[best] = p.startSec + p.entries.length * 50;
		load[best] = (load[best] ?? 0) + 600 + p.entries.length * 50;
	}
}

/**
 * The share of each run's entries that has results: for a live event every run of past days,
 * today per ring the first ~40 %, then one partial run (45 %) on the first ring that has one.
 */
function recordedShares(planned: PlannedRun[], e: EventSpec): Map<PlannedRun, number> {
	const recorded = new Map<PlannedRun, number>();
	if (!e.live) return recorded;
	const todayIndex = -e.dayOffset;
	for (const p of planned) if (p.day < todayIndex) recorded.set(p, 1);
	let partialDone = false;
	for (let r = 0; r < e.rings; r++) {
		const onRing = planned.filter((p) => p.day === todayIndex && p.ring === r);
		const full = Math.round(onRing.length * 0.4);
		onRing.slice(0, full).forEach((p) => recorded.set(p, 1));
		const next = onRing[full];
		if (!partialDone && next) {
			recorded.set(next, 0.45);
			partialDone = true;
		}
	}
	return recorded;
}

interface EventIds {
	e: EventSpec;
	cid: number;
	dateFrom: string;
	ringIds: number[];
}

/** Inserts planned run `p` with the judge of its day and ring; returns its id. */
function createRun(s: Seeding, { e, cid, dateFrom, ringIds }: EventIds, p: PlannedRun): number {
	s.last.run++;
	const judge = e.judges[(p.day * e.rings + p.ring) % e.judges.length] ?? 0;
	s.ins.run.run(
		s.last.run,
		cid,
		p.name,
		addDays(dateFrom, p.day),
		hhmmss(p.startSec),
		p.sctMs,
		p.mctMs,
		p.trackLength,
		p.group.size + 1,
		p.group.level + 1,
		judge + 1,
		ringIds[p.ring] ?? 0
	);
	return s.last.run;
}

// ---- start lists and results ------------------------------------------------------------------

interface DogRunResult {
	time: number | null;
	refusals: number;
	faults: number;
	dis: number;
	abs: number;
}

const NO_RESULT: DogRunResult = { time: null, refusals: 0, faults: 0, dis: 0, abs: 0 };
const FAULTS_DIST = [0.55, 0.85, 0.95, 0.98, 0.99, 1];
const REFUSAL_DIST = [0.75, 0.95, 1];

/** The start list of run `p`; the first `recordedShare` of it with results. */
function createDogRuns(s: Seeding, p: PlannedRun, runId: number, recordedShare: number): void {
	const recordedCount = Math.floor(p.entries.length * recordedShare);
	p.entries.forEach((dog, idx) => {
		s.last.dogRun++;
		const r = idx < recordedCount ? drawResult(s.dice, p) : NO_RESULT;
		s.ins.dogRun.run(
			s.last.dogRun,
			runId,
			idx + 1,
			dog,
			s.competitorOf.get(dog) ?? 1,
			r.time,
			r.refusals,
			r.faults,
			r.dis,
			r.abs
		);
	});
}

/** A result: ~3 % absent, ~40 % disqualified, the rest run (over the maximal time: disqualified). */
function drawResult(dice: Dice, p: PlannedRun): DogRunResult {
	const sctCs = p.sctMs / 10;
	const mctCs = Math.floor(p.mctMs / 10);
	const r = dice.random();
	if (r < 0.03) return { ...NO_RESULT, abs: 1 };
	const result = r < 0.43 ? drawDisqualified(dice, sctCs, mctCs) : drawFinished(dice, sctCs, mctCs);
	if (result.time !== null) result.time = Math.min(result.time, 99999);
	return result;
}

/** Disqualified: after three refusals (no time), over the maximal time, within it, or untimed. */
function drawDisqualified(dice: Dice, sctCs: number, mctCs: number): DogRunResult {
	const why = dice.random();
	const faults = dice.weighted(FAULTS_DIST);
	const result: DogRunResult = { ...NO_RESULT, dis: 1, faults };
	if (why < 0.15) result.refusals = 3;
	else if (why < 0.3) {
		result.refusals = dice.weighted(REFUSAL_DIST);
		result.time = mctCs + dice.int(1, 600);
	} else if (why < 0.55) {
		result.refusals = dice.weighted(REFUSAL_DIST);
		result.time = Math.floor(sctCs * dice.between(0.8, 1.1));
	} else result.refusals = dice.weighted(REFUSAL_DIST);
	return result;
}

function drawFinished(dice: Dice, sctCs: number, mctCs: number): DogRunResult {
	const faults = dice.weighted(FAULTS_DIST);
	const refusals = dice.weighted(REFUSAL_DIST);
	const time = Math.floor(sctCs * dice.between(0.8, 1.1));
	return { ...NO_RESULT, faults, refusals, time, dis: time > mctCs ? 1 : 0 };
}

// ---- the whole seed ---------------------------------------------------------------------------

export interface SeedData {
	rows: SeedRows;
	/** The meta rows (seedSize, seedDate, createdAt). */
	meta: [string, string][];
	summary: SeedSummary;
}

/**
 * The deterministic data of a seed (same size + seed date → same rows), engine-neutral: each
 * store inserts the rows as they come (store/sqlite/seed.ts, store/postgres/prepare.ts).
 */
export function seedData(size: SeedSize, seedDate: string): SeedData {
	const t0 = performance.now();
	const dice = createDice(SEEDS[size]);
	const events = eventsFor(size, seedDate.slice(0, 4));
	const poolSizes = dogPoolSizes(events);
	const totalDogs = [...poolSizes.values()].reduce((a, b) => a + b, 0);
	const competitorCount = Math.max(3, Math.round(totalDogs / 2.2));
	const rows = Object.fromEntries(
		Object.keys(SEED_TABLES).map((t) => [t, [] as SqlValue[][]])
	) as SeedRows;
	const ins = collectInserts(rows);
	const last = { ring: 0, run: 0, dogRun: 0 };
	const competitorOf = new Map<number, number>();

	createLookups(ins);
	createCompetitors(ins, dice, competitorCount);
	const pools = createDogs(ins, dice, poolSizes, seedDate, competitorCount, competitorOf);
	const s: Seeding = { dice, ins, seedDate, pools, competitorOf, last };
	events.forEach((e, ei) => createEvent(s, e, ei + 1));

	return {
		rows,
		meta: [
			['seedSize', size],
			['seedDate', seedDate],
			['createdAt', new Date().toISOString()]
		],
		summary: {
			size,
			seedDate,
			competitions: events.length,
			competitionRuns: last.run,
			dogRuns: last.dogRun,
			dogs: totalDogs,
			competitors: competitorCount,
			ms: Math.round(performance.now() - t0)
		}
	};
}

export function formatSeedSummary(s: SeedSummary): string {
	return (
		`Seeded '${s.size}' data for ${s.seedDate}: ${s.competitions} competitions, ` +
		`${s.competitionRuns} competition runs, ${s.dogRuns} dog runs, ${s.dogs} dogs, ` +
		`${s.competitors} competitors in ${s.ms} ms`
	);
}
