// The mirror_list table: the upstream's lists the mirror reads again for what changed there (each
// competition's runs, each run's dog runs: `collection`), by the address of their first page. The
// mirror's import writes them (server/mirror/import.ts), its pull reads them
// (server/mirror/pull.ts).
import type { Sql } from './sql.ts';

/** A list as the pull reads it: its first page, and what it lists. */
export interface MirrorListRow {
	href: string;
	collection: string;
}

/** A list as the import stores it: with its competition and (a run's dog runs) its run. */
export interface NewMirrorList extends MirrorListRow {
	competitionId: number;
	runId: number | null;
}

const SQL = {
	lists: 'SELECT href, collection FROM mirror_list ORDER BY collection DESC, href',
	// The dog runs of the runs of one day: where results are being recorded and corrected.
	dayLists: `SELECT l.href, l.collection FROM mirror_list l
		JOIN competition_run r ON r.id = l.run_id WHERE r.date = @day ORDER BY l.href`,
	runLists: 'SELECT href, collection FROM mirror_list WHERE run_id = @run',
	insert: `INSERT INTO mirror_list (href, collection, competition_id, run_id)
		VALUES (@href, @collection, @cid, @run) ON CONFLICT (href) DO NOTHING`
} as const;

/** Every list: the runs' lists first, then by address. */
export async function mirrorLists(sql: Sql): Promise<MirrorListRow[]> {
	return sql.all<MirrorListRow>(SQL.lists);
}

/** The dog runs of the runs of `day` (YYYY-MM-DD), by address. */
export async function mirrorListsOfDay(sql: Sql, day: string): Promise<MirrorListRow[]> {
	return sql.all<MirrorListRow>(SQL.dayLists, { day });
}

/** The dog runs of run `run`. */
export async function mirrorListsOfRun(sql: Sql, run: number): Promise<MirrorListRow[]> {
	return sql.all<MirrorListRow>(SQL.runLists, { run });
}

/** Stores `list`, unless a list of its address is stored already. */
export async function addMirrorList(sql: Sql, list: NewMirrorList): Promise<void> {
	await sql.run(SQL.insert, {
		href: list.href,
		collection: list.collection,
		cid: list.competitionId,
		run: list.runId
	});
}
