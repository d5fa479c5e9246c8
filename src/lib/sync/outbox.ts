/**
 * The outbox policy: what a steward's save, undo, discard and conflict choice do to the queue of
 * unsent edits. Storage is $lib/db/outbox-store; sending is ./replay.
 *
 * One entry per resource holds the changed fields (`changes`) and, per field, the server's value the
 * steward started from (`base`). Edits coalesce into it, so a resource's edits are sent in order and
 * once. Screens show the stored snapshot with the entry laid over it (`overlay`).
 *
 * Runs in the page and in the service worker: Dexie only, no DOM.
 */
import type { CompetitionRun } from '$lib/api/schemas';
import {
	db,
	type DogRunSnapshot,
	type FieldConflictRecord,
	type OutboxEntry,
	type OutboxStatus,
	type ResourceKind
} from '$lib/db/db';
import { appendSyncLog, deleteEntry, getEntry, outboxKey, putEntry } from '$lib/db/outbox-store';
import {
	coalesce,
	pruneEdit,
	resolveConflicts,
	sameFieldValue,
	type ConflictChoice,
	type MergeDecision,
	type PendingEdit
} from '$lib/domain/merge';
import type { CourseField, CourseParams, DogRunField, DogRunResult } from '$lib/domain/types';
import { SyncError } from './errors';

/** The fields a steward may change: the body of a PUT carries only these (interface 4.5, 4.8). */
export const DOG_RUN_FIELDS: readonly DogRunField[] = [
	'time',
	'refusals',
	'faults',
	'disqualified',
	'absence'
];
export const COURSE_FIELDS: readonly CourseField[] = ['trackLength', 'standardTime', 'maximalTime'];

/** An edit of any resource, field → value. */
export type Edit = PendingEdit<Record<string, unknown>>;

export type ConflictResolution = ConflictChoice | Record<string, ConflictChoice>;

/** Saves a steward's change of a dog run's result. Null when nothing is left to send. */
export function saveDogRunEdit(
	dogRunId: number,
	changes: Partial<DogRunResult>,
	now: number = Date.now()
): Promise<OutboxEntry | null> {
	return saveEdit('dogRun', dogRunId, changes, DOG_RUN_FIELDS, now);
}

/** Saves a change of a competition run's course parameters (PUT to the run's self href). */
export function saveRunEdit(
	runId: number,
	changes: Partial<CourseParams>,
	now: number = Date.now()
): Promise<OutboxEntry | null> {
	return saveEdit('run', runId, changes, COURSE_FIELDS, now);
}

/**
 * Undo of a save: the values the dog run had before it (`restore`, the fields the save changed),
 * saved as a new edit whose base is what that save recorded (`saved`). While the save is unsent
 * the two cancel out and nothing is sent; once it was sent, the previous values go out as an edit
 * of their own, checked three ways against the saved values: if someone else changed the dog run
 * since, it is a conflict, not an overwrite, even after this device read their value.
 */
export function undoDogRunSave(
	dogRunId: number,
	restore: Partial<DogRunResult>,
	saved: Partial<DogRunResult>,
	now: number = Date.now()
): Promise<OutboxEntry | null> {
	return saveEdit('dogRun', dogRunId, restore, DOG_RUN_FIELDS, now, saved);
}

/**
 * Drops an entry and its unsent changes: the steward's explicit choice, logged as 'discarded'.
 * False when there is no such entry; SyncError 'busy' while it is being sent.
 */
export function discardEntry(key: string, now: number = Date.now()): Promise<boolean> {
	return db.transaction('rw', db.outbox, db.syncLog, async () => {
		const entry = await getEntry(key);
		if (!entry) return false;
		if (entry.status === 'sending') throw new SyncError('busy', { key });
		await deleteEntry(key);
		await appendSyncLog({
			at: now,
			key,
			kind: entry.kind,
			resourceId: entry.resourceId,
			action: 'discarded',
			status: null,
			detail: null,
			fields: entry.changes
		});
		return true;
	});
}

/**
 * Applies the steward's choice to the open conflicts of an entry. 'mine' keeps my value with the
 * server's as its new base (the next replay sends it); 'theirs' drops my value. A per-field record
 * leaves the conflicts it does not name open. The snapshot takes the server's values of the
 * decided fields. Returns the entry, or null when nothing is left. SyncError 'not-found' or
 * 'no-conflict'.
 */
