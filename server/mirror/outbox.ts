// The mirror's outbox: the changes accepted here that the upstream service does not hold yet, one
// entry per resource, kept in the laptop's database (table mirror_outbox) and written in the
// transaction of the change itself, so a change is never accepted without its entry nor the other
// way round, whatever stops the laptop. An entry is the app's OutboxEntry
// (src/lib/domain/outbox-entry.ts) stored as JSON: the same state machine decides it, the same
// rules hold (coalesced per resource with its first base, never expires, a person decides what
// conflicts). `where` of each resource on the upstream is table mirror_resource. The statements of
// both tables are the store's (store/mirror-outbox-table.ts, store/mirror-resource-table.ts).
import { editOf, hasFields, sameFieldValue, type Fields } from '../../src/lib/domain/merge.ts';
import {
	retried,
	saved,
	type OutboxEntry,
	type ResourceKind,
	type Step,
	type Target
} from '../../src/lib/domain/outbox-entry.ts';
import { waitsOnlyForService } from '../../src/lib/sync/reachability.ts';
import type { RecordedChange } from '../changes/commit-change.ts';
import {
	deleteOutboxEntry,
	dueOutboxEntries,
	insertOutboxEntry,
	laterOutboxKeys,
	outboxByStatus,
	outboxEntryText,
	shownOutboxEntries,
	unsentOutbox,
	updateOutboxEntry
} from '../store/mirror-outbox-table.ts';
import {
	mirrorResourceOf,
	putMirrorResource,
	setMirrorKnown
} from '../store/mirror-resource-table.ts';
import type { Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';

/** The error an entry keeps: what the upstream answered, or why nothing came back. */
export interface MirrorError {
	code: string;
	status: number | null;
	/** The upstream's message for a refusal (shown as text), or a technical detail. */
	message: string;
}

export type MirrorEntry = OutboxEntry<MirrorError>;

/** A mirrored resource: where it lives upstream and what it was last seen holding there. */
export interface MirrorResource {
	kind: ResourceKind;
	id: number;
	href: string;
	runId: number;
	competitionId: number;
	/** The editable fields as last read from (or written to) the upstream. */
	known: Fields | null;
	/** When `known` was read (ms since 1970): a read started before it is older news. */
	knownAt: number;
}

const keyOf = (kind: ResourceKind, id: number): string => `${kind}:${id}`;

const parseEntry = (text: string): MirrorEntry => JSON.parse(text) as MirrorEntry;

/** The entry of `key` as stored in this transaction, or undefined. */
export async function readEntry(sql: Sql, key: string): Promise<MirrorEntry | undefined> {
	const text = await outboxEntryText(sql, key);
	return text === undefined ? undefined : parseEntry(text);
}

/** Writes what a transition left: the entry (null: it is gone). */
export async function writeEntry(
	sql: Sql,
	key: string,
	entry: MirrorEntry | null,
	existed: boolean
): Promise<void> {
	if (!entry) {
		if (existed) await deleteOutboxEntry(sql, key);
		return;
	}
	const row = {
		key,
		entry: JSON.stringify(entry),
		status: entry.status,
		nextAttemptAt: entry.nextAttemptAt
	};
	if (existed) await updateOutboxEntry(sql, row);
	else await insertOutboxEntry(sql, { ...row, createdAt: entry.createdAt });
}

/** Applies a transition's step to the stored entry `key`; returns the entry it left. */
export async function applyStep(
	sql: Sql,
	key: string,
	step: Step<MirrorError>,
	existed: boolean
): Promise<MirrorEntry | null> {
	await writeEntry(sql, key, step.entry, existed);
	return step.entry;
}

export async function readResource(
	sql: Sql,
	kind: ResourceKind,
	id: number
): Promise<MirrorResource | undefined> {
	const row = await mirrorResourceOf(sql, kind, id);
	if (!row) return undefined;
	return {
		...row,
		kind,
		known: row.known ? (JSON.parse(row.known) as Fields) : null
	};
}

export async function writeResource(sql: Sql, r: MirrorResource): Promise<void> {
	await putMirrorResource(sql, { ...r, known: r.known ? JSON.stringify(r.known) : null });
}

/**
 * What the upstream was seen holding at `at`: kept unless something newer was seen already (a
 * read that started before a PUT's answer arrived is older news than the answer).
 */
export async function setKnown(
	sql: Sql,
	kind: ResourceKind,
	id: number,
	known: Fields,
	at: number
): Promise<void> {
	await setMirrorKnown(sql, kind, id, JSON.stringify(known), at);
}

/**
 * Records a change a phone made here (in its transaction): coalesced into the resource's entry
 * with the value before the change as the base of each field it changed first. A resource the
 * upstream does not know (none is, in mirror mode) is not recorded. Returns the entry left.
 */
export async function recordChange(
	sql: Sql,
	change: RecordedChange,
	now: number
): Promise<MirrorEntry | null> {
	const resource = await readResource(sql, change.kind, change.id);
	if (!resource) return null;
	const changed: Fields = {};
	for (const [field, value] of Object.entries(change.after)) {
		if (!sameFieldValue(value, change.before[field])) changed[field] = value;
	}
	if (!hasFields(changed)) return (await readEntry(sql, keyOf(change.kind, change.id))) ?? null;
	const key = keyOf(change.kind, change.id);
	const existing = await readEntry(sql, key);
	const target: Target = {
		key,
		kind: change.kind,
		resourceId: change.id,
		runId: change.runId,
		competitionId: change.competitionId,
		href: resource.href
	};
	const edit = editOf(changed, Object.keys(changed), change.before);
	const step = saved<MirrorError>(existing, edit, target, now);
	return applyStep(sql, key, step, existing !== undefined);
}

/** The first key of the store locks (Store.lock) of the mirror's entries. */
const ENTRY_LOCKS = 7_407_000_000;

/**
 * In a write that reads an entry and writes it again: waits for every other such write of the
 * resource's entry (several statements on PostgreSQL, READ COMMITTED, see none of each other's
 * snapshot: a phone's change read the entry, the publisher dropped it, and the phone's UPDATE then
 * found no row). SQLite's writes take turns already.
 */
export async function lockEntry(
	store: Pick<Store, 'lock'>,
	sql: Sql,
	kind: ResourceKind,
	id: number
): Promise<void> {
	await store.lock(sql, ENTRY_LOCKS + id * 2 + (kind === 'run' ? 1 : 0));
}

/** Entries due at `now` (oldest first), at most `limit`. */
export async function dueEntries(sql: Sql, now: number, limit: number): Promise<MirrorEntry[]> {
	return (await dueOutboxEntries(sql, now, limit)).map(parseEntry);
}

/** Every entry a person must look at, then the oldest `waiting` of those that wait. */
export async function shownEntries(sql: Sql, waiting: number): Promise<MirrorEntry[]> {
	const entries = (await shownOutboxEntries(sql, waiting)).map(parseEntry);
	return entries.sort((a, b) => a.createdAt - b.createdAt || a.key.localeCompare(b.key));
}

/**
 * The upstream answers again: every entry that waited out a backoff only for want of it is due
 * now, through the entry's own transition (`retried`) and the phone's rule of which entries those
 * are (`waitsOnlyForService`). Entries the upstream answered with an error keep their backoff,
 * unless `which` is 'all'.
 */
export async function retryWaitingForUpstream(
	store: Pick<Store, 'lock'>,
	sql: Sql,
	now: number,
	which: 'unreachable' | 'all' = 'unreachable'
): Promise<number> {
	const keys = await laterOutboxKeys(sql, now);
	let made = 0;
	for (const key of keys) {
		const [kind, id] = key.split(':') as [ResourceKind, string];
		await lockEntry(store, sql, kind, Number(id));
		const entry = await readEntry(sql, key);
		if (!entry || (which === 'unreachable' && !waitsOnlyForService(entry, now))) continue;
		const next = retried(entry, now);
		if (!next) continue;
		await writeEntry(sql, key, next, true);
		made++;
	}
	return made;
}

/** How the outbox stands for the scheduler: entries to publish, and when the first is due. */
export function outboxState(sql: Sql): Promise<{ unsent: number; dueAt: number | null }> {
	return unsentOutbox(sql);
}

export interface OutboxCounts {
	/** Entries to publish (pending or being sent). */
	waiting: number;
	/** Refused by the upstream (4xx): a person looks. */
	refused: number;
	/** Changed on both sides: a person decides. */
	conflicts: number;
	/** When the oldest entry not yet published was accepted here (ms), or null. */
	oldestAt: number | null;
}

export async function outboxCounts(sql: Sql): Promise<OutboxCounts> {
	const counts: OutboxCounts = { waiting: 0, refused: 0, conflicts: 0, oldestAt: null };
	for (const { status, n, oldest } of await outboxByStatus(sql)) {
		if (status === 'failed') counts.refused += n;
		else if (status === 'conflict') counts.conflicts += n;
		else counts.waiting += n;
		if (oldest !== null && (counts.oldestAt === null || oldest < counts.oldestAt)) {
			counts.oldestAt = oldest;
		}
	}
	return counts;
}

export { keyOf };
