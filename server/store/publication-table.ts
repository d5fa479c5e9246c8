// The publication table: what public views show of each competition (src/lib/contract/
// publication.ts). A competition without a row shows everything, at version 0; the first change
// inserts its row, every later one updates it on the condition that it is still the version read.
import {
	OPEN_PUBLICATION,
	type HandlerNames,
	type Publication,
	type ResultsMode
} from '../../src/lib/contract/publication.ts';
import type { Sql } from './sql.ts';

/** A competition's publication settings as stored. */
export interface PublicationRow extends Publication {
	competitionId: number;
	/** Raised by every change; 0: never changed (no row). */
	version: number;
	/** ISO time of the last change; null: never changed. */
	updatedAt: string | null;
}

interface Stored {
	competition_id: number;
	handler_names: HandlerNames;
	results: ResultsMode;
	released_runs: string;
	version: number;
	updated_at: string;
}

const SQL = {
	one: `SELECT competition_id, handler_names, results, released_runs, version, updated_at
		FROM publication WHERE competition_id = @cid`,
	all: `SELECT competition_id, handler_names, results, released_runs, version, updated_at
		FROM publication`,
	insert: `INSERT INTO publication (competition_id, handler_names, results, released_runs,
		version, updated_at) VALUES (@cid, @names, @results, @released, 1, @at)
		ON CONFLICT (competition_id) DO NOTHING`,
	update: `UPDATE publication SET handler_names = @names, results = @results,
		released_runs = @released, version = version + 1, updated_at = @at
		WHERE competition_id = @cid AND version = @version`
} as const;

const rowOf = (r: Stored): PublicationRow => ({
	competitionId: r.competition_id,
	handlerNames: r.handler_names,
	results: r.results,
	releasedRuns: JSON.parse(r.released_runs) as number[],
	version: r.version,
	updatedAt: r.updated_at
});

/** The settings of competition `cid` (everything shown when it has none). */
export async function publicationOf(sql: Sql, cid: number): Promise<PublicationRow> {
	const r = await sql.get<Stored>(SQL.one, { cid });
	return r ? rowOf(r) : { competitionId: cid, ...OPEN_PUBLICATION, version: 0, updatedAt: null };
}

/** Every competition's settings that were ever changed (a push channel starts from them). */
export async function allPublications(sql: Sql): Promise<Map<number, Publication>> {
	const rows = await sql.all<Stored>(SQL.all);
	return new Map(rows.map((r) => [r.competition_id, rowOf(r)]));
}

/**
 * Writes `next` over `current` on the condition that it is still the version read; false: another
 * writer came first (nothing changed).
 */
export async function updatePublication(
	sql: Sql,
	current: PublicationRow,
	next: Publication,
	at: string
): Promise<boolean> {
	const params = {
		cid: current.competitionId,
		names: next.handlerNames,
		results: next.results,
		released: JSON.stringify(next.releasedRuns),
		at
	};
	const { changes } =
		current.version === 0
			? await sql.run(SQL.insert, params)
			: await sql.run(SQL.update, { ...params, version: current.version });
	return changes === 1;
}
