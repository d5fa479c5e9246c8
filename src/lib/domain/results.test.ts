import { describe, expect, it } from 'vitest';
import {
	figuresOf,
	resultsCsv,
	resultsFileName,
	resultTable,
	type Entrant,
	type ResultEntry,
	type ResultsCsvWords
} from './results';
import type { CourseParams, DogRunResult } from './types';

const course: CourseParams = { trackLength: 219, standardTime: 65, maximalTime: 98 };

const result = (over: Partial<DogRunResult> = {}): DogRunResult => ({
	time: null,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false,
	...over
});

let next = 0;
const entry = (
	over: Partial<DogRunResult> = {},
	who: Partial<Entrant> = {}
): ResultEntry<Entrant> => {
	next += 1;
	return {
		item: { dog: `Dog ${next}`, handler: `Handler ${next}`, book: `VK ${next}`, ...who },
		startNo: next,
		result: result(over)
	};
};

describe('a run’s result table', () => {
	it('lists ranked dogs, then disqualified, then absent, then not yet run', () => {
		next = 0;
		const table = resultTable(
			[
				entry({ absence: true }), // 1
				entry(), // 2, not run
				entry({ time: 40, faults: 1 }), // 3: 5
				entry({ time: 38.63, disqualified: true }), // 4: DIS
				entry({ time: 38.63 }), // 5: 0
				entry({ refusals: 3 }), // 6: DIS
				entry({ time: 99 }) // 7: over MCT, DIS
			],
			course
		);
		expect(table.lines.map((l) => [l.startNo, l.rank, l.score.status])).toEqual([
			[5, 1, 'finished'],
			[3, 2, 'finished'],
			[4, null, 'eliminated'],
			[6, null, 'eliminated'],
			[7, null, 'eliminated'],
			[1, null, 'absent'],
			[2, null, 'pending']
		]);
		expect(table.done).toBe(6);
		expect(table.complete).toBe(false);
	});

	it('is complete once every dog has a result, and never without dogs', () => {
		next = 0;
		expect(resultTable([entry({ time: 40 }), entry({ absence: true })], course).complete).toBe(
			true
		);
		expect(resultTable([], course).complete).toBe(false);
	});

	it('shares a rank on equal total, course faults and time (1, 2, 2, 4)', () => {
		next = 0;
		const table = resultTable(
			[entry({ time: 30 }), entry({ time: 31 }), entry({ time: 31 }), entry({ time: 32 })],
			course
		);
		expect(table.lines.map((l) => l.rank)).toEqual([1, 2, 2, 4]);
	});

	it('counts a dog with a time but no standard time as not yet scored', () => {
		next = 0;
		const table = resultTable([entry({ time: 40 })], { ...course, standardTime: 0 });
		expect(table.lines[0]!.score.status).toBe('pending');
		expect(table.complete).toBe(false);
	});
});

describe('figures of a result line', () => {
	const line = (over: Partial<DogRunResult>, c: CourseParams = course) =>
		figuresOf(resultTable([entry(over)], c).lines[0]!);

	it('shows everything of a finished dog, speed included (219 m / 38.63 s = 5.67 m/s)', () => {
		expect(line({ time: 68.17, faults: 2, refusals: 1 })).toEqual({
			faults: 2,
			refusals: 1,
			time: 68.17,
			timeFaults: 3.17,
			total: 18.17,
			speed: 3.21,
			outcome: 'D'
		});
		expect(line({ time: 38.63 }).speed).toBe(5.67);
	});

	it('shows what was recorded of a disqualified dog, but no penalties', () => {
		expect(line({ time: 40, faults: 1, disqualified: true })).toEqual({
			faults: 1,
			refusals: 0,
			time: 40,
			timeFaults: null,
			total: null,
			speed: null,
			outcome: 'DIS'
		});
	});

	it('shows nothing of an absent dog but the word', () => {
		expect(line({ absence: true })).toMatchObject({ time: null, faults: null, outcome: 'absent' });
	});

	it('shows nothing of a dog not yet run, and the time of one not yet scored', () => {
		expect(line({})).toMatchObject({ time: null, faults: null, outcome: null });
		expect(line({ time: 41, faults: 1 }, { ...course, standardTime: 0 })).toMatchObject({
			time: 41,
			faults: 1,
			total: null,
			outcome: null
		});
	});
});

