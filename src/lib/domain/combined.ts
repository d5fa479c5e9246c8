/**
 * Combined results of two or more runs (agility + jumping of one size and level, for example), as
 * docs/results.md ("Combined results") states the rule. The results service has no such list, so
 * this is computed on the device and always labelled provisional.
 *
 * - A team is one dog with one handler: the caller gives each entry a team key (dog id and
 *   competitor id); the same dog with another handler is another team.
 * - Ranked: a team with a scored result (finished, scoring.ts) in every chosen run, by the sum of
 *   the runs' total penalties, then the sum of their times, lowest first. Teams equal on both
 *   share a rank (1, 2, 2, 4). No course-fault tie-break (the docs say why).
 * - Unranked, in this order: disqualified in a chosen run; absent from one (and disqualified in
 *   none); not in every run's start list; waiting for a result in a run.
 *
 * Sums run on integer thousandths, like scoring.ts, so 0.1 + 0.2 is 0.3 exactly.
 */
import { BOM, csvText, type CsvValue } from './csv';
import { score, type Score } from './scoring';
import type { CourseParams, DogRunResult } from './types';

export interface CombinedEntry<T> {
	/** The team: the same key in two runs means the same dog with the same handler. */
	team: string;
	/** Dog and handler as printed: how lines sharing a place, and unranked lines, are ordered. */
	name: string;
	/** Whatever the caller shows of the team; taken from the first run (in the order given). */
	item: T;
	result: DogRunResult;
}

export interface CombinedRun<T> {
	/** The run's start list; a team listed twice counts once, at its first place. */
	entries: readonly CombinedEntry<T>[];
	/** null: the run's course is not known, and nothing of it can be scored. */
	course: CourseParams | null;
}

/**
 * ranked: a scored result in every run. eliminated: disqualified in at least one run. absent:
 * absent from at least one run, disqualified in none. missing: not in the start list of at least
 * one run (never ranked, whatever comes). pending: in every run, without a result yet in one.
 */
export type CombinedStatus = 'ranked' | 'eliminated' | 'absent' | 'missing' | 'pending';

export interface CombinedPart<T> {
	/** null: the team is not in this run's start list. */
	entry: CombinedEntry<T> | null;
	/** The team's score in this run; null when it is not in the run. */
	score: Score | null;
}

export interface CombinedLine<T> {
	team: string;
	name: string;
	item: T;
	/** One per run, in the order the runs were given. */
	parts: CombinedPart<T>[];
	status: CombinedStatus;
	/** Sum of the runs' total penalties; null unless ranked. */
	penalties: number | null;
	/** Sum of the runs' times, seconds; null unless ranked. */
	time: number | null;
	/** 1, 2, 2, 4; null unless ranked. */
	rank: number | null;
}

export interface CombinedTable<T> {
	/** Ranked teams, then disqualified, absent, missing from a run, and pending ones. */
	lines: CombinedLine<T>[];
	/** Teams whose line is settled: every status but pending. */
	done: number;
	/** No team waits for a result (and there is at least one team). */
	complete: boolean;
}

const GROUP: Record<CombinedStatus, number> = {
	ranked: 0,
	eliminated: 1,
	absent: 2,
	missing: 3,
	pending: 4
};

const milli = (value: number): number => Math.round(value * 1000);

