// The Repository: the data's reads (competitions, runs, dog runs, judges and rings, long pages
// read in chunks) and the two PUTs' updates, as SQL both engines run on any connection or
// transaction (`Sql`), and the rows they return; representations.ts makes resources of them.
import type { Sql } from './sql.ts';
import type { CompetitionRunPatch, DogRunPatch } from '../validation.ts';

export interface CompetitionRow {
	id: number;
	name: string;
	date_from: string;
	date_to: string;
	details: string | null;
	fees: string | null;
	state: string;
}

export interface RunRow {
	id: number;
	competition_id: number;
	name: string;
	date: string;
	start_time: string;
	standard_time_ms: number;
	maximal_time_ms: number;
	track_length: number;
	version: number;
	size_id: number;
	size_name: string;
	level_id: number;
	level_name: string;
	judge_id: number;
	judge_firstname: string;
	judge_lastname: string;
	judge_country: string;
	ring_id: number;
	ring_name: string;
	total: number;
	done: number;
}

export interface DogRunRow {
	id: number;
	competition_run_id: number;
	time_cs: number | null;
	refusals: number;
	faults: number;
	disqualified: number;
	absence: number;
	version: number;
	dog_id: number;
	dog_name: string;
	home_name: string;
	workbook_no: string;
	birthday: string;
	dog_level_id: number;
	dog_level_name: string;
	dog_size_id: number;
	dog_size_name: string;
	competitor_id: number;
	firstname: string;
	lastname: string;
	identifier: string;
	country: string | null;
}

export interface JudgeRow {
	id: number;
	firstname: string;
	lastname: string;
	country: string;
}

export interface RingRow {
	id: number;
	name: string;
}

const DONE = '(d.time_cs IS NOT NULL OR d.disqualified = 1 OR d.absence = 1)';

const RUN_SELECT = `
	SELECT cr.id, cr.competition_id, cr.name, cr.date, cr.start_time, cr.standard_time_ms,
	       cr.maximal_time_ms, cr.track_length, cr.version,
	       s.id AS size_id, s.name AS size_name, l.id AS level_id, l.name AS level_name,
	       j.id AS judge_id, j.firstname AS judge_firstname, j.lastname AS judge_lastname,
	       j.country AS judge_country, r.id AS ring_id, r.name AS ring_name,
	       (SELECT COUNT(*) FROM dog_run d WHERE d.competition_run_id = cr.id) AS total,
	       (SELECT COUNT(*) FROM dog_run d WHERE d.competition_run_id = cr.id AND ${DONE}) AS done
	FROM competition_run cr
	JOIN dog_size_class s ON s.id = cr.dog_size_class_id
	JOIN competition_run_level l ON l.id = cr.competition_run_level_id
	JOIN judge j ON j.id = cr.judge_id
	JOIN ring r ON r.id = cr.ring_id`;

const DOG_RUN_SELECT = `
	SELECT d.id, d.competition_run_id, d.time_cs, d.refusals, d.faults, d.disqualified, d.absence,
	       d.version, g.id AS dog_id, g.name AS dog_name, g.home_name, g.workbook_no, g.birthday,
	       cl.id AS dog_level_id, cl.name AS dog_level_name, ds.id AS dog_size_id,
	       ds.name AS dog_size_name, c.id AS competitor_id, c.firstname, c.lastname, c.identifier,
	       c.country
	FROM dog_run d
	JOIN dog g ON g.id = d.dog_id
	JOIN competition_level cl ON cl.id = g.competition_level_id
	JOIN dog_size_class ds ON ds.id = g.dog_size_class_id
	JOIN competitor c ON c.id = d.competitor_id`;

const RUN_FILTER = `cr.competition_id = @cid
	AND (CAST(@judgeId AS INTEGER) IS NULL OR cr.judge_id = @judgeId)
	AND (CAST(@ringId AS INTEGER) IS NULL OR cr.ring_id = @ringId)`;

const COMPETITION_FILTER = `(CAST(@dateFrom AS TEXT) IS NULL OR date_from >= @dateFrom)
	AND (CAST(@dateTo AS TEXT) IS NULL OR date_to <= @dateTo)
	AND (CAST(@state AS TEXT) IS NULL OR state = @state)`;

const NEXT_FILTER = `cr.competition_id = @cid AND cr.ring_id = @ringId AND NOT ${DONE}`;

/** Every statement of the resources, the same text on both engines (named parameters). */
/** Rows of a page read by one statement; a longer page is read in chunks, a turn of the event loop between. */
export const READ_CHUNK_ROWS = 250;

/**
 * A page of `limit` rows from `offset`, read `READ_CHUNK_ROWS` at a time with a turn of the event
 * loop between chunks (a 2,000-row page is tens of milliseconds of SQLite, which runs on this
 * thread). Call on a snapshot (`store.read`): the chunks are then one consistent page.
 */
