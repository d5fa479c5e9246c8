// The mirror_resource table: each resource the mirror holds a copy of (a run or a dog run: `kind`
// and the upstream's id), where it lives on the upstream service, its run and competition, and
// the editable fields it was last seen holding there (JSON text, which only the mirror reads) with
// when that was learnt (ms since 1970). The mirror's import writes a row per resource
// (server/mirror/import.ts); its publisher and pull learn what the upstream holds
// (server/mirror/outbox.ts).
import type { Sql } from './sql.ts';

/** A mirrored resource as stored. */
export interface MirrorResourceRow {
	kind: string;
	id: number;
	href: string;
	runId: number;
	competitionId: number;
	/** The editable fields last seen upstream, as JSON; null: not known. */
	known: string | null;
	/** When `known` was learnt (ms since 1970; 0 when never). */
	knownAt: number;
}

interface Stored {
	kind: string;
	id: number;
	href: string;
	run_id: number;
	competition_id: number;
	known: string | null;
	known_at: number | null;
}

const SQL = {
	resource: `SELECT kind, id, href, run_id, competition_id, known, known_at FROM mirror_resource
		WHERE kind = @kind AND id = @id`,
	putResource: `INSERT INTO mirror_resource (kind, id, href, run_id, competition_id, known, known_at)
		VALUES (@kind, @id, @href, @run_id, @competition_id, @known, @known_at)
		ON CONFLICT (kind, id) DO UPDATE SET href = excluded.href, known = excluded.known,
		known_at = excluded.known_at`,
	setKnown: `UPDATE mirror_resource SET known = @known, known_at = @known_at
		WHERE kind = @kind AND id = @id AND known_at <= @known_at`,
	count: 'SELECT COUNT(*) AS n FROM mirror_resource'
} as const;

export async function mirrorResourceOf(
	sql: Sql,
	kind: string,
	id: number
): Promise<MirrorResourceRow | undefined> {
	const row = await sql.get<Stored>(SQL.resource, { kind, id });
	if (!row) return undefined;
	return {
		kind: row.kind,
		id: Number(row.id),
		href: row.href,
		runId: Number(row.run_id),
		competitionId: Number(row.competition_id),
		known: row.known,
		knownAt: Number(row.known_at ?? 0)
	};
}

/** Stores `r`, over the stored row of the same resource (its run and competition stay). */
export async function putMirrorResource(sql: Sql, r: MirrorResourceRow): Promise<void> {
	await sql.run(SQL.putResource, {
		kind: r.kind,
		id: r.id,
		href: r.href,
		run_id: r.runId,
		competition_id: r.competitionId,
		known: r.known,
		known_at: r.knownAt
	});
}

/** Stores `known` (JSON) as learnt at `at`, unless what is stored was learnt later. */
export async function setMirrorKnown(
	sql: Sql,
	kind: string,
	id: number,
	known: string,
	at: number
): Promise<void> {
	await sql.run(SQL.setKnown, { kind, id, known, known_at: at });
}

/** How many resources are mirrored (0: nothing was imported). */
export async function mirrorResourceCount(sql: Sql): Promise<number> {
	return Number((await sql.get<{ n: number }>(SQL.count))?.n ?? 0);
}