export function resolveConflict(
	key: string,
	choice: ConflictResolution,
	now: number = Date.now()
): Promise<OutboxEntry | null> {
	return db.transaction('rw', [db.dogRuns, db.runs, db.outbox, db.syncLog], async () => {
		const entry = await getEntry(key);
		if (!entry) throw new SyncError('not-found', { key });
		const open = entry.conflicts ?? [];
		if (entry.status !== 'conflict' || open.length === 0) {
			throw new SyncError('no-conflict', { key });
		}
		const decision: MergeDecision<Record<string, unknown>> = {
			send: {},
			alreadyApplied: [],
			conflicts: open.map((c) => ({ field: c.field, base: c.base, mine: c.mine, theirs: c.theirs }))
		};
		const { edit, unresolved } = resolveConflicts(decision, choice);
		const stillOpen = new Set(unresolved.map((c) => c.field));
		const decided: Record<string, ConflictChoice> = {};
		const theirs: Record<string, unknown> = {};
		for (const c of open) {
			if (stillOpen.has(c.field)) continue;
			decided[c.field] = typeof choice === 'string' ? choice : (choice[c.field] ?? 'theirs');
			theirs[c.field] = c.theirs;
		}

		// Fields outside the conflicts stay; decided ones take the resolution's value and base.
		const next: Edit = { changes: {}, base: {} };
		for (const [field, value] of Object.entries(entry.changes)) {
			if (Object.hasOwn(decided, field)) continue;
			next.changes[field] = value;
			if (Object.hasOwn(entry.base, field)) next.base[field] = entry.base[field];
		}
		Object.assign(next.changes, edit?.changes);
		Object.assign(next.base, edit?.base);

		await patchSnapshot(entry.kind, entry.resourceId, theirs, now);
		await appendSyncLog({
			at: now,
			key,
			kind: entry.kind,
			resourceId: entry.resourceId,
			action: 'resolved',
			status: null,
			detail: null,
			fields: decided
		});

		if (!hasFields(next.changes)) {
			await deleteEntry(key);
			return null;
		}
		const status: OutboxStatus = unresolved.length > 0 ? 'conflict' : 'pending';
		const resolved: OutboxEntry = {
			...entry,
			changes: next.changes,
			base: next.base,
			status,
			revision: entry.revision + 1,
			updatedAt: now,
			attempts: 0,
			nextAttemptAt: now,
			lastError: null,
			conflicts: open.filter((c) => stillOpen.has(c.field))
		};
		if (status === 'pending') resolved.conflicts = null;
		await putEntry(resolved);
		return resolved;
	});
}

/** The snapshot with the entry's unsent changes laid over it: what screens show. */
export function overlay<T extends object>(
	snapshotData: T,
	entry: Pick<OutboxEntry, 'changes'> | null | undefined
): T {
	if (!entry) return snapshotData;
	return { ...snapshotData, ...entry.changes };
}

/** Lays field values the server holds over a stored snapshot (no-op when it is not stored). */
export async function patchSnapshot(
	kind: ResourceKind,
	resourceId: number,
	values: Record<string, unknown>,
	now: number
): Promise<void> {
	if (!hasFields(values)) return;
	if (kind === 'dogRun') {
		const row = await db.dogRuns.get(resourceId);
		if (row) {
			const data: DogRunSnapshot = { ...row.data, ...values };
			await db.dogRuns.put({ ...row, data, fetchedAt: now });
		}
	} else {
		const row = await db.runs.get(resourceId);
		if (row) {
			const data: CompetitionRun = { ...row.data, ...values };
			await db.runs.put({ ...row, data, fetchedAt: now });
		}
	}
}

/**
 * Keeps every field of a PUT whose outcome is unknown: a field the steward took back to its base is
 * kept as "back to base", since the server may hold the sent value. Null when nothing is left.
 */
export function keepInFlight(edit: Edit | null, inFlight: Edit | null | undefined): Edit | null {
	if (!inFlight) return edit;
	const result: Edit = { changes: { ...edit?.changes }, base: { ...edit?.base } };
	for (const field of Object.keys(inFlight.changes)) {
		if (Object.hasOwn(result.changes, field)) continue;
		result.changes[field] = inFlight.base[field];
		result.base[field] = inFlight.base[field];
	}
	return hasFields(result.changes) ? result : null;
}

/**
 * An edit after a PUT of `sent` succeeded: fields whose value is what was sent drop out; others
 * stay with the sent value as their base (the server holds it now). Null when nothing is left.
 */
export function rebaseOnSent(edit: Edit, sent: Record<string, unknown>): Edit | null {
	const result: Edit = { changes: {}, base: {} };
	for (const [field, value] of Object.entries(edit.changes)) {
		if (Object.hasOwn(sent, field)) {
			if (sameFieldValue(value, sent[field])) continue;
			result.changes[field] = value;
			result.base[field] = sent[field];
		} else {
			result.changes[field] = value;
			if (Object.hasOwn(edit.base, field)) result.base[field] = edit.base[field];
		}
	}
	return hasFields(result.changes) ? result : null;
}

