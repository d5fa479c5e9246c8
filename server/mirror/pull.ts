// What the upstream changed meanwhile (the federation's office corrects a result) comes down into
// the laptop's copy: the mirrored lists are read again (conditionally, page by page, when the
// upstream offers ETags), and each field the upstream changed since it was last seen there is
// applied here as any change is (the phones hear of it on the push channel), unless a change made
// here waits to be published for that field: then the publisher finds both and the secretary
// decides. Nothing is overwritten silently in either direction: a value is applied here only when
// the read that found it started after the last value known from the upstream was learnt (a read
// older than a PUT's answer is older news), and only over fields no local change waits for.
import type { HalClient } from '../../src/lib/api/hal-client.ts';
import {
	CompetitionRunSchema,
	DogRunSchema,
	type CompetitionRun,
	type DogRun
} from '../../src/lib/api/schemas.ts';
import { expandLink, findLink } from '../../src/lib/api/links.ts';
import { sameFieldValue, type Fields } from '../../src/lib/domain/merge.ts';
import type { ResourceKind } from '../../src/lib/domain/outbox-entry.ts';
import { API_BASE } from '../http/hal.ts';
import { Repository, type DogRunRow, type RunRow } from '../store/repository.ts';
import { applyChange, takeTurns, WRITE_ATTEMPTS, type Change } from '../changes/commit-change.ts';
import { dogRunChange, dogRunFields } from '../changes/dog-run-change.ts';
import { runChange, runFields } from '../changes/run-change.ts';
import {
	mirrorLists,
	mirrorListsOfDay,
	mirrorListsOfRun,
	type MirrorListRow
} from '../store/mirror-list-table.ts';
import type { Store } from '../store/store.ts';
import { validateCompetitionRunPatch, validateDogRunPatch } from '../validation.ts';
import { keyOf, readEntry, readResource, setKnown } from './outbox.ts';
import { dogRunFieldsOf, runFieldsOf } from './upstream-fields.ts';

/** A page of a list as last read: its ETag and where the list goes on. */
interface CachedPage {
	etag: string;
	next: string | undefined;
}

export interface PullContext {
	store: Store;
	client: HalClient;
	/** Page URL → its ETag and next link, to read a page again conditionally. */
	pages: Map<string, CachedPage>;
	/** Told of what could not be applied (a value outside the local limits). */
	logError: (line: string) => void;
}

/**
 * Which lists a pull reads: every one, or the dog runs of the runs of `day` (YYYY-MM-DD) and of
 * the runs in `runs` (where something changed lately).
 */
export type PullScope = { all: true } | { day: string; runs: readonly number[] };

/**
 * The lists of `scope`: every one, or the dog runs of the runs of the day (where results are being
 * recorded and corrected) and then those of the changed runs not among them.
 */
async function listsOf(ctx: PullContext, scope: PullScope): Promise<MirrorListRow[]> {
	const { sql } = ctx.store;
	if ('all' in scope) return mirrorLists(sql);
	const lists = await mirrorListsOfDay(sql, scope.day);
	const known = new Set(lists.map((l) => l.href));
	for (const run of scope.runs) {
		for (const l of await mirrorListsOfRun(sql, run)) {
			if (known.has(l.href)) continue;
			lists.push(l);
			known.add(l.href);
		}
	}
	return lists;
}

/** How many applied, and how many pages were read. */
export interface PullSummary {
	applied: number;
	pages: number;
	unchanged: number;
}

/** How one resource's upstream value was taken. */
export interface Taken {
	/** Something changed here. */
	applied: boolean;
	/**
	 * Not all of it was taken: the read was older news (it started before the last value learnt
	 * from the upstream), or a field differs that a local change waits for. The list page it came
	 * from is then read in full again: its ETag may never change again (the secretary's Keep
	 * theirs takes the value shown in the conflict, the upstream may hold a newer one by then).
	 */
	again: boolean;
	/** Fields whose upstream value the local limits refuse (not taken). */
	refused?: string[];
}

/** What taking an upstream value in needs of each kind of resource. */
interface KindOps<Row> {
	read(repo: Repository, id: number): Promise<Row | undefined>;
	/** The row's editable fields, as the interface names them. */
	fields(row: Row): Fields;
	/** Throws (400) when the local limits refuse `patch`. */
	validate(patch: Fields): void;
	/** The change that applies `patch`, as a PUT of it would. */
	change(id: number, patch: Fields): Change<Row>;
}

const DOG_RUN: KindOps<DogRunRow> = {
	read: (repo, id) => repo.dogRun(id),
	fields: dogRunFields,
	validate: (patch) => void validateDogRunPatch(patch),
	change: (id, patch) => dogRunChange(API_BASE, id, () => validateDogRunPatch(patch))
};

const RUN: KindOps<RunRow> = {
	read: (repo, id) => repo.run(id),
	fields: runFields,
	validate: (patch) => void validateCompetitionRunPatch(patch),
	change: (id, patch) => runChange(API_BASE, id, () => validateCompetitionRunPatch(patch))
};

/**
 * Applies what the upstream holds for one resource, read by a read that started at `readAt`.
 * What is known of the upstream (`known`, which the publisher's reads learn too without taking
 * anything in) is no shortcut: the values are always compared with what the laptop holds.
 */
