import type { DB } from './db.ts';
import { setMeta } from './db.ts';

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

/** Today's local calendar date as YYYY-MM-DD. */
export function localToday(now = new Date()): string {
	const p = (n: number): string => String(n).padStart(2, '0');
	return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

export function addDays(date: string, days: number): string {
	const d = new Date(`${date}T00:00:00Z`);
	d.setUTCDate(d.getUTCDate() + days);
	return d.toISOString().slice(0, 10);
}

const LEVELS = ['A1', 'A2', 'A3'] as const;
const SIZES = ['Small', 'Medium', 'Intermediate', 'Large'] as const;
// ids: level index + 1, size index + 1
const [A1, A2, A3] = [0, 1, 2];
const [S, M, I, L] = [0, 1, 2, 3];

const JUDGES: [string, string, string][] = [
	['Šárka', 'Dvořáková', 'CZ'],
	['Jiří', 'Procházka', 'CZ'],
	['Ľubica', 'Kováčová', 'SK'],
	['Jürgen', 'Weißmann', 'DE'],
	['Małgorzata', 'Wiśniewska', 'PL'],
	['Špela', 'Kovačič', 'SI'],
	['Jouni', 'Mäkelä', 'FI'],
	['Tereza', 'Králová', 'CZ'],
	['Zsófia', 'Szűcs', 'HU'],
	['Florian', 'Höller', 'AT'],
	['Radek', 'Šťastný', 'CZ'],
	['Päivi', 'Järvinen', 'FI']
];

const CZ_FEMALE = [
	'Šárka',
	'Lucie',
	'Kateřina',
	'Tereza',
	'Markéta',
	'Jana',
	'Petra',
	'Veronika',
	'Michaela',
	'Barbora',
	'Zuzana',
	'Eliška',
	'Klára',
	'Hana',
	'Adéla',
	'Lenka',
	'Radka',
	'Ivana',
	'Dagmar',
	'Monika',
	'Kristýna',
	'Anežka'
];
const CZ_MALE = [
	'Jiří',
	'Tomáš',
	'Petr',
	'Jan',
	'Martin',
	'Radek',
	'Ondřej',
	'Lukáš',
	'Michal',
	'Pavel',
	'Václav',
	'Jakub',
	'Vojtěch',
	'Zdeněk',
	'David',
	'Matěj'
];
const CZ_SURNAMES: [string, string][] = [
	['Dvořák', 'Dvořáková'],
	['Novák', 'Nováková'],
	['Svoboda', 'Svobodová'],
	['Černý', 'Černá'],
	['Procházka', 'Procházková'],
	['Kučera', 'Kučerová'],
	['Veselý', 'Veselá'],
	['Horák', 'Horáková'],
	['Němec', 'Němcová'],
	['Pokorný', 'Pokorná'],
	['Marek', 'Marková'],
	['Pospíšil', 'Pospíšilová'],
	['Hájek', 'Hájková'],
	['Král', 'Králová'],
	['Jelínek', 'Jelínková'],
	['Růžička', 'Růžičková'],
	['Beneš', 'Benešová'],
	['Fiala', 'Fialová'],
	['Sedláček', 'Sedláčková'],
	['Doležal', 'Doležalová'],
	['Zeman', 'Zemanová'],
	['Kolář', 'Kolářová'],
	['Navrátil', 'Navrátilová'],
	['Čermák', 'Čermáková'],
	['Urban', 'Urbanová'],
	['Vaněk', 'Vaňková'],
	['Blažek', 'Blažková'],
	['Kříž', 'Křížová'],
	['Kovář', 'Kovářová'],
	['Bartoš', 'Bartošová'],
	['Vlček', 'Vlčková'],
	['Šťastný', 'Šťastná'],
	['Říha', 'Říhová'],
	['Šimek', 'Šimková'],
	['Kratochvíl', 'Kratochvílová']
];
/** country → [female firsts, male firsts, female surnames, male surnames] */
const FOREIGN: Record<string, [string[], string[], string[], string[]]> = {
	SK: [
		['Zuzana', 'Martina', 'Ľubica', 'Katarína'],
		['Jozef', 'Peter', 'Ján', 'Ľuboš'],
		['Horváthová', 'Kováčová', 'Balážová', 'Tóthová'],
		['Horváth', 'Kováč', 'Baláž', 'Tóth']
	],
	DE: [
		['Anja', 'Katrin', 'Lena', 'Jördis'],
		['Jürgen', 'Tobias', 'Maximilian', 'Sören'],
		['Müller', 'Schröder', 'Weiß', 'Schäfer', 'Groß'],
		['Müller', 'Schröder', 'Weiß', 'Schäfer', 'Groß']
	],
	PL: [
		['Małgorzata', 'Agnieszka', 'Joanna', 'Katarzyna'],
		['Paweł', 'Łukasz', 'Michał', 'Krzysztof'],
		['Wójcik', 'Zielińska', 'Dąbrowska', 'Woźniak'],
		['Wójcik', 'Zieliński', 'Dąbrowski', 'Woźniak']
	],
	SI: [
		['Špela', 'Nina', 'Tjaša', 'Urša'],
		['Matej', 'Jože', 'Žiga', 'Rok'],
		['Kovačič', 'Žagar', 'Potočnik', 'Krajnc'],
		['Kovačič', 'Žagar', 'Potočnik', 'Krajnc']
	],
	FI: [
		['Sanna', 'Päivi', 'Riikka', 'Jenni'],
		['Jouni', 'Mikko', 'Ville', 'Jyrki'],
		['Mäkinen', 'Häkkinen', 'Järvinen', 'Leppänen'],
		['Mäkinen', 'Häkkinen', 'Järvinen', 'Virtanen']
	],
	AT: [
		['Sabine', 'Verena', 'Birgit'],
		['Florian', 'Lukas', 'Günther'],
		['Hölzl', 'Gruber', 'Pichler'],
		['Hölzl', 'Gruber', 'Pichler']
	],
	HU: [
		['Zsófia', 'Réka', 'Eszter'],
		['Gergő', 'Bálint', 'Ádám'],
		['Nagy', 'Szűcs', 'Kovács'],
		['Nagy', 'Szűcs', 'Kovács']
	]
};
const FOREIGN_COUNTRIES = Object.keys(FOREIGN);

const DOG_NAMES = [
	'Ajša',
	'Bady',
	'Cindy',
	'Dasty',
	'Eny',
	'Fly',
	'Gina',
	'Hugo',
	'Ira',
	'Jessie',
	'Kiki',
	'Lucky',
	'Maggie',
	'Nela',
	'Oskar',
	'Pixie',
	'Ruby',
	'Sam',
	'Tessa',
	'Uma',
	'Vicky',
	'Wendy',
	'Xena',
	'Yuki',
	'Zara',
	'Bára',
	'Čiko',
	'Šmudla',
	'Žofka',
	'Ríša',
	'Flinta',
	'Ťapka',
	'Jiskra',
	'Bublina',
	'Šiška',
	'Čárka',
	'Ťuňťa',
	'Rocket',
	'Zip',
	'Nox',
	'Kessy',
	'Dixie',
	'Bonnie',
	'Chilli',
	'Ginger',
	'Hope',
	'Jinx',
	'Lex',
	'Mia',
	'Nika',
	'Pepper',
	'Quick',
	'Storm',
	'Tara',
	'Vega'
];
const KENNELS = [
	'z Bílého lomu',
	'od Kamenného mostu',
	'ze Zlaté stezky',
	'z Podskalí',
	'Bohemia Fantasy',
	'z Modrého údolí',
	'Hanky Panky',
	'od Tří dubů',
	'z Hradišťského vrchu',
	'Agiland',
	'ze Šťastného domova',
	'Dream Team Bohemia',
	'z Lučního háje',
	'Speedy Border',
	'od Černé věže',
	'z Jižní Moravy',
	'Border Magic',
	'z Kouzelné zahrady',
	'Tatra Sun',
	'Lumijoen Tähti'
];

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

/**
 * Fills an empty database with deterministic data (same size + seed date → same rows).
 * Everything runs in one transaction with prepared statements.
 */
export function seedDatabase(db: DB, size: SeedSize, seedDate: string): SeedSummary {
	const t0 = performance.now();
	const rnd = mulberry32(SEEDS[size]);
	const int = (min: number, max: number): number => min + Math.floor(rnd() * (max - min + 1));
	const pick = <T>(arr: readonly T[]): T => arr[Math.floor(rnd() * arr.length)] as T;
	const between = (a: number, b: number): number => a + rnd() * (b - a);
	const weighted = (cum: number[]): number => {
		const r = rnd();
		const i = cum.findIndex((c) => r < c);
		return i < 0 ? cum.length - 1 : i;
	};
	const shuffle = <T>(arr: T[]): T[] => {
		for (let i = arr.length - 1; i > 0; i--) {
			const j = Math.floor(rnd() * (i + 1));
			const tmp = arr[i] as T;
			arr[i] = arr[j] as T;
			arr[j] = tmp;
		}
		return arr;
	};

	const events = eventsFor(size, seedDate.slice(0, 4));

	// dog pool per (level,size): as many as the largest event needs
	const poolSize = new Map<string, number>();
	for (const e of events)
		for (const gr of e.groups) {
			const k = `${gr.level}/${gr.size}`;
			poolSize.set(k, Math.max(poolSize.get(k) ?? 0, gr.teams));
		}
	const totalDogs = [...poolSize.values()].reduce((a, b) => a + b, 0);
	const competitorCount = Math.max(3, Math.round(totalDogs / 2.2));

	const ins = {
		level: db.prepare('INSERT INTO competition_level (id, name) VALUES (?, ?)'),
		runLevel: db.prepare('INSERT INTO competition_run_level (id, name) VALUES (?, ?)'),
		size: db.prepare('INSERT INTO dog_size_class (id, name) VALUES (?, ?)'),
		judge: db.prepare('INSERT INTO judge (id, firstname, lastname, country) VALUES (?, ?, ?, ?)'),
		competition: db.prepare(
			'INSERT INTO competition (id, name, date_from, date_to, details, fees, state) VALUES (?, ?, ?, ?, ?, ?, ?)'
		),
		compJudge: db.prepare(
			'INSERT INTO competition_judge (competition_id, judge_id, position) VALUES (?, ?, ?)'
		),
		ring: db.prepare('INSERT INTO ring (id, competition_id, name) VALUES (?, ?, ?)'),
		competitor: db.prepare(
			'INSERT INTO competitor (id, firstname, lastname, identifier, country) VALUES (?, ?, ?, ?, ?)'
		),
		dog: db.prepare(
			`INSERT INTO dog (id, name, home_name, workbook_no, birthday, competition_level_id, dog_size_class_id, competitor_id)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
		),
		run: db.prepare(
			`INSERT INTO competition_run (id, competition_id, name, date, start_time, standard_time_ms, maximal_time_ms,
			   track_length, dog_size_class_id, competition_run_level_id, judge_id, ring_id)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		),
		dogRun: db.prepare(
			`INSERT INTO dog_run (id, competition_run_id, start_no, dog_id, competitor_id, time_cs, refusals, faults,
			   disqualified, absence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
		)
	};

	let runCount = 0;
	let dogRunCount = 0;

	db.transaction(() => {
		LEVELS.forEach((n, i) => {
			ins.level.run(i + 1, n);
			ins.runLevel.run(i + 1, n);
		});
		SIZES.forEach((n, i) => ins.size.run(i + 1, n));
		JUDGES.forEach(([f, l, c], i) => ins.judge.run(i + 1, f, l, c));

		// competitors
		for (let id = 1; id <= competitorCount; id++) {
			const foreign = rnd() < 0.2;
			const female = rnd() < 0.7;
			let first: string;
			let last: string;
			let country: string | null;
			let identifier: string;
			if (foreign) {
				country = pick(FOREIGN_COUNTRIES);
				const [ff, mf, fl, ml] = FOREIGN[country] as [string[], string[], string[], string[]];
				first = pick(female ? ff : mf);
				last = pick(female ? fl : ml);
				identifier = `${country}-${String(int(100000, 999999))}`;
			} else {
				country = 'CZ';
				const pair = pick(CZ_SURNAMES);
				first = pick(female ? CZ_FEMALE : CZ_MALE);
				last = female ? pair[1] : pair[0];
				identifier = `CZ-KA-${String(int(1000, 29999)).padStart(5, '0')}`;
			}
			if (rnd() < 0.1) country = null;
			ins.competitor.run(id, first, last, identifier, country);
		}

		// dogs
		const pools = new Map<string, number[]>();
		let dogId = 0;
		for (const [k, n] of poolSize) {
			const [lv, sz] = k.split('/').map(Number) as [number, number];
			const ids: number[] = [];
			for (let i = 0; i < n; i++) {
				dogId++;
				const birthday = addDays(seedDate, -int(730, 3650));
				const workbook = `VK ${String(int(1000, 49999)).padStart(5, '0')}/${birthday.slice(2, 4)}`;
				ins.dog.run(
					dogId,
					pick(DOG_NAMES),
					pick(KENNELS),
					workbook,
					birthday,
					lv + 1,
					sz + 1,
					int(1, competitorCount)
				);
				ids.push(dogId);
			}
			pools.set(k, ids);
		}
		const dogCompetitor = db.prepare('SELECT competitor_id FROM dog WHERE id = ?').pluck();
		const competitorOf = new Map<number, number>();
		for (let d = 1; d <= dogId; d++) competitorOf.set(d, dogCompetitor.get(d) as number);

		let ringId = 0;
		let dogRunId = 0;
		events.forEach((e, ei) => {
			const cid = ei + 1;
			const dateFrom = addDays(seedDate, e.dayOffset);
			const dateTo = addDays(dateFrom, e.days - 1);
			ins.competition.run(cid, e.name, dateFrom, dateTo, e.details, e.fees, e.state);
			e.judges.forEach((j, pos) => ins.compJudge.run(cid, j + 1, pos));
			const ringIds: number[] = [];
			for (let r = 0; r < e.rings; r++) {
				ringId++;
				ins.ring.run(ringId, cid, `Ring ${r + 1}`);
				ringIds.push(ringId);
			}

			// plan runs
			const planned: PlannedRun[] = [];
			e.groups.forEach((gr, gi) => {
				const pool = pools.get(`${gr.level}/${gr.size}`) ?? [];
				const teams = pool.slice(0, gr.teams);
				for (let k = 0; k < gr.rounds; k++) {
					const discipline = k % 2 === 0 ? 'Agility' : 'Jumping';
					const no = Math.floor(k / 2) + 1;
					const base = `${discipline}${no > 1 ? ` ${no}` : ''} ${LEVELS[gr.level]} ${SIZES[gr.size]}`;
					let n = Math.round(teams.length * between(e.participation[0], e.participation[1]));
					n = Math.min(teams.length, Math.max(Math.min(14, teams.length), n));
					const entries = shuffle([...teams]).slice(0, n);
					const parts = n > 208 ? Math.ceil(n / 180) : 1;
					const per = Math.ceil(n / parts);
					for (let p = 0; p < parts; p++) {
						const trackLength = int(160, 220);
						const lo = [3.0, 3.4, 3.8][gr.level] ?? 3.5;
						const speed = Math.min(
							4.5,
							between(lo, lo + 0.6) + (discipline === 'Jumping' ? 0.2 : 0)
						);
						const variant = rnd();
						let sctMs: number;
						if (variant < 0.7) sctMs = Math.round(trackLength / speed) * 1000;
						else if (variant < 0.85) sctMs = (Math.round((trackLength / speed) * 2) / 2) * 1000;
						else sctMs = Math.round((trackLength / speed) * 1000);
						const mv = rnd();
						let mctMs: number;
						if (mv < 0.6) mctMs = Math.round(sctMs * 1.5);
						else if (mv < 0.85) mctMs = sctMs * 2;
						else mctMs = trackLength * 400;
						planned.push({
							group: gr,
							name: parts > 1 ? `${base} (part ${p + 1})` : base,
							day: (k + gi) % e.days,
							round: k,
							entries: entries.slice(p * per, (p + 1) * per),
							ring: 0,
							startSec: 0,
							trackLength,
							sctMs,
							mctMs
						});
					}
				}
			});

			// schedule: per day, greedy onto the least busy ring; sequential start times per ring
			for (let day = 0; day < e.days; day++) {
				const todays = planned
					.filter((p) => p.day === day)
					.sort(
						(a, b) =>
							a.group.level - b.group.level || a.group.size - b.group.size || a.round - b.round
					);
				const load = new Array<number>(e.rings).fill(0);
				const clock = new Array<number>(e.rings).fill(7 * 3600 + 30 * 60);
				for (const p of todays) {
					let best = 0;
					for (let r = 1; r < e.rings; r++) if ((load[r] ?? 0) < (load[best] ?? 0)) best = r;
					p.ring = best;
					const walked = (clock[best] ?? 0) + 600;
					p.startSec = Math.ceil(walked / 300) * 300;
					clock[best] = p.startSec + p.entries.length * 50;
					load[best] = (load[best] ?? 0) + 600 + p.entries.length * 50;
				}
			}
			planned.sort((a, b) => a.day - b.day || a.startSec - b.startSec || a.ring - b.ring);

			// which runs have results: past days all; today per ring the first ~40 %, then one partial
			const todayIndex = -e.dayOffset;
			const recorded = new Map<PlannedRun, number>(); // fraction of entries recorded
			if (e.live) {
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
			}

			for (const p of planned) {
				runCount++;
				const runId = runCount;
				const date = addDays(dateFrom, p.day);
				const judge = e.judges[(p.day * e.rings + p.ring) % e.judges.length] ?? 0;
				ins.run.run(
					runId,
					cid,
					p.name,
					date,
					hhmmss(p.startSec),
					p.sctMs,
					p.mctMs,
					p.trackLength,
					p.group.size + 1,
					p.group.level + 1,
					judge + 1,
					ringIds[p.ring] ?? 0
				);
				const fraction = recorded.get(p) ?? 0;
				const recordedCount = Math.floor(p.entries.length * fraction);
				p.entries.forEach((dog, idx) => {
					dogRunId++;
					let time: number | null = null;
					let refusals = 0;
					let faults = 0;
					let dis = 0;
					let abs = 0;
					if (idx < recordedCount) {
						const faultsDist = [0.55, 0.85, 0.95, 0.98, 0.99, 1];
						const refusalDist = [0.75, 0.95, 1];
						const sctCs = p.sctMs / 10;
						const mctCs = Math.floor(p.mctMs / 10);
						const r = rnd();
						if (r < 0.03) {
							abs = 1;
						} else if (r < 0.43) {
							dis = 1;
							const why = rnd();
							faults = weighted(faultsDist);
							if (why < 0.15) refusals = 3;
							else if (why < 0.3) {
								refusals = weighted(refusalDist);
								time = mctCs + int(1, 600);
							} else if (why < 0.55) {
								refusals = weighted(refusalDist);
								time = Math.floor(sctCs * between(0.8, 1.1));
							} else refusals = weighted(refusalDist);
						} else {
							faults = weighted(faultsDist);
							refusals = weighted(refusalDist);
							time = Math.floor(sctCs * between(0.8, 1.1));
							if (time > mctCs) dis = 1;
						}
						if (time !== null) time = Math.min(time, 99999);
					}
					ins.dogRun.run(
						dogRunId,
						runId,
						idx + 1,
						dog,
						competitorOf.get(dog) ?? 1,
						time,
						refusals,
						faults,
						dis,
						abs
					);
				});
				dogRunCount += p.entries.length;
			}
		});
		setMeta(db, 'seedSize', size);
		setMeta(db, 'seedDate', seedDate);
		setMeta(db, 'createdAt', new Date().toISOString());
	})();

	return {
		size,
		seedDate,
		competitions: events.length,
		competitionRuns: runCount,
		dogRuns: dogRunCount,
		dogs: totalDogs,
		competitors: competitorCount,
		ms: Math.round(performance.now() - t0)
	};
}

export function formatSeedSummary(s: SeedSummary): string {
	return (
		`Seeded '${s.size}' data for ${s.seedDate}: ${s.competitions} competitions, ` +
		`${s.competitionRuns} competition runs, ${s.dogRuns} dog runs, ${s.dogs} dogs, ` +
		`${s.competitors} competitors in ${s.ms} ms`
	);
}