export function hasFields(record: Record<string, unknown>): boolean {
	return Object.keys(record).length > 0;
}

export function conflictRecords(
	conflicts: MergeDecision<Record<string, unknown>>['conflicts']
): FieldConflictRecord[] {
	return conflicts.map((c) => ({ field: c.field, base: c.base, mine: c.mine, theirs: c.theirs }));
}

interface Target {
	href: string;
	runId: number;
	competitionId: number;
	data: Record<string, unknown>;
}

async function readTarget(kind: ResourceKind, resourceId: number): Promise<Target | undefined> {
	if (kind === 'dogRun') {
		const row = await db.dogRuns.get(resourceId);
		return (
			row && { href: row.href, runId: row.runId, competitionId: row.competitionId, data: row.data }
		);
	}
	const row = await db.runs.get(resourceId);
	return row && { href: row.href, runId: row.id, competitionId: row.competitionId, data: row.data };
}

async function saveEdit(
	kind: ResourceKind,
	resourceId: number,
	changes: Record<string, unknown>,
	fields: readonly string[],
	now: number,
	/** The server values the edit starts from, where known better than the snapshot (undo). */
	base: Record<string, unknown> = {}
): Promise<OutboxEntry | null> {
	const key = outboxKey(kind, resourceId);
	// Only the stores this save reads and writes: fewer transactions to queue behind (a replay's).
	const snapshots = kind === 'dogRun' ? db.dogRuns : db.runs;
	return db.transaction('rw', snapshots, db.outbox, async () => {
		// Both reads at once: one round trip to IndexedDB instead of two.
		const [target, existing] = await Promise.all([readTarget(kind, resourceId), getEntry(key)]);
		if (!target) throw new SyncError('not-stored', { key });

		// The base of a field is the server's value in the snapshot (or the one given); coalesce
		// keeps an older one.
		const next: Edit = { changes: {}, base: {} };
		for (const field of fields) {
			if (!Object.hasOwn(changes, field) || changes[field] === undefined) continue;
			next.changes[field] = changes[field];
			next.base[field] = Object.hasOwn(base, field) ? base[field] : target.data[field];
		}

		const merged = keepInFlight(
			existing
				? coalesce({ changes: existing.changes, base: existing.base }, next)
				: pruneEdit(next),
			existing?.inFlight
		);
		if (!merged) {
			if (existing) await deleteEntry(key);
			return null;
		}

		const entry: OutboxEntry = existing
			? {
					...userEdited(existing, now),
					// The attempt in flight ends with a re-check of this newer revision.
					status: existing.status === 'sending' ? 'sending' : 'pending',
					conflicts: existing.status === 'sending' ? existing.conflicts : null,
					lastError: existing.status === 'sending' ? existing.lastError : null,
					changes: merged.changes,
					base: merged.base
				}
			: {
					key,
					kind,
					resourceId,
					runId: target.runId,
					competitionId: target.competitionId,
					href: target.href,
					changes: merged.changes,
					base: merged.base,
					status: 'pending',
					revision: 1,
					createdAt: now,
					updatedAt: now,
					attempts: 0,
					nextAttemptAt: now,
					lastError: null,
					conflicts: null,
					inFlight: null
				};
		await putEntry(entry);
		return entry;
	});
}

/** The bookkeeping of a steward's change: a new revision, due now, a fresh series of attempts. */
function userEdited(entry: OutboxEntry, now: number): OutboxEntry {
	return {
		...entry,
		status: 'pending',
		revision: entry.revision + 1,
		updatedAt: now,
		attempts: 0,
		nextAttemptAt: now,
		lastError: null,
		conflicts: null
	};
}

/**
 * Makes entries due at once: one entry the service refused ('failed' → 'pending', "Send again"),
 * or, without a key, every pending entry waiting out its backoff ("Sync now"). Conflicts stay for
 * a person to decide. Returns how many entries it made due.
 */
export function retryNow(key?: string, now: number = Date.now()): Promise<number> {
	return db.transaction('rw', db.outbox, async () => {
		const entries = key
			? [await getEntry(key)].filter((e): e is OutboxEntry => e !== undefined)
			: await db.outbox.where('status').equals('pending').toArray();
		let count = 0;
		for (const entry of entries) {
			if (entry.status !== 'pending' && entry.status !== 'failed') continue;
			await putEntry({ ...entry, status: 'pending', nextAttemptAt: now, updatedAt: now });
			count += 1;
		}
		return count;
	});
}
