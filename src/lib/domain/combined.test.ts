import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	combinedCsv,
	combinedFileName,
	combinedTable,
	type CombinedCsvWords,
	type CombinedEntrant,
	type CombinedEntry,
	type CombinedRun,
	type CombinedTable
} from './combined';
import { score } from './scoring';
import type { CourseParams, DogRunResult } from './types';

const agility: CourseParams = { trackLength: 219, standardTime: 65, maximalTime: 98 };
const jumping: CourseParams = { trackLength: 180, standardTime: 50, maximalTime: 75 };

const result = (over: Partial<DogRunResult> = {}): DogRunResult => ({
	time: null,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false,
	...over
});

/** A team's entry: `team` is "dog/handler", as the results screen keys it (dog id, competitor id). */
const entry = (
	dog: string,
	handler: string,
	over: Partial<DogRunResult> = {}
): CombinedEntry<CombinedEntrant> => ({
	team: `${dog}/${handler}`,
	name: `${dog} ${handler}`,
	item: { dog, handler, book: `VK-${dog}` },
	result: result(over)
});

const summary = <T>(table: CombinedTable<T>) =>
	table.lines.map((l) => [l.name, l.status, l.rank, l.penalties, l.time]);

describe('combined results: the worked example of docs/results.md', () => {
	// Agility A3 Large (SCT 65 s, MCT 98 s) + Jumping A3 Large (SCT 50 s, MCT 75 s).
	const runs: CombinedRun<CombinedEntrant>[] = [
		{
			course: agility,
			entries: [
				entry('Alma', 'Nováková', { time: 38.63 }),
				entry('Bára', 'Svoboda', { time: 66.2 }),
				entry('Cid', 'Dvořák', { time: 40, faults: 1 }),
				entry('Eda', 'Horák', { time: 60 }),
				entry('Fox', 'Malá', { time: 36, faults: 1 }),
				entry('Gina', 'Veselá', { time: 40, faults: 2 }),
				entry('Hugo', 'Král', { time: 45, refusals: 1 }),
				entry('Iris', 'Černá', { time: 41, disqualified: true }),
				entry('Kim', 'Pokorná', { time: 39 }),
				entry('Lux', 'Beneš O.', { time: 41 }),
				entry('Nela', 'Marková', { time: 37 })
			]
		},
		{
			course: jumping,
			entries: [
				entry('Nela', 'Marková'), // not yet run
				entry('Alma', 'Nováková', { time: 33.1, faults: 1 }),
				entry('Bára', 'Svoboda', { time: 32 }),
				entry('Cid', 'Dvořák', { time: 31.5 }),
				entry('Eda', 'Horák', { time: 55 }),
				entry('Fox', 'Malá', { time: 29 }),
				entry('Gina', 'Veselá', { time: 40 }),
				entry('Hugo', 'Král', { time: 35, faults: 1 }),
				entry('Iris', 'Černá', { time: 30 }),
				entry('Kim', 'Pokorná', { absence: true }),
				// The same dog with another handler: another team.
				entry('Lux', 'Beneš P.', { time: 35 })
			]
		}
	];

	it('ranks by the sum of penalties, then the sum of times; the rest unranked, each group by name', () => {
		expect(summary(combinedTable(runs))).toEqual([
			['Bára Svoboda', 'ranked', 1, 1.2, 98.2],
			['Fox Malá', 'ranked', 2, 5, 65],
			['Cid Dvořák', 'ranked', 3, 5, 71.5],
			['Alma Nováková', 'ranked', 4, 5, 71.73],
			// 0 course faults + 5 time faults: no course-fault tie-break, so the time decides.
			['Eda Horák', 'ranked', 5, 5, 115],
			['Gina Veselá', 'ranked', 6, 10, 80],
			['Hugo Král', 'ranked', 6, 10, 80],
			['Iris Černá', 'eliminated', null, null, null],
			['Kim Pokorná', 'absent', null, null, null],
			['Lux Beneš O.', 'missing', null, null, null],
			['Lux Beneš P.', 'missing', null, null, null],
			['Nela Marková', 'pending', null, null, null]
		]);
	});

	it('keeps each run’s score in the order the runs were given', () => {
		const alma = combinedTable(runs).lines.find((l) => l.name === 'Alma Nováková');
		expect(alma?.parts.map((p) => [p.score?.total, p.entry?.result.time])).toEqual([
			[0, 38.63],
			[5, 33.1]
		]);
		const lux = combinedTable(runs).lines.find((l) => l.team === 'Lux/Beneš P.');
		expect(lux?.parts.map((p) => p.score?.status ?? 'not entered')).toEqual([
			'not entered',
			'finished'
		]);
	});

	it('counts the settled lines; incomplete while one team waits for a result', () => {
		const table = combinedTable(runs);
		expect(table.done).toBe(11);
		expect(table.complete).toBe(false);
	});
});