describe('results CSV', () => {
	const words: ResultsCsvWords = {
		header: {
			rank: 'Pořadí',
			startNo: 'Start. č.',
			dog: 'Pes',
			handler: 'Psovod',
			book: 'VK',
			faults: 'Chyby',
			refusals: 'Odmítnutí',
			time: 'Čas',
			timeFaults: 'Trestné body za čas',
			total: 'Celkem',
			speed: 'Rychlost (m/s)',
			grade: 'Hodnocení'
		},
		outcome: { V: 'V', VD: 'VD', D: 'D', BO: 'BO', DIS: 'DIS', absent: 'Nenastoupil' },
		decimal: (value, digits) =>
			new Intl.NumberFormat('cs', {
				minimumFractionDigits: digits,
				maximumFractionDigits: digits,
				useGrouping: false
			}).format(value)
	};

	it('starts with a byte order mark and a header, separated by semicolons, lines ended by CRLF', () => {
		next = 0;
		const csv = resultsCsv(
			resultTable([entry({ time: 68.17, faults: 2, refusals: 1 })], course),
			words
		);
		expect(csv.startsWith('\uFEFFPořadí;Start. č.;Pes;Psovod;VK;')).toBe(true);
		expect(csv.split('\r\n')).toEqual([
			'\uFEFFPořadí;Start. č.;Pes;Psovod;VK;Chyby;Odmítnutí;Čas;Trestné body za čas;Celkem;Rychlost (m/s);Hodnocení',
			'1;1;Dog 1;Handler 1;VK 1;2;1;68,17;3,17;18,17;3,21;D',
			''
		]);
	});

	it('writes disqualified, absent and not-yet-run dogs after the ranked ones', () => {
		next = 0;
		const csv = resultsCsv(
			resultTable(
				[
					entry(),
					entry({ absence: true }),
					entry({ time: 30, disqualified: true }),
					entry({ time: 30 })
				],
				course
			),
			words
		);
		expect(csv.split('\r\n').slice(1, -1)).toEqual([
			'1;4;Dog 4;Handler 4;VK 4;0;0;30,00;0,00;0,00;7,30;V',
			';3;Dog 3;Handler 3;VK 3;0;0;30,00;;;;DIS',
			';2;Dog 2;Handler 2;VK 2;;;;;;;Nenastoupil',
			';1;Dog 1;Handler 1;VK 1;;;;;;;'
		]);
	});

	it('keeps Czech names, quotes separators and quotes, and defuses formulas', () => {
		next = 0;
		const csv = resultsCsv(
			resultTable(
				[
					entry(
						{ time: 40 },
						{ dog: 'Šmudla "Bo"; Border Magic', handler: '=cmd|/c calc', book: '-12' }
					)
				],
				course
			),
			words
		);
		const line = csv.split('\r\n')[1]!;
		expect(line).toBe(
			`1;1;"Šmudla ""Bo""; Border Magic";'=cmd|/c calc;'-12;0;0;40,00;0,00;0,00;5,48;V`
		);
	});
});

describe('results file name', () => {
	it('is the run’s name with -results.csv, keeping letters and dropping what file systems refuse', () => {
		expect(resultsFileName('Jumping A3 Large')).toBe('Jumping A3 Large-results.csv');
		expect(resultsFileName('Zkouška: A1/S*?')).toBe('Zkouška A1 S-results.csv');
		expect(resultsFileName('..')).toBe('run-results.csv');
		expect(resultsFileName('  ')).toBe('run-results.csv');
	});
});
