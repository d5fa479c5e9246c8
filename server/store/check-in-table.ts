// The check_in table: the latest mark of each dog run at the gate (src/lib/contract/check-in.ts).
// A mark is written on the condition that it wins over the stored one (its mark key is greater),
// in one statement: whichever of two writers commits last, on one process or on several instances
// of one PostgreSQL, the winner stays.
import { markKey, type CheckInMark, type CheckInStatus } from '../../src/lib/contract/check-in.ts';
import type { Sql } from './sql.ts';

export interface CheckInRow extends CheckInMark {
	dogRunId: number;
	competitionId: number;
	/** The device that took the mark (its name), where devices are known. */
	device: string | null;
}

interface Stored {
	dog_run_id: number;
	competition_id: number;
	status: CheckInStatus | null;
	marked_at: string;
	device: string | null;
}

const COLUMNS = 'dog_run_id, competition_id, status, marked_at, device';

const SQL = {
	one: `SELECT ${COLUMNS} FROM check_in WHERE dog_run_id = @id`,
	ofCompetition: `SELECT ${COLUMNS} FROM check_in WHERE competition_id = @cid ORDER BY dog_run_id`,
	mark: `INSERT INTO check_in (dog_run_id, competition_id, status, marked_at, mark_key, device)
		VALUES (@id, @cid, @status, @at, @key, @device)
		ON CONFLICT (dog_run_id) DO UPDATE SET status = excluded.status,
			marked_at = excluded.marked_at, mark_key = excluded.mark_key, device = excluded.device
		WHERE check_in.mark_key < excluded.mark_key`
} as const;

const rowOf = (r: Stored): CheckInRow => ({
	dogRunId: r.dog_run_id,
	competitionId: r.competition_id,
	status: r.status,
	markedAt: r.marked_at,
	device: r.device
});

export async function checkInOf(sql: Sql, dogRunId: number): Promise<CheckInRow | null> {
	const r = await sql.get<Stored>(SQL.one, { id: dogRunId });
	return r ? rowOf(r) : null;
}

/** Every mark of a competition, by dog run. */
export async function checkInsOf(sql: Sql, competitionId: number): Promise<CheckInRow[]> {
	return (await sql.all<Stored>(SQL.ofCompetition, { cid: competitionId })).map(rowOf);
}

/** Stores `mark` where it wins over the stored one; true: it did (false: a later mark is kept). */
export async function markCheckIn(
	sql: Sql,
	dogRunId: number,
	competitionId: number,
	mark: CheckInMark,
	device: string | null
): Promise<boolean> {
	const { changes } = await sql.run(SQL.mark, {
		id: dogRunId,
		cid: competitionId,
		status: mark.status,
		at: mark.markedAt,
		key: markKey(mark),
		device
	});
	return changes === 1;
}