describe('combined results: cases', () => {
	const two = (
		a: Partial<DogRunResult> | null,
		b: Partial<DogRunResult> | null,
		courses: [CourseParams | null, CourseParams | null] = [agility, jumping]
	) =>
		combinedTable([
			{ course: courses[0], entries: a ? [entry('Dog', 'Handler', a)] : [] },
			{ course: courses[1], entries: b ? [entry('Dog', 'Handler', b)] : [] }
		]).lines[0];

	it.each([
		// agility, jumping, status
		[{ time: 40 }, { time: 30 }, 'ranked'],
		[{ time: 40, disqualified: true }, { time: 30 }, 'eliminated'],
		[{ time: 40, refusals: 3 }, { time: 30 }, 'eliminated'],
		[{ time: 98.01 }, { time: 30 }, 'eliminated'], // over the MCT of the agility
		[{ time: 40 }, { absence: true }, 'absent'],
		[{ absence: true }, { time: 30, disqualified: true }, 'eliminated'],
		[{ absence: true }, {}, 'absent'], // settled even before the jumping is run
		[{ absence: true }, null, 'absent'],
		[{ disqualified: true }, null, 'eliminated'],
		[{ time: 40 }, null, 'missing'],
		[null, {}, 'missing'], // never ranked, whatever the jumping brings
		[{ time: 40 }, {}, 'pending'],
		[{}, {}, 'pending'],
		[{ faults: 1 }, { time: 30 }, 'pending'] // faults noted, no time yet
	] as const)('%o + %o: %s', (a, b, status) => {
		expect(two(a, b)?.status).toBe(status);
	});

	it('is pending while a run has no course to score it against', () => {
		expect(two({ time: 40 }, { time: 30 }, [agility, null])?.status).toBe('pending');
		const noStandard = { ...jumping, standardTime: 0 };
		expect(two({ time: 40 }, { time: 30 }, [agility, noStandard])?.status).toBe('pending');
	});

	it('adds penalties and times exactly, to the thousandth', () => {
		const line = two({ time: 65.01, faults: 1 }, { time: 50.02, refusals: 1 });
		expect([line?.penalties, line?.time]).toEqual([10.03, 115.03]);
		const three = combinedTable(
			[0.1, 0.2, 0.3].map((t) => ({
				course: { trackLength: 100, standardTime: 1, maximalTime: 2 },
				entries: [entry('Dog', 'Handler', { time: 1 + t })]
			}))
		).lines[0];
		expect([three?.penalties, three?.time]).toEqual([0.6, 3.6]);
	});

	it('counts a course time with three decimals exactly', () => {
		const line = two({ time: 65.5 }, { time: 50 }, [{ ...agility, standardTime: 65.125 }, jumping]);
		expect(line?.penalties).toBe(0.375);
	});

	it('shares a rank on equal sums (1, 2, 2, 4) and lists the tied by name', () => {
		const table = combinedTable([
			{
				course: agility,
				entries: [
					entry('D', 'x', { time: 40 }),
					entry('C', 'x', { time: 31 }),
					entry('B', 'x', { time: 30, faults: 1 }),
					entry('A', 'x', { time: 30 })
				]
			},
			{
				course: jumping,
				entries: [
					entry('A', 'x', { time: 30 }),
					entry('B', 'x', { time: 31 }),
					entry('C', 'x', { time: 30, faults: 1 }),
					entry('D', 'x', { time: 35, faults: 1 })
				]
			}
		]);
		expect(summary(table)).toEqual([
			['A x', 'ranked', 1, 0, 60],
			['B x', 'ranked', 2, 5, 61],
			['C x', 'ranked', 2, 5, 61],
			['D x', 'ranked', 4, 5, 75]
		]);
	});

	it('matches teams by their key: the same dog with another handler is another team', () => {
		const table = combinedTable([
			{ course: agility, entries: [entry('Lux', 'Ota', { time: 40 })] },
			{ course: jumping, entries: [entry('Lux', 'Petr', { time: 30 })] }
		]);
		expect(table.lines.map((l) => [l.team, l.status])).toEqual([
			['Lux/Ota', 'missing'],
			['Lux/Petr', 'missing']
		]);
	});

	it('counts a team listed twice in one run once, at its first place', () => {
		const table = combinedTable([
			{
				course: agility,
				entries: [entry('Dog', 'H', { time: 40 }), entry('Dog', 'H', { disqualified: true })]
			},
			{ course: jumping, entries: [entry('Dog', 'H', { time: 30 })] }
		]);
		expect(summary(table)).toEqual([['Dog H', 'ranked', 1, 0, 70]]);
	});

	it('orders names by the given comparison (the UI’s collator)', () => {
		const runsOf = (names: string[]) =>
			[agility, jumping].map((course) => ({
				course,
				entries: names.map((n) => entry(n, '', { absence: true }))
			}));
		const czech = new Intl.Collator('cs').compare;
		const names = (compare?: (a: string, b: string) => number) =>
			combinedTable(runsOf(['Zora', 'Šárka', 'Sam']), compare).lines.map((l) => l.item.dog);
		expect(names()).toEqual(['Sam', 'Zora', 'Šárka']);
		expect(names(czech)).toEqual(['Sam', 'Šárka', 'Zora']);
	});

	it('is never complete without teams; complete once no team waits', () => {
		expect(combinedTable([]).complete).toBe(false);
		expect(combinedTable([{ course: agility, entries: [] }]).complete).toBe(false);
		const done = combinedTable([
			{ course: agility, entries: [entry('A', 'x', { time: 40 }), entry('B', 'x')] },
			{ course: jumping, entries: [entry('A', 'x', { time: 30 })] }
		]);
		expect([done.done, done.complete]).toEqual([2, true]); // B is missing from the jumping
	});
});