async function inChunks<T>(
	limit: number,
	offset: number,
	read: (limit: number, offset: number) => Promise<T[]>
): Promise<T[]> {
	if (limit <= READ_CHUNK_ROWS) return read(limit, offset);
	const rows: T[] = [];
	for (let at = 0; at < limit; at += READ_CHUNK_ROWS) {
		if (at > 0) await new Promise((r) => setImmediate(r));
		const chunk = await read(Math.min(READ_CHUNK_ROWS, limit - at), offset + at);
		for (const row of chunk) rows.push(row);
		if (chunk.length < READ_CHUNK_ROWS) break;
	}
	return rows;
}

const SQL = {
	competitionCount: `SELECT COUNT(*) AS n FROM competition WHERE ${COMPETITION_FILTER}`,
	competitionPage: `SELECT * FROM competition WHERE ${COMPETITION_FILTER}
		ORDER BY date_from, id LIMIT @limit OFFSET @offset`,
	competition: 'SELECT * FROM competition WHERE id = @id',
	judges: `SELECT j.id, j.firstname, j.lastname, j.country FROM competition_judge cj
		JOIN judge j ON j.id = cj.judge_id WHERE cj.competition_id = @cid ORDER BY cj.position, j.id`,
	rings: 'SELECT id, name FROM ring WHERE competition_id = @cid ORDER BY id',
	ring: 'SELECT id, name FROM ring WHERE competition_id = @cid AND id = @id',
	ringById: 'SELECT id, competition_id, name FROM ring WHERE id = @id',
	ringLabel: `SELECT r.name, c.name AS competition,
		  (SELECT COUNT(*) FROM ring o WHERE o.name = r.name AND o.id <> r.id) AS others
		FROM ring r JOIN competition c ON c.id = r.competition_id WHERE r.id = @id`,
	ringIds: 'SELECT id FROM ring',
	lastDay: 'SELECT MAX(date_to) AS last FROM competition',
	runCount: `SELECT COUNT(*) AS n FROM competition_run cr WHERE ${RUN_FILTER}`,
	runPage: `${RUN_SELECT} WHERE ${RUN_FILTER}
		ORDER BY cr.date, cr.start_time, cr.ring_id, cr.id LIMIT @limit OFFSET @offset`,
	run: `${RUN_SELECT} WHERE cr.id = @id`,
	dogRunCount: 'SELECT COUNT(*) AS n FROM dog_run WHERE competition_run_id = @runId',
	dogRunPage: `${DOG_RUN_SELECT} WHERE d.competition_run_id = @runId
		ORDER BY d.start_no, d.id LIMIT @limit OFFSET @offset`,
	dogRun: `${DOG_RUN_SELECT} WHERE d.id = @id`,
	nextCount: `SELECT COUNT(*) AS n FROM dog_run d
		JOIN competition_run cr ON cr.id = d.competition_run_id WHERE ${NEXT_FILTER}`,
	nextPage: `${DOG_RUN_SELECT} JOIN competition_run cr ON cr.id = d.competition_run_id
		WHERE ${NEXT_FILTER}
		ORDER BY cr.date, cr.start_time, cr.id, d.start_no, d.id LIMIT @limit OFFSET @offset`,
	// Conditional on the version the new values were computed from: a change that another
	// instance committed in between makes it update nothing (the caller reads again, or 412).
	updateDogRun: `UPDATE dog_run SET time_cs = @time_cs, refusals = @refusals, faults = @faults,
		disqualified = @disqualified, absence = @absence, version = version + 1
		WHERE id = @id AND version = @version`,
	updateRun: `UPDATE competition_run SET track_length = @track_length,
		standard_time_ms = @standard_time_ms, maximal_time_ms = @maximal_time_ms,
		version = version + 1 WHERE id = @id AND version = @version`
} as const;

export interface CompetitionFilter {
	dateFrom: string | null;
	dateTo: string | null;
	state: string | null;
}

export interface RunFilter {
	cid: number;
	judgeId: number | null;
	ringId: number | null;
}

const countOf = (row: { n: number | string } | undefined): number => Number(row?.n ?? 0);

/** The queries of the resources on one connection or transaction (`Sql`, either engine). */
export class Repository {
	readonly sql: Sql;

	constructor(sql: Sql) {
		this.sql = sql;
	}

	async countCompetitions(f: CompetitionFilter): Promise<number> {
		return countOf(await this.sql.get(SQL.competitionCount, { ...f }));
	}

	competitionPage(f: CompetitionFilter, limit: number, offset: number): Promise<CompetitionRow[]> {
		return this.sql.all<CompetitionRow>(SQL.competitionPage, { ...f, limit, offset });
	}

