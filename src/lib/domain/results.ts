/**
 * A run's provisional results as the secretary publishes them: dogs in rank order, then the
 * disqualified, then the absent, then those that have not run; each with the figures a results
 * list shows. Ranking and scoring are scoring.ts's; this only orders, counts and picks figures.
 */
import { BOM, csvText, type CsvValue } from './csv';
import { rankRun, type Grade, type Score } from './scoring';
import type { CourseParams, DogRunResult } from './types';

export interface ResultEntry<T> {
	/** Whatever the caller shows of the dog (names, links); carried through untouched. */
	item: T;
	startNo: number;
	result: DogRunResult;
}

export interface ResultLine<T> extends ResultEntry<T> {
	score: Score;
	/** 1, 2, 2, 4; null for the disqualified, the absent and dogs not yet run. */
	rank: number | null;
}

export interface ResultTable<T> {
	/** Ranked dogs, then disqualified, then absent, then not yet run (each group in start order). */
	lines: ResultLine<T>[];
	/** Dogs that have a result: ranked, disqualified or absent. */
	done: number;
	/** Every dog of the run has a result (a run without dogs is never complete). */
	complete: boolean;
}

export function resultTable<T>(
	entries: readonly ResultEntry<T>[],
	course: CourseParams | null
): ResultTable<T> {
	const ranked = rankRun(
		entries.map((entry, index) => ({ id: index, result: entry.result })),
		course
	);
	const lines = ranked.map(({ id, score, rank }) => ({
		...(entries[id] as ResultEntry<T>),
		score,
		rank
	}));
	const done = lines.filter((line) => line.score.status !== 'pending').length;
	return { lines, done, complete: lines.length > 0 && done === lines.length };
}

/** What a results list writes in a line; null where it writes nothing. */
export interface ResultFigures {
	faults: number | null;
	refusals: number | null;
	/** Seconds. */
	time: number | null;
	timeFaults: number | null;
	total: number | null;
	/** m/s. */
	speed: number | null;
	/** The band, DIS, 'absent', or null for a dog not yet run. */
	outcome: Grade | 'absent' | null;
}

const NONE: ResultFigures = {
	faults: null,
	refusals: null,
	time: null,
	timeFaults: null,
	total: null,
	speed: null,
	outcome: null
};

/**
 * A finished dog shows everything; a disqualified one what was recorded (time, faults, refusals)
 * and DIS; an absent one nothing; a dog not yet scored its time if one is recorded (the course may
 * lack a standard time).
 */
export function figuresOf(line: Pick<ResultLine<unknown>, 'result' | 'score'>): ResultFigures {
	const { result: r, score: s } = line;
	switch (s.status) {
		case 'finished':
			return {
				faults: r.faults,
				refusals: r.refusals,
				time: r.time,
				timeFaults: s.timeFaults,
				total: s.total,
				speed: s.speed,
				outcome: s.grade
			};
		case 'eliminated':
			return { ...NONE, faults: r.faults, refusals: r.refusals, time: r.time, outcome: 'DIS' };
		case 'absent':
			return { ...NONE, outcome: 'absent' };
		case 'pending':
			return r.time === null
				? NONE
				: { ...NONE, faults: r.faults, refusals: r.refusals, time: r.time };
	}
}

export const RESULT_COLUMNS = [
	'rank',
	'startNo',
	'dog',
	'handler',
	'book',
	'faults',
	'refusals',
	'time',
	'timeFaults',
	'total',
	'speed',
	'grade'
] as const;
export type ResultColumn = (typeof RESULT_COLUMNS)[number];

/** Who ran, as the file names them. */
export interface Entrant {
	dog: string;
	handler: string;
	/** Performance book number. */
	book: string;
}

/** The words and number format of the file, from the UI's language. */
export interface ResultsCsvWords {
	header: Record<ResultColumn, string>;
	outcome: Record<Grade | 'absent', string>;
	/** A number with `digits` fraction digits, in the language's decimal separator. */
	decimal: (value: number, digits: number) => string;
}

/**
 * Separator: a semicolon. The secretary opens the file by double-click in Excel, which splits on
 * the system's list separator; in Czech and most continental locales that is ';' because ',' is
 * the decimal separator, and our times carry a decimal comma there. A comma-separated file opens
 * as one column in those locales; a ';' one still imports anywhere (LibreOffice and Google Sheets
 * detect it). No "sep=;" line: with it, Excel ignores the byte order mark and garbles "Šárka".
 */
export const RESULTS_CSV_SEPARATOR = ';';

/** The results of one run as CSV: UTF-8 with a byte order mark, header line, one line per dog. */
export function resultsCsv(
	table: ResultTable<Entrant>,
	words: ResultsCsvWords,
	separator = RESULTS_CSV_SEPARATOR
): string {
	const number = (value: number | null, digits: number): CsvValue =>
		value === null ? null : words.decimal(value, digits);
	const lines = table.lines.map((line): CsvValue[] => {
		const f = figuresOf(line);
		return [
			line.rank,
			line.startNo,
			line.item.dog,
			line.item.handler,
			line.item.book,
			f.faults,
			f.refusals,
			number(f.time, 2),
			number(f.timeFaults, 2),
			number(f.total, 2),
			number(f.speed, 2),
			f.outcome === null ? null : words.outcome[f.outcome]
		];
	});
	return BOM + csvText([RESULT_COLUMNS.map((c) => words.header[c]), ...lines], separator);
}

/** `<run name>-results.csv`, without characters a file system refuses; letters kept (Czech). */
export function resultsFileName(runName: string): string {
	const safe = runName
		.replace(/[\\/:*?"<>|\p{Cc}]+/gu, ' ')
		.replace(/\s+/g, ' ')
		.trim()
		.replace(/^\.+/, '');
	return `${safe || 'run'}-results.csv`;
}