describe('combined results as CSV', () => {
	const words: CombinedCsvWords = {
		rank: 'Pořadí',
		dog: 'Pes',
		handler: 'Psovod',
		book: 'VK',
		runPenalties: (run) => `${run}: trestné body`,
		runTime: (run) => `${run}: čas (s)`,
		penalties: 'Trestné body celkem',
		time: 'Čas celkem (s)',
		status: 'Poznámka',
		dis: 'DIS',
		absent: 'Nenastoupil',
		notEntered: 'Nestartoval v běhu',
		statusText: {
			eliminated: 'Diskvalifikován v běhu',
			absent: 'Nenastoupil do běhu',
			missing: 'Není ve všech bězích',
			pending: 'Čeká na výsledek'
		},
		decimal: (value, digits) => value.toFixed(digits).replace('.', ',')
	};

	it('writes a header and one line per team, UTF-8 with a byte order mark, ";"-separated', () => {
		const table = combinedTable([
			{
				course: agility,
				entries: [
					entry('Šárka', 'Dvořáková', { time: 66.2, faults: 1 }),
					entry('Iris', 'Černá', { time: 41, disqualified: true }),
					entry('Kim', 'Pokorná', { time: 39 }),
					entry('Nela', 'Marková', { time: 37 }),
					entry('=cmd', 'Hacker', { time: 38 })
				]
			},
			{
				course: jumping,
				entries: [
					entry('Šárka', 'Dvořáková', { time: 32 }),
					entry('Iris', 'Černá', { time: 30 }),
					entry('Kim', 'Pokorná', { absence: true }),
					entry('Nela', 'Marková')
				]
			}
		]);
		const text = combinedCsv(table, ['Agility A3 L', 'Jumping; A3 L'], words);
		expect(text.startsWith('\uFEFF')).toBe(true);
		expect(text.slice(1).split('\r\n')).toEqual([
			'Pořadí;Pes;Psovod;VK;Agility A3 L: trestné body;Agility A3 L: čas (s);"Jumping; A3 L: trestné body";"Jumping; A3 L: čas (s)";Trestné body celkem;Čas celkem (s);Poznámka',
			'1;Šárka;Dvořáková;VK-Šárka;6,20;66,20;0,00;32,00;6,20;98,20;',
			';Iris;Černá;VK-Iris;DIS;41,00;0,00;30,00;;;Diskvalifikován v běhu',
			';Kim;Pokorná;VK-Kim;0,00;39,00;Nenastoupil;;;;Nenastoupil do běhu',
			";'=cmd;Hacker;VK-=cmd;0,00;38,00;Nestartoval v běhu;;;;Není ve všech bězích",
			';Nela;Marková;VK-Nela;0,00;37,00;;;;;Čeká na výsledek',
			''
		]);
	});

	it('names the file after the runs, without characters a file system refuses', () => {
		expect(combinedFileName(['Agility A3 Large', 'Jumping A3 Large'])).toBe(
			'Agility A3 Large + Jumping A3 Large-combined.csv'
		);
		expect(combinedFileName(['Zkouška: A/B', 'Jumping?'])).toBe(
			'Zkouška A B + Jumping-combined.csv'
		);
		expect(combinedFileName([])).toBe('runs-combined.csv');
	});
});