	competition(id: number): Promise<CompetitionRow | undefined> {
		return this.sql.get<CompetitionRow>(SQL.competition, { id });
	}

	judges(competitionId: number): Promise<JudgeRow[]> {
		return this.sql.all<JudgeRow>(SQL.judges, { cid: competitionId });
	}

	rings(competitionId: number): Promise<RingRow[]> {
		return this.sql.all<RingRow>(SQL.rings, { cid: competitionId });
	}

	ring(competitionId: number, ringId: number): Promise<RingRow | undefined> {
		return this.sql.get<RingRow>(SQL.ring, { cid: competitionId, id: ringId });
	}

	/** A ring of any competition, by its id. */
	ringById(id: number): Promise<(RingRow & { competition_id: number }) | undefined> {
		return this.sql.get<RingRow & { competition_id: number }>(SQL.ringById, { id });
	}

	/**
	 * A ring's name as a message names it: "Ring 1", or "Ring 1 (Czech Agility Open 2026)" when
	 * another ring has the same name (every competition may have a Ring 1). Undefined: no ring.
	 */
	async ringLabel(id: number): Promise<string | undefined> {
		const r = await this.sql.get<{ name: string; competition: string; others: number | string }>(
			SQL.ringLabel,
			{ id }
		);
		if (!r) return undefined;
		return Number(r.others) > 0 ? `${r.name} (${r.competition})` : r.name;
	}

	/** The ids of every ring (of every competition). */
	async ringIds(): Promise<Set<number>> {
		return new Set((await this.sql.all<{ id: number }>(SQL.ringIds)).map((r) => r.id));
	}

	/** The last day of the latest competition (YYYY-MM-DD), or undefined with none. */
	async lastDay(): Promise<string | undefined> {
		return (await this.sql.get<{ last: string | null }>(SQL.lastDay))?.last ?? undefined;
	}

	async countRuns(f: RunFilter): Promise<number> {
		return countOf(await this.sql.get(SQL.runCount, { ...f }));
	}

	runPage(f: RunFilter, limit: number, offset: number): Promise<RunRow[]> {
		return inChunks(limit, offset, (l, o) =>
			this.sql.all<RunRow>(SQL.runPage, { ...f, limit: l, offset: o })
		);
	}

	run(id: number): Promise<RunRow | undefined> {
		return this.sql.get<RunRow>(SQL.run, { id });
	}

	async countDogRuns(runId: number): Promise<number> {
		return countOf(await this.sql.get(SQL.dogRunCount, { runId }));
	}

	dogRunPage(runId: number, limit: number, offset: number): Promise<DogRunRow[]> {
		return inChunks(limit, offset, (l, o) =>
			this.sql.all<DogRunRow>(SQL.dogRunPage, { runId, limit: l, offset: o })
		);
	}

	dogRun(id: number): Promise<DogRunRow | undefined> {
		return this.sql.get<DogRunRow>(SQL.dogRun, { id });
	}

	async countNext(cid: number, ringId: number): Promise<number> {
		return countOf(await this.sql.get(SQL.nextCount, { cid, ringId }));
	}

	nextPage(cid: number, ringId: number, limit: number, offset: number): Promise<DogRunRow[]> {
		return inChunks(limit, offset, (l, o) =>
			this.sql.all<DogRunRow>(SQL.nextPage, { cid, ringId, limit: l, offset: o })
		);
	}

	/**
	 * Applies a validated partial update to the dog run as `current` shows it. False when the
	 * stored version is no longer `current`'s (another writer came first): nothing changed.
	 */
	async updateDogRun(current: DogRunRow, patch: DogRunPatch): Promise<boolean> {
		const { changes } = await this.sql.run(SQL.updateDogRun, {
			id: current.id,
			version: current.version,
			time_cs: patch.timeCs !== undefined ? patch.timeCs : current.time_cs,
			refusals: patch.refusals ?? current.refusals,
			faults: patch.faults ?? current.faults,
			disqualified: (patch.disqualified ?? current.disqualified === 1) ? 1 : 0,
			absence: (patch.absence ?? current.absence === 1) ? 1 : 0
		});
		return changes === 1;
	}

	/** As updateDogRun, for a competition run's course parameters. */
	async updateRun(current: RunRow, patch: CompetitionRunPatch): Promise<boolean> {
		const { changes } = await this.sql.run(SQL.updateRun, {
			id: current.id,
			version: current.version,
			track_length: patch.trackLength ?? current.track_length,
			standard_time_ms: patch.standardTimeMs ?? current.standard_time_ms,
			maximal_time_ms: patch.maximalTimeMs ?? current.maximal_time_ms
		});
		return changes === 1;
	}
}