export function applyUpstream(
	store: Store,
	kind: ResourceKind,
	id: number,
	upstream: Fields,
	readAt: number,
	only: readonly string[] | null = null
): Promise<Taken> {
	return kind === 'dogRun'
		? applyAs(DOG_RUN, store, kind, id, upstream, readAt, only)
		: applyAs(RUN, store, kind, id, upstream, readAt, only);
}

async function applyAs<Row>(
	ops: KindOps<Row>,
	store: Store,
	kind: ResourceKind,
	id: number,
	upstream: Fields,
	readAt: number,
	only: readonly string[] | null
): Promise<Taken> {
	const repo = new Repository(store.sql);
	for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
		if (attempt > 1) await takeTurns(attempt - 1);
		const current = await ops.read(repo, id);
		if (!current) return { applied: false, again: false };
		// Read after the row: a change committed since the row was read raised its version, and
		// the conditional update below then changes nothing.
		const entry = await readEntry(store.sql, keyOf(kind, id));
		// Read after the entry: the publisher drops what a PUT sent from the entry and learns the
		// PUT's answer in one transaction, so either the entry still shows the field (it waits)
		// or the answer's time is seen here (this read is older news). Read before the entry, an
		// answer landing in between was missed and the sent value undone here.
		const resource = await readResource(store.sql, kind, id);
		if (!resource) return { applied: false, again: false };
		if (resource.knownAt > readAt) return { applied: false, again: true };
		const waiting = new Set([
			...Object.keys(entry?.changes ?? {}),
			...Object.keys(entry?.inFlight?.changes ?? {})
		]);
		const local = ops.fields(current);
		const patch: Fields = {};
		let held = false;
		for (const [field, value] of Object.entries(upstream)) {
			if (only && !only.includes(field)) continue;
			if (sameFieldValue(local[field], value)) continue;
			if (waiting.has(field)) held = true;
			else patch[field] = value;
		}
		// A value the local limits refuse stays upstream alone (said in the log): the others come
		// down without it, and the page is read in full again.
		const refused: string[] = [];
		for (const [field, value] of Object.entries(patch)) {
			try {
				ops.validate({ [field]: value });
			} catch {
				refused.push(field);
				delete patch[field];
			}
		}
		if (refused.length > 0) held = true;
		// With `only` (the secretary kept the upstream's values of these fields) `upstream` holds
		// only those: what is known of the rest stays.
		const learn = only === null;
		if (Object.keys(patch).length === 0) {
			if (learn) await store.write((sql) => setKnown(sql, kind, id, upstream, readAt));
			return { applied: false, again: held, refused };
		}
		const change = ops.change(id, patch);
		const write: Store['write'] = (fn) =>
			store.write(async (sql) => {
				const result = await fn(sql);
				if (result && learn) await setKnown(sql, kind, id, upstream, readAt);
				return result;
			});
		change.check(current);
		const done = await applyChange(store, write, change, current, null, null);
		if (done) return { applied: true, again: held, refused };
	}
	return { applied: false, again: true };
}

/** Reads the mirrored lists of `scope` once and applies what changed upstream. */
export async function pullOnce(
	ctx: PullContext,
	scope: PullScope = { all: true }
): Promise<PullSummary> {
	const summary: PullSummary = { applied: 0, pages: 0, unchanged: 0 };
	const lists = await listsOf(ctx, scope);
	for (const list of lists) {
		let href: string | undefined = list.href;
		const seen = new Set<string>();
		while (href !== undefined && !seen.has(href)) {
			seen.add(href);
			const readAt = Date.now();
			const cached = ctx.pages.get(href);
			const isRuns = list.collection === 'competitionRuns';
			const page = isRuns
				? await ctx.client.getPageIfChanged(
						href,
						'competitionRuns',
						CompetitionRunSchema,
						cached?.etag
					)
				: await ctx.client.getPageIfChanged(href, 'dogRuns', DogRunSchema, cached?.etag);
			summary.pages++;
			if (page === null) {
				summary.unchanged++;
				href = cached?.next;
				continue;
			}
			const nextLink = findLink(page.links, 'next');
			const next = nextLink ? expandLink(nextLink) : undefined;
			// A page not taken in full is read in full again next time (Taken.again).
			let again = false;
			for (const item of page.items as (CompetitionRun | DogRun)[]) {
				const kind: ResourceKind = isRuns ? 'run' : 'dogRun';
				const fields = isRuns
					? runFieldsOf(item as CompetitionRun)
					: dogRunFieldsOf(item as DogRun);
				try {
					const taken = await applyUpstream(ctx.store, kind, item.id, fields, readAt);
					if (taken.applied) summary.applied++;
					if (taken.again) again = true;
					if (taken.refused?.length) {
						ctx.logError(
							JSON.stringify({
								ts: new Date().toISOString(),
								msg: 'upstream value not applied: outside the local limits',
								kind,
								id: item.id,
								fields: Object.fromEntries(taken.refused.map((f) => [f, fields[f]]))
							})
						);
					}
				} catch (e) {
					// Read in full again (a run's course the local one refuses as a whole, MCT < SCT).
					again = true;
					ctx.logError(
						JSON.stringify({
							ts: new Date().toISOString(),
							msg: 'upstream value not applied',
							kind,
							id: item.id,
							error: e instanceof Error ? e.message : String(e)
						})
					);
				}
			}
			if (page.etag && !again) ctx.pages.set(href, { etag: page.etag, next });
			else ctx.pages.delete(href);
			href = next;
		}
	}
	return summary;
}