// ---- properties -------------------------------------------------------------------------------

const courseArb = fc
	.integer({ min: 30, max: 70 })
	.map((sct): CourseParams => ({ trackLength: 200, standardTime: sct, maximalTime: sct * 1.5 }));

/** Times from a short list (so that sums tie) or any hundredths between 20 and 110 s. */
const timeArb = fc.oneof(
	fc.constantFrom(30, 35.5, 40, 45.25),
	fc.integer({ min: 2000, max: 11_000 }).map((h) => h / 100)
);

const resultArb: fc.Arbitrary<DogRunResult> = fc
	.oneof(
		{ weight: 6, arbitrary: fc.record({ time: timeArb, faults: fc.nat(3), refusals: fc.nat(2) }) },
		{ weight: 1, arbitrary: fc.record({ time: fc.option(timeArb), refusals: fc.constant(3) }) },
		{ weight: 1, arbitrary: fc.record({ disqualified: fc.constant(true) }) },
		{ weight: 1, arbitrary: fc.record({ absence: fc.constant(true) }) },
		{ weight: 1, arbitrary: fc.record({ faults: fc.nat(2) }) } // not yet timed
	)
	.map((over) => result(over));

/** Teams t0..t9 (names from a short list, so that names tie too) and 2 to 4 runs of some of them. */
const runsArb: fc.Arbitrary<CombinedRun<CombinedEntrant>[]> = fc
	.array(fc.constantFrom('Alma', 'Bára', 'Cid', 'Šárka'), { minLength: 1, maxLength: 10 })
	.chain((names) =>
		fc
			.array(
				fc.record({
					course: courseArb,
					results: fc.tuple(...names.map(() => fc.option(resultArb, { freq: 6 })))
				}),
				{ minLength: 2, maxLength: 4 }
			)
			.map((runs) =>
				runs.map(({ course, results }) => ({
					course,
					entries: results.flatMap((r, i) =>
						r === null
							? []
							: [
									{
										team: `t${i}`,
										name: names[i] as string,
										item: { dog: names[i] as string, handler: '', book: '' },
										result: r
									}
								]
					)
				}))
			)
	);

const key = (table: CombinedTable<unknown>) =>
	table.lines.map((l) => [l.team, l.status, l.rank, l.penalties, l.time]);

