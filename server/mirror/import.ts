// Before the event, with internet: the competitions the secretary picks are read from the upstream
// service by following its links only (the entry point is the one address known, as for the app:
// src/lib/api's HalClient does the reading, here in Node), and stored in the laptop's empty
// database in one transaction, each run and dog run with the address it has upstream
// (mirror_resource) and the lists read again for what changes there (mirror_list). The ids are
// the upstream's, so a phone sees the same ids whichever service it reads. The start order is the
// order of the upstream's list (the interface shows no start number).
import {
	CompetitionRunSchema,
	CompetitionSchema,
	DogRunSchema,
	type Competition,
	type CompetitionRun,
	type DogRun
} from '../../src/lib/api/schemas.ts';
import { HalClient } from '../../src/lib/api/hal-client.ts';
import { expandLink, findLink, type LinkMap } from '../../src/lib/api/links.ts';
import { ApiError } from '../../src/lib/api/errors.ts';
import { setMetaValue } from '../store/meta-table.ts';
import { addMirrorList } from '../store/mirror-list-table.ts';
import {
	competitionCount,
	insertSeedRows,
	SEED_TABLES,
	type SeedRows,
	type SeedTable
} from '../store/seed-tables.ts';
import type { SqlValue } from '../store/sql.ts';
import type { Store } from '../store/store.ts';
import { writeResource } from './outbox.ts';
import { dogRunFieldsOf, runFieldsOf } from './upstream-fields.ts';

/** Which competitions to mirror: these ids, or (null) every one not over before `today`. */
export interface MirrorPick {
	competitionIds: number[] | null;
	today: string;
}

export interface ImportSummary {
	competitions: number;
	runs: number;
	dogRuns: number;
	ms: number;
}

/** The meta key of the upstream a database mirrors (a database mirrors one service). */
export const MIRROR_UPSTREAM = 'mirror.upstream';

/** Lists of dog runs read at once (a laptop on a 4G dongle; the upstream is not ours to load). */
const PARALLEL_LISTS = 4;

/** The link `rel` of a document, expanded; ApiError 'missing-link' when it has none. */
function linkOf(links: LinkMap | undefined, rel: string, url: string): string {
	const link = links ? findLink(links, rel) : undefined;
	if (!link) throw new ApiError('missing-link', { url, detail: `no '${rel}' link` });
	return expandLink(link);
}

interface Read {
	competitions: Competition[];
	runs: { run: CompetitionRun; competitionId: number; dogRunsHref: string }[];
	dogRuns: Map<number, DogRun[]>;
	/** List href → collection, competition and (a run's dog runs) run. */
	lists: { href: string; collection: string; competitionId: number; runId: number | null }[];
}

/** Reads everything the pick names from the upstream (nothing is written yet). */
async function readUpstream(
	client: HalClient,
	pick: MirrorPick,
	progress: (line: string) => void
): Promise<Read> {
	const read: Read = { competitions: [], runs: [], dogRuns: new Map(), lists: [] };
	const wanted = pick.competitionIds ? new Set(pick.competitionIds) : null;
	for await (const page of client.pages(client.entryPoint, 'competitions', CompetitionSchema)) {
		for (const c of page.items) {
			if (wanted ? wanted.has(c.id) : c.dateTo >= pick.today) read.competitions.push(c);
		}
	}
	if (wanted) {
		const missing = [...wanted].filter((id) => !read.competitions.some((c) => c.id === id));
		if (missing.length > 0) {
			throw new Error(`The upstream service lists no competition ${missing.join(', ')}`);
		}
	}
	for (const c of read.competitions) {
		const href = linkOf(c._links, 'competitionRuns', client.entryPoint);
		read.lists.push({ href, collection: 'competitionRuns', competitionId: c.id, runId: null });
		for await (const page of client.pages(href, 'competitionRuns', CompetitionRunSchema)) {
			for (const run of page.items) {
				const dogRunsHref = linkOf(run._links, 'dogRuns', page.url);
				read.runs.push({ run, competitionId: c.id, dogRunsHref });
				read.lists.push({
					href: dogRunsHref,
					collection: 'dogRuns',
					competitionId: c.id,
					runId: run.id
				});
			}
		}
		progress(`  ${c.name}: ${read.runs.filter((r) => r.competitionId === c.id).length} runs`);
	}
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < read.runs.length) {
			const { run, dogRunsHref } = read.runs[next++]!;
			const items: DogRun[] = [];
			for await (const page of client.pages(dogRunsHref, 'dogRuns', DogRunSchema)) {
				items.push(...page.items);
			}
			read.dogRuns.set(run.id, items);
		}
	};
	await Promise.all(Array.from({ length: PARALLEL_LISTS }, worker));
	return read;
}

/**
 * Local ring ids. A local ring belongs to one competition, where the upstream may list the same
 * ring in two (two competitions of one weekend on the same rings): the first competition to list
 * a ring keeps the upstream's id, each other gets a new id above every upstream ring id. The
 * phones follow the laptop's links, so no one sees the difference; nothing comes down from the
 * upstream by ring id.
 */
function localRings(read: Read): (competitionId: number, ringId: number) => number {
	const upstreamIds = [
		...read.competitions.flatMap((c) => c.rings.map((r) => r.id)),
		...read.runs.map((r) => r.run.competitionRing.id)
	];
	let free = Math.max(0, ...upstreamIds) + 1;
	const owner = new Map<number, number>();
	const local = new Map<string, number>();
	return (competitionId, ringId) => {
		const key = `${competitionId}:${ringId}`;
		let id = local.get(key);
		if (id === undefined) {
			id = owner.has(ringId) ? free++ : ringId;
			owner.set(id, competitionId);
			local.set(key, id);
		}
		return id;
	};
}