function statusOf(scores: readonly (Score | null)[]): CombinedStatus {
	if (scores.some((s) => s?.status === 'eliminated')) return 'eliminated';
	if (scores.some((s) => s?.status === 'absent')) return 'absent';
	if (scores.some((s) => s === null)) return 'missing';
	if (scores.some((s) => s?.status === 'pending')) return 'pending';
	return 'ranked';
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The combined table of `runs` (two or more for a combined result; any number works). The order
 * of the lines does not depend on the order of the runs; only each line's `parts` follow it.
 * `compareNames` orders names (the UI passes its language's collator); the default compares code
 * units, which is the same on every machine.
 */
export function combinedTable<T>(
	runs: readonly CombinedRun<T>[],
	compareNames: (a: string, b: string) => number = byCodeUnits
): CombinedTable<T> {
	const teams = new Map<string, { first: CombinedEntry<T>; byRun: (CombinedEntry<T> | null)[] }>();
	runs.forEach((run, r) => {
		for (const entry of run.entries) {
			let team = teams.get(entry.team);
			if (!team) {
				team = { first: entry, byRun: runs.map(() => null) };
				teams.set(entry.team, team);
			}
			team.byRun[r] ??= entry;
		}
	});

	const rows = [...teams.values()].map(({ first, byRun }) => {
		const parts: CombinedPart<T>[] = byRun.map((entry, r) => ({
			entry,
			score: entry ? score((runs[r] as CombinedRun<T>).course, entry.result) : null
		}));
		const status = statusOf(parts.map((p) => p.score));
		let penaltiesMilli = 0;
		let timeMilli = 0;
		if (status === 'ranked') {
			for (const part of parts) {
				penaltiesMilli += milli((part.score as Score).total);
				timeMilli += milli(part.entry?.result.time as number);
			}
		}
		return { first, parts, status, penaltiesMilli, timeMilli };
	});

	rows.sort(
		(a, b) =>
			GROUP[a.status] - GROUP[b.status] ||
			(a.status === 'ranked'
				? a.penaltiesMilli - b.penaltiesMilli || a.timeMilli - b.timeMilli
				: 0) ||
			compareNames(a.first.name, b.first.name) ||
			byCodeUnits(a.first.team, b.first.team)
	);

	let rank = 0;
	let previous: (typeof rows)[number] | undefined;
	const lines = rows.map((row, position): CombinedLine<T> => {
		const ranked = row.status === 'ranked';
		if (ranked) {
			const tied =
				previous !== undefined &&
				previous.penaltiesMilli === row.penaltiesMilli &&
				previous.timeMilli === row.timeMilli;
			if (!tied) rank = position + 1;
			previous = row;
		}
		return {
			team: row.first.team,
			name: row.first.name,
			item: row.first.item,
			parts: row.parts,
			status: row.status,
			penalties: ranked ? row.penaltiesMilli / 1000 : null,
			time: ranked ? row.timeMilli / 1000 : null,
			rank: ranked ? rank : null
		};
	});
	const done = lines.filter((line) => line.status !== 'pending').length;
	return { lines, done, complete: lines.length > 0 && done === lines.length };
}

/** Who ran, as the file names them. */
export interface CombinedEntrant {
	dog: string;
	handler: string;
	/** Performance book number. */
	book: string;
}

/** The words and number format of the file, from the UI's language. */
export interface CombinedCsvWords {
	rank: string;
	dog: string;
	handler: string;
	book: string;
	/** The header of a run's penalties and of its time. */
	runPenalties: (run: string) => string;
	runTime: (run: string) => string;
	penalties: string;
	time: string;
	/** The column saying why a team is not ranked. */
	status: string;
	/** A run's penalties cell for a team that was disqualified, absent, or not in the run. */
	dis: string;
	absent: string;
	notEntered: string;
	/** The status column of an unranked line. */
	statusText: Record<Exclude<CombinedStatus, 'ranked'>, string>;
	/** A number with `digits` fraction digits, in the language's decimal separator. */
	decimal: (value: number, digits: number) => string;
}

/**
 * The combined results as CSV, like a run's (results.ts): UTF-8 with a byte order mark, ';'. One
 * line per team: rank, dog, handler, book, each run's penalties and time, the sums, and why an
 * unranked team is not ranked. A disqualified or absent run says so in its penalties cell (with
 * the time recorded, if any); a run the team is not in says so; a run not yet run is empty.
 */
export function combinedCsv<T extends CombinedEntrant>(
	table: CombinedTable<T>,
	runNames: readonly string[],
	words: CombinedCsvWords,
	separator = ';'
): string {
	const number = (value: number | null, digits = 2): CsvValue =>
		value === null ? null : words.decimal(value, digits);
	const header = [
		words.rank,
		words.dog,
		words.handler,
		words.book,
		...runNames.flatMap((name) => [words.runPenalties(name), words.runTime(name)]),
		words.penalties,
		words.time,
		words.status
	];
	const lines = table.lines.map((line): CsvValue[] => [
		line.rank,
		line.item.dog,
		line.item.handler,
		line.item.book,
		...line.parts.flatMap((part): CsvValue[] => {
			const s = part.score;
			const time = number(part.entry?.result.time ?? null);
			if (s === null) return [words.notEntered, null];
			switch (s.status) {
				case 'finished':
					return [number(s.total), time];
				case 'eliminated':
					return [words.dis, time];
				case 'absent':
					return [words.absent, null];
				case 'pending':
					return [null, time];
			}
		}),
		number(line.penalties),
		number(line.time),
		line.status === 'ranked' ? null : words.statusText[line.status]
	]);
	return BOM + csvText([header, ...lines], separator);
}

/** `<run> + <run>-combined.csv`, without characters a file system refuses; letters kept. */
export function combinedFileName(runNames: readonly string[]): string {
	const safe = runNames
		.join(' + ')
		.replace(/[\\/:*?"<>|\p{Cc}]+/gu, ' ')
		.replace(/\s+/g, ' ')
		.trim()
		.replace(/^\.+/, '')
		.slice(0, 150)
		.trim();
	return `${safe || 'runs'}-combined.csv`;
}