describe('combined results: properties', () => {
	it('do not depend on the order of the runs chosen', () => {
		fc.assert(
			fc.property(
				runsArb.chain((runs) =>
					fc.tuple(
						fc.constant(runs),
						fc.shuffledSubarray(runs, {
							minLength: runs.length,
							maxLength: runs.length
						})
					)
				),
				([runs, shuffled]) => {
					const a = combinedTable(runs);
					const b = combinedTable(shuffled);
					expect(key(b)).toEqual(key(a));
					// Each line's parts follow the runs' order.
					for (const line of b.lines) {
						line.parts.forEach((part, r) => {
							const run = shuffled[r] as CombinedRun<CombinedEntrant>;
							expect(part.entry).toBe(run.entries.find((e) => e.team === line.team) ?? null);
						});
					}
				}
			)
		);
	});

	it('rank a team 1 + the teams with a smaller sum of penalties, or an equal one and less time', () => {
		fc.assert(
			fc.property(runsArb, (runs) => {
				const table = combinedTable(runs);
				const ranked = table.lines.filter((l) => l.rank !== null);
				for (const line of table.lines) {
					const scores = runs.map((run) => {
						const e = run.entries.find((x) => x.team === line.team);
						return e ? { s: score(run.course, e.result), time: e.result.time } : null;
					});
					const finishedEverywhere = scores.every((x) => x?.s.status === 'finished');
					expect(line.status === 'ranked').toBe(finishedEverywhere);
					if (!finishedEverywhere) continue;
					const thousandths = (values: number[]) =>
						values.reduce((sum, v) => sum + Math.round(v * 1000), 0) / 1000;
					expect(line.penalties).toBe(thousandths(scores.map((x) => x!.s.total)));
					expect(line.time).toBe(thousandths(scores.map((x) => x!.time as number)));
					const better = ranked.filter(
						(o) =>
							o.penalties! < line.penalties! ||
							(o.penalties === line.penalties && o.time! < line.time!)
					);
					expect(line.rank).toBe(1 + better.length);
				}
				// Ranked lines come first, in rank order.
				const ranks = table.lines.map((l) => l.rank ?? Infinity);
				expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
			})
		);
	});

	it('never move a team behind another for a clean run added for both: the penalties stay ahead', () => {
		fc.assert(
			fc.property(
				runsArb,
				courseArb,
				fc.array(fc.double({ min: 0.3, max: 1, noNaN: true }), {
					minLength: 10,
					maxLength: 10
				}),
				(runs, course, shares) => {
					const before = combinedTable(runs);
					const teams = before.lines;
					// Every team of the table runs clean: no fault, within the standard time.
					const clean: CombinedRun<CombinedEntrant> = {
						course,
						entries: teams.map((l, i) => ({
							team: l.team,
							name: l.name,
							item: l.item,
							result: result({
								time:
									Math.round(course.standardTime * (shares[i % shares.length] as number) * 100) /
									100
							})
						}))
					};
					const after = combinedTable([...runs, clean]);
					const rankOf = (table: CombinedTable<unknown>, team: string) =>
						table.lines.find((l) => l.team === team);
					for (const a of teams) {
						expect(rankOf(after, a.team)?.status).toBe(a.status);
						expect(rankOf(after, a.team)?.penalties).toBe(a.penalties);
						for (const b of teams) {
							if (a.rank === null || b.rank === null || a.penalties! >= b.penalties!) continue;
							expect(rankOf(after, a.team)!.rank!).toBeLessThan(rankOf(after, b.team)!.rank!);
						}
					}
				}
			)
		);
	});

	it('keep every rank when the clean run added takes every team the same time', () => {
		fc.assert(
			fc.property(runsArb, courseArb, (runs, course) => {
				const before = combinedTable(runs);
				const clean: CombinedRun<CombinedEntrant> = {
					course,
					entries: before.lines.map((l) => ({
						team: l.team,
						name: l.name,
						item: l.item,
						result: result({ time: course.standardTime })
					}))
				};
				const after = combinedTable([clean, ...runs]);
				expect(after.lines.map((l) => [l.team, l.rank])).toEqual(
					before.lines.map((l) => [l.team, l.rank])
				);
			})
		);
	});

	it('never rank a team lower for a better result in one run (fewer faults, less time)', () => {
		fc.assert(
			fc.property(runsArb, fc.nat(), fc.nat(), fc.nat(100), (runs, pickTeam, pickRun, cut) => {
				const before = combinedTable(runs);
				const ranked = before.lines.filter((l) => l.rank !== null);
				fc.pre(ranked.length > 0);
				const line = ranked[pickTeam % ranked.length]!;
				const r = pickRun % runs.length;
				const improved = runs.map((run, i) =>
					i !== r
						? run
						: {
								...run,
								entries: run.entries.map((e) => {
									if (e.team !== line.team) return e;
									const time = e.result.time as number;
									return {
										...e,
										result: {
											...e.result,
											faults: Math.max(0, e.result.faults - (cut % 2)),
											refusals: Math.max(0, e.result.refusals - ((cut >> 1) % 2)),
											time: Math.max(0.01, Math.round(time * (100 - (cut % 50))) / 100)
										}
									};
								})
							}
				);
				const after = combinedTable(improved).lines.find((l) => l.team === line.team);
				expect(after?.status).toBe('ranked');
				expect(after!.rank!).toBeLessThanOrEqual(line.rank!);
			})
		);
	});
});
