import type { CompetitionQuery, HalClient, PageResult } from '$lib/api/hal-client';
import { expandLink, requireLink } from '$lib/api/links';
import {
	CompetitionRunSchema,
	DogRunSchema,
	type Competition,
	type CompetitionRun,
	type DogRun
} from '$lib/api/schemas';
import { db, type CompetitionRow, type DogRunRow } from '$lib/db/db';
import {
	dogRunRow,
	dogRunsInOrder,
	putCompetition,
	putInChunks,
	runRow
} from '$lib/db/snapshot-store';

/**
 * Reads the service while online and writes what it read through to IndexedDB, so every screen
 * renders from one place (Dexie live queries) online and offline alike. Only server snapshots are
 * written; unsent edits stay in the outbox, laid over the snapshots by the screens.
 */

/** One page of the service's competition list (filters are the list's own query parameters). */
export async function fetchCompetitionPage(
	client: HalClient,
	query: CompetitionQuery,
	signal?: AbortSignal
): Promise<PageResult<Competition>> {
	const result = await client.listCompetitions(query, { signal });
	const now = Date.now();
	await db.transaction('rw', db.competitions, async () => {
		for (const competition of result.items) await putCompetition(competition, now);
	});
	return result;
}

/**
 * Keeps a competition as read (a list's item or its `self`), without its runs: the screens that
 * read only what they show (the big screen, the spectators' view) start from it.
 */
export async function keepCompetitionRow(competition: Competition): Promise<void> {
	await putCompetition(competition, Date.now());
}

export interface RunFilter {
	judgeId?: number;
	ringId?: number;
}

/**
 * The runs of a competition, narrowed to a judge and/or a ring through their templated links
 * (RFC 6570, `...?judgeId=5{&ringId}`), never by building a URI.
 */
export async function fetchRuns(
	client: HalClient,
	competition: CompetitionRow,
	filter: RunFilter = {},
	signal?: AbortSignal
): Promise<CompetitionRun[]> {
	const href = runsHref(competition.data, filter);
	const runs: CompetitionRun[] = [];
	for await (const page of client.pages(href, 'competitionRuns', CompetitionRunSchema, {
		signal
	})) {
		runs.push(...page.items);
	}
	const now = Date.now();
	await db.runs.bulkPut(runs.map((run) => runRow(run, competition.id, now)));
	return runs;
}

function runsHref(competition: Competition, filter: RunFilter): string {
	const judge =
		filter.judgeId !== undefined
			? competition.judges.find((j) => j.id === filter.judgeId)
			: undefined;
	if (judge) {
		return expandLink(requireLink(judge._links, 'competitionRuns'), { ringId: filter.ringId });
	}
	const ring =
		filter.ringId !== undefined ? competition.rings.find((r) => r.id === filter.ringId) : undefined;
	if (ring) {
		return expandLink(requireLink(ring._links, 'competitionRuns'), { judgeId: filter.judgeId });
	}
	return requireLink(competition._links, 'competitionRuns').href;
}

/** Rows compared per task when a run is read again. */
const COMPARE_CHUNK = 200;

/** Whether a stored dog-run row differs from a fresh one in anything but `fetchedAt`. */
function differs(stored: DogRunRow | undefined, fresh: DogRunRow): boolean {
	return (
		stored === undefined ||
		stored.order !== fresh.order ||
		stored.runId !== fresh.runId ||
		stored.competitionId !== fresh.competitionId ||
		stored.href !== fresh.href ||
		// Same keys in the same order when nothing changed (both come from the service's JSON).
		JSON.stringify(stored.data) !== JSON.stringify(fresh.data)
	);
}

/**
 * Every dog run of one run, in start order, stored as the run's snapshots. Only the dog runs that
 * changed are written: a screen that reads its run again on each visit (1,000 dogs at a big ring)
 * would otherwise rewrite every row, and every screen showing them would read them all again. The
 * run's row is written with the time, so "last known current" stays true.
 */
export async function fetchDogRuns(
	client: HalClient,
	run: CompetitionRun,
	competitionId: number,
	signal?: AbortSignal
): Promise<number> {
	const href = requireLink(run._links, 'dogRuns').href;
	const now = Date.now();
	const rows: DogRunRow[] = [];
	for await (const page of client.pages(href, 'dogRuns', DogRunSchema, { signal })) {
		for (const dogRun of page.items) {
			rows.push(dogRunRow(dogRun, run.id, competitionId, rows.length, now));
		}
	}
	// Compared outside the write, a chunk per task (a transaction cannot wait for a task): a row
	// another writer changes meanwhile is left to it unless it differs from this read as well.
	const stored = new Map((await dogRunsInOrder(run.id)).map((row) => [row.id, row]));
	const changed: DogRunRow[] = [];
	for (let i = 0; i < rows.length; i++) {
		if (i > 0 && i % COMPARE_CHUNK === 0) await new Promise((r) => setTimeout(r, 0));
		const row = rows[i]!;
		if (differs(stored.get(row.id), row)) changed.push(row);
	}
	await db.transaction('rw', db.dogRuns, db.runs, async () => {
		await putInChunks(db.dogRuns, changed);
		await db.runs.put(runRow(run, competitionId, now));
	});
	return rows.length;
}

/**
 * The ring's next dog runs as the service lists them (its `nextDogRuns` link; the embedded service
 * answers a paged dog-run list in start order). Known dog runs get their snapshots refreshed.
 */
export async function fetchNextDogRuns(
	client: HalClient,
	competition: Competition,
	ringId: number,
	signal?: AbortSignal
): Promise<DogRun[]> {
	const ring = competition.rings.find((r) => r.id === ringId);
	if (!ring) return [];
	const href = requireLink(ring._links, 'nextDogRuns').href;
	const page = await client.getPage(href, 'dogRuns', DogRunSchema, { signal });
	const now = Date.now();
	await db.transaction('rw', db.dogRuns, async () => {
		for (const dogRun of page.items) {
			const existing = await db.dogRuns.get(dogRun.id);
			if (existing) {
				const row = dogRunRow(dogRun, existing.runId, existing.competitionId, existing.order, now);
				await db.dogRuns.put(row);
			}
		}
	});
	return page.items;
}