/** The rows of the local tables for what was read (ids are the upstream's, rings' see above). */
function rowsOf(read: Read): SeedRows {
	const rows = Object.fromEntries(
		Object.keys(SEED_TABLES).map((t) => [t, [] as SqlValue[][]])
	) as SeedRows;
	const seen = new Map<SeedTable, Set<number>>();
	const ringOf = localRings(read);
	const add = (t: SeedTable, id: number, row: SqlValue[]): void => {
		let ids = seen.get(t);
		if (!ids) seen.set(t, (ids = new Set()));
		if (ids.has(id)) return;
		ids.add(id);
		rows[t].push(row);
	};
	for (const c of read.competitions) {
		add('competition', c.id, [c.id, c.name, c.dateFrom, c.dateTo, c.details, c.fees, c.state]);
		c.judges.forEach((j, position) => {
			add('judge', j.id, [j.id, j.firstname, j.lastname, j.country]);
			rows.compJudge.push([c.id, j.id, position]);
		});
		for (const r of c.rings) {
			const id = ringOf(c.id, r.id);
			add('ring', id, [id, c.id, r.name]);
		}
	}
	for (const { run, competitionId } of read.runs) {
		const j = run.judge;
		add('judge', j.id, [j.id, j.firstname, j.lastname, j.country]);
		const ring = ringOf(competitionId, run.competitionRing.id);
		add('ring', ring, [ring, competitionId, run.competitionRing.name]);
		add('size', run.dogSizeClass.id, [run.dogSizeClass.id, run.dogSizeClass.name]);
		add('runLevel', run.competitionRunLevel.id, [
			run.competitionRunLevel.id,
			run.competitionRunLevel.name
		]);
	}
	for (const list of read.dogRuns.values()) {
		for (const d of list) {
			const { dog, competitor } = d;
			add('level', dog.competitionLevel.id, [dog.competitionLevel.id, dog.competitionLevel.name]);
			add('size', dog.dogSizeClass.id, [dog.dogSizeClass.id, dog.dogSizeClass.name]);
			add('competitor', competitor.id, [
				competitor.id,
				competitor.firstname,
				competitor.lastname,
				competitor.identifier,
				competitor.country
			]);
		}
	}
	for (const list of read.dogRuns.values()) {
		for (const { dog, competitor } of list) {
			add('dog', dog.id, [
				dog.id,
				dog.name,
				dog.homeName,
				dog.workbookNo,
				dog.birthday,
				dog.competitionLevel.id,
				dog.dogSizeClass.id,
				competitor.id
			]);
		}
	}
	for (const { run, competitionId } of read.runs) {
		add('run', run.id, [
			run.id,
			competitionId,
			run.name,
			run.date,
			run.startTime,
			Math.round(run.standardTime * 1000),
			Math.round(run.maximalTime * 1000),
			run.trackLength,
			run.dogSizeClass.id,
			run.competitionRunLevel.id,
			run.judge.id,
			ringOf(competitionId, run.competitionRing.id)
		]);
		(read.dogRuns.get(run.id) ?? []).forEach((d, i) => {
			add('dogRun', d.id, [
				d.id,
				run.id,
				i + 1,
				d.dog.id,
				d.competitor.id,
				d.time === null ? null : Math.round(d.time * 100),
				d.refusals,
				d.faults,
				d.disqualified ? 1 : 0,
				d.absence ? 1 : 0
			]);
		});
	}
	return rows;
}

/**
 * Reads the picked competitions from the upstream and stores them in the store, which must hold no
 * competition yet (a laptop's database is one event's mirror). Throws ApiError when the upstream
 * cannot be read (nothing is stored then).
 */
export async function importFromUpstream(
	store: Store,
	client: HalClient,
	pick: MirrorPick,
	progress: (line: string) => void = () => {}
): Promise<ImportSummary> {
	const t0 = performance.now();
	const startedAt = Date.now();
	const read = await readUpstream(client, pick, progress);
	const rows = rowsOf(read);
	await store.write(async (sql) => {
		if ((await competitionCount(sql)) > 0) {
			throw new Error(
				`the database ${store.where} already holds competitions that are not a mirror: name a new file with --db, or replace them with --reset`
			);
		}
		await insertSeedRows(sql, rows);
		for (const { run, competitionId } of read.runs) {
			await writeResource(sql, {
				kind: 'run',
				id: run.id,
				href: linkOf(run._links, 'self', client.entryPoint),
				runId: run.id,
				competitionId,
				known: runFieldsOf(run),
				knownAt: startedAt
			});
			for (const d of read.dogRuns.get(run.id) ?? []) {
				await writeResource(sql, {
					kind: 'dogRun',
					id: d.id,
					href: linkOf(d._links, 'self', client.entryPoint),
					runId: run.id,
					competitionId,
					known: dogRunFieldsOf(d),
					knownAt: startedAt
				});
			}
		}
		for (const l of read.lists) await addMirrorList(sql, l);
		await setMetaValue(sql, MIRROR_UPSTREAM, client.entryPoint);
		await setMetaValue(sql, 'mirror.importedAt', new Date().toISOString());
	});
	let dogRuns = 0;
	for (const list of read.dogRuns.values()) dogRuns += list.length;
	return {
		competitions: read.competitions.length,
		runs: read.runs.length,
		dogRuns,
		ms: Math.round(performance.now() - t0)
	};
}
