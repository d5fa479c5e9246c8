/**
 * The outbox's steward-facing operations: save, undo, discard, a conflict choice, "send again".
 * Each reads what it needs, applies one transition of the entry's state machine
 * ($lib/domain/outbox-entry) and writes the result in one transaction. Storage is
 * $lib/db/outbox-store; sending is ./replay.
 *
 * One entry per resource holds the changed fields (`changes`) and, per field, the server's value the
 * steward started from (`base`). Edits coalesce into it, so a resource's edits are sent in order and
 * once. Screens show the stored snapshot with the entry laid over it ($lib/domain/overlay).
 *
 * Runs in the page and in the service worker: Dexie only, no DOM.
 */
import { db, type OutboxEntry, type ResourceKind } from '$lib/db/db';
import { appendSyncLogs, deleteEntry, getEntry, outboxKey, putEntry } from '$lib/db/outbox-store';
import { patchSnapshot } from '$lib/db/snapshot-store';
import { editOf, type ConflictChoice, type Fields } from '$lib/domain/merge';
import {
	discarded,
	resolved,
	retried,
	saved,
	type Refusal,
	type Step,
	type Target
} from '$lib/domain/outbox-entry';
import type { CourseParams, DogRunResult } from '$lib/domain/types';
import { needsSignIn, type ApiErrorRecord } from '$lib/api/errors';
import { COURSE_FIELDS, DOG_RUN_FIELDS } from '$lib/contract/fields';
import { SyncError } from './errors';
import { waitsOnlyForService } from './reachability';

/** The fields a steward may change: the body of a PUT carries only these ($lib/contract). */
export { COURSE_FIELDS, DOG_RUN_FIELDS };

export type ConflictResolution = ConflictChoice | Record<string, ConflictChoice>;

/**
 * Saves a steward's change of a dog run's result. Null when nothing is left to send. `seen`: the
 * values the steward's screen showed when they started, the base of the fields they changed; a
 * value that reached this device since (a live update) is then a conflict at the replay, never
 * overwritten unseen. Without it, the stored values are the base.
 */
export function saveDogRunEdit(
	dogRunId: number,
	changes: Partial<DogRunResult>,
	now: number = Date.now(),
	seen: Partial<DogRunResult> = {}
): Promise<OutboxEntry | null> {
	return saveEdit('dogRun', dogRunId, changes, DOG_RUN_FIELDS, now, seen);
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
		await write(key, accepted(key, discarded(entry, now)));
		return true;
	});
}

/**
 * Applies the steward's choice to the open conflicts of an entry (see the domain's `resolved`);
 * the snapshot takes the server's values of the decided fields. Returns the entry, or null when
 * nothing is left. SyncError 'not-found' or 'no-conflict'.
 */
export function resolveConflict(
	key: string,
	choice: ConflictResolution,
	now: number = Date.now()
): Promise<OutboxEntry | null> {
	return db.transaction('rw', [db.dogRuns, db.runs, db.outbox, db.syncLog], async () => {
		const entry = await getEntry(key);
		if (!entry) throw new SyncError('not-found', { key });
		const step = accepted(key, resolved(entry, choice, now));
		await patchSnapshot(entry.kind, entry.resourceId, step.snapshot, now);
		await write(key, step);
		return step.entry;
	});
}

/**
 * Makes entries due at once: one entry the service refused ('failed' → 'pending', "Send again"),
 * or, without a key, every pending entry waiting out its backoff ("Sync now"). Conflicts stay for
 * a person to decide. Returns how many entries it made due.
 */
export function retryNow(key?: string, now: number = Date.now()): Promise<number> {
	return makeDue(key, () => true, now);
}

/**
 * Makes due at once the pending entries whose last attempt found no service at all (no answer, a
 * time-out, a captive portal, a gateway that could not reach it: $lib/sync/reachability): their
 * backoff waited for the network or the service, which is back. Entries the service answered with
 * an error keep their backoff. Returns how many entries it made due.
 */
export function retryUnreachable(now: number = Date.now()): Promise<number> {
	return makeDue(undefined, (entry) => waitsOnlyForService(entry, now), now);
}

/**
 * After the steward signed in (again): entries the service refused for want of credentials (401,
 * 403) go at once. Returns how many.
 */
export function retryAfterSignIn(now: number = Date.now()): Promise<number> {
	return makeDue(
		undefined,
		(entry) => entry.status === 'failed' && needsSignIn(entry.lastError?.status),
		now,
		'failed'
	);
}

function makeDue(
	key: string | undefined,
	which: (entry: OutboxEntry) => boolean,
	now: number,
	status: 'pending' | 'failed' = 'pending'
): Promise<number> {
	return db.transaction('rw', db.outbox, async () => {
		const entries = key
			? [await getEntry(key)].filter((e): e is OutboxEntry => e !== undefined)
			: await db.outbox.where('status').equals(status).toArray();
		let count = 0;
		for (const entry of entries) {
			const next = which(entry) ? retried(entry, now) : undefined;
			if (!next) continue;
			await putEntry(next);
			count += 1;
		}
		return count;
	});
}

type EntryStep = Step<ApiErrorRecord>;

function accepted<S extends EntryStep>(key: string, step: S | Refusal): S {
	if ('refused' in step) throw new SyncError(step.refused, { key });
	return step;
}

/** Writes a step: the entry (or its removal) and its log rows. Inside the caller's transaction. */
async function write(key: string, step: EntryStep): Promise<void> {
	if (step.entry) await putEntry(step.entry);
	else await deleteEntry(key);
	await appendSyncLogs(step.log);
}

async function readTarget(
	kind: ResourceKind,
	resourceId: number
): Promise<{ target: Target; data: Fields } | undefined> {
	const row = kind === 'dogRun' ? await db.dogRuns.get(resourceId) : await db.runs.get(resourceId);
	if (!row) return undefined;
	const runId = 'runId' in row ? row.runId : row.id;
	const { href, competitionId } = row;
	const key = outboxKey(kind, resourceId);
	return { target: { key, kind, resourceId, href, runId, competitionId }, data: row.data };
}

async function saveEdit(
	kind: ResourceKind,
	resourceId: number,
	changes: Fields,
	fields: readonly string[],
	now: number,
	/** The server values the edit starts from, where known better than the snapshot (undo). */
	base: Fields = {}
): Promise<OutboxEntry | null> {
	const key = outboxKey(kind, resourceId);
	// Only the stores this save reads and writes: fewer transactions to queue behind (a replay's).
	const snapshots = kind === 'dogRun' ? db.dogRuns : db.runs;
	return db.transaction('rw', snapshots, db.outbox, async () => {
		// Both reads at once: one round trip to IndexedDB instead of two.
		const [stored, existing] = await Promise.all([readTarget(kind, resourceId), getEntry(key)]);
		if (!stored) throw new SyncError('not-stored', { key });
		const step = saved(existing, editOf(changes, fields, stored.data, base), stored.target, now);
		if (step.entry) await putEntry(step.entry);
		else if (existing) await deleteEntry(key);
		return step.entry;
	});
}
