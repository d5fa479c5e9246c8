/**
 * The life of one outbox entry, as a pure state machine: every change of an entry is one of the
 * transitions below, each taking the entry (and what happened) and returning the next entry (null:
 * the entry is gone) and the sync-log rows to append. The sync layer's outbox and replay only read
 * entries, call these, and write what they return in one transaction.
 *
 *   saved ──► pending ──decided──► sending ──sent──► (gone, or pending with what was edited meanwhile)
 *                │  ▲                 │  └─failed──► pending (later: backoff) | failed (refused)
 *                │  └──retried────────┤  └─released─► pending (decided, never sent)
 *                │                    └─────────────► conflict ──resolved──► pending | (gone)
 *                └─discarded──► (gone)
 *
 * The rules the transitions keep (tested as properties in outbox-entry.test.ts):
 * - no transition drops an unsent value, except the steward's own discard or "theirs", or a value
 *   the server was seen holding;
 * - 'conflict' ⇔ open conflicts, except while 'sending' the fields not in conflict;
 * - 'failed' always carries its error;
 * - a save made while a PUT was out raises `revision`, so the PUT's outcome never clobbers it.
 *
 * Long because it is one state machine: its transitions and the rules they keep are read and
 * checked together (a transition split off is one whose rule nobody sees broken).
 */
import type { ResourceKind } from '../contract/fields';
import {
	coalesce,
	hasFields,
	keepInFlight,
	pruneEdit,
	rebaseOnSent,
	reconcileBase,
	resolveConflicts,
	threeWayMerge,
	withoutFields,
	type ConflictChoice,
	type Fields,
	type FieldsEdit,
	type MergeDecision
} from './merge';

export type { ResourceKind };
export type EntryStatus = 'pending' | 'sending' | 'conflict' | 'failed';

export interface FieldConflictRecord {
	field: string;
	base: unknown;
	mine: unknown;
	theirs: unknown;
}

/** The resource an entry is about, as stored on the device. */
export interface Target {
	/** `${kind}:${resourceId}`: one entry per resource. */
	key: string;
	kind: ResourceKind;
	resourceId: number;
	/** The competition run the resource belongs to (itself for a run): batches the conflict check. */
	runId: number;
	competitionId: number;
	/** The resource's `self` href: where the PUT goes. */
	href: string;
}

/**
 * One unsent edit of one resource. Edits of the same resource coalesce into one entry (new values,
 * the original base), so a resource's edits are sent in order by construction. `E` is the stored
 * shape of an error (the API layer's record).
 */
export interface OutboxEntry<E = unknown> extends Target {
	/** Field → new value, only the fields the steward changed. */
	changes: Fields;
	/** Field → the server's value when the first unsent edit of that field was made. */
	base: Fields;
	status: EntryStatus;
	/** Increments on every local edit: a replay that read revision n never clobbers n + 1. */
	revision: number;
	createdAt: number;
	updatedAt: number;
	/** Attempts of the current series (a save starts a new one). */
	attempts: number;
	nextAttemptAt: number;
	lastError: E | null;
	conflicts: FieldConflictRecord[] | null;
	/**
	 * The fields of a PUT whose outcome is not known yet (in flight, or its answer was lost), with
	 * their bases. The next decision counts a server value equal to the sent one as ours, and a save
	 * never drops such a field, so an edit back to the old value still reaches the server.
	 */
	inFlight?: FieldsEdit | null;
}

export type LogAction =
	'sent' | 'already-applied' | 'conflict' | 'failed' | 'retry' | 'resolved' | 'discarded';

/** A row of the sync log: what happened to an entry, when. */
export interface LogRow<E = unknown> {
	at: number;
	key: string;
	kind: ResourceKind;
	resourceId: number;
	action: LogAction;
	/** The HTTP status of the answer, when there was one. */
	status: number | null;
	/** An error code, or the service's message for a refusal. */
	detail: string | null;
	fields: Fields | null;
	/** For 'retry': when the next attempt is due. */
	nextAttemptAt?: number;
	/** For 'retry' and 'failed': the error, as stored on the entry. */
	error?: E;
}

/** What a transition leaves: the next entry (null: gone) and the log rows to append. */
export interface Step<E> {
	entry: OutboxEntry<E> | null;
	log: LogRow<E>[];
}

/** A transition the entry's state does not allow; the sync layer throws it as a SyncError. */
export interface Refusal {
	refused: 'busy' | 'no-conflict';
}

/** Statuses the replay picks up: 'sending' is an attempt a crash or a closed tab interrupted. */
export const DUE_STATUSES: readonly EntryStatus[] = ['pending', 'sending'];

export function isDue(entry: Pick<OutboxEntry, 'status'>): boolean {
	return DUE_STATUSES.includes(entry.status);
}

function logRow<E>(
	entry: OutboxEntry<E>,
	now: number,
	row: Pick<LogRow<E>, 'action'> & Partial<LogRow<E>>
): LogRow<E> {
	return {
		at: now,
		key: entry.key,
		kind: entry.kind,
		resourceId: entry.resourceId,
		status: null,
		detail: null,
		fields: null,
		...row
	};
}

// ─── The steward's transitions ──────────────────────────────────────────────────────────────────

/**
 * A steward's save (or undo) of `edit` (built by `editOf`): coalesced into the entry, or a new
 * entry. A new revision, due at once, a fresh series of attempts. While a PUT is out the entry
 * stays 'sending' (the attempt ends with a re-check of this newer revision). Null entry: nothing
 * is left to send (the steward typed the old values back).
 */
export function saved<E>(
	existing: OutboxEntry<E> | undefined,
	edit: FieldsEdit,
	target: Target,
	now: number
): Step<E> {
	const merged = keepInFlight(
		existing ? coalesce(existing, edit) : pruneEdit(edit),
		existing?.inFlight
	);
	if (!merged) return { entry: null, log: [] };
	if (!existing) {
		return {
			entry: {
				...target,
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
			},
			log: []
		};
	}
	const sending = existing.status === 'sending';
	return {
		entry: {
			...existing,
			changes: merged.changes,
			base: merged.base,
			status: sending ? 'sending' : 'pending',
			revision: existing.revision + 1,
			updatedAt: now,
			attempts: 0,
			nextAttemptAt: now,
			lastError: sending ? existing.lastError : null,
			conflicts: sending ? existing.conflicts : null
		},
		log: []
	};
}

/** The steward drops the entry and its unsent changes. Refused while it is being sent. */
export function discarded<E>(entry: OutboxEntry<E>, now: number): Step<E> | Refusal {
	if (entry.status === 'sending') return { refused: 'busy' };
	return {
		entry: null,
		log: [logRow(entry, now, { action: 'discarded', fields: entry.changes })]
	};
}

/**
 * The steward's choice on the open conflicts. 'mine' keeps my value with the server's as its new
 * base (the next replay sends it); 'theirs' drops mine. A per-field record leaves the conflicts it
 * does not name open. `snapshot`: the server's values of the decided fields, for the stored copy.
 */
export function resolved<E>(
	entry: OutboxEntry<E>,
	choice: ConflictChoice | Record<string, ConflictChoice>,
	now: number
): (Step<E> & { snapshot: Fields }) | Refusal {
	const open = entry.conflicts ?? [];
	if (entry.status !== 'conflict' || open.length === 0) return { refused: 'no-conflict' };
	const decision: MergeDecision<Fields> = { send: {}, alreadyApplied: [], conflicts: open };
	const { edit, unresolved } = resolveConflicts(decision, choice);
	const stillOpen = new Set(unresolved.map((c) => c.field));
	const decided: Record<string, ConflictChoice> = {};
	const snapshot: Fields = {};
	for (const c of open) {
		if (stillOpen.has(c.field)) continue;
		decided[c.field] = typeof choice === 'string' ? choice : (choice[c.field] ?? 'theirs');
		snapshot[c.field] = c.theirs;
	}

	// Fields outside the conflicts stay; decided ones take the resolution's value and base.
	const next: FieldsEdit = { changes: {}, base: {} };
	for (const [field, value] of Object.entries(entry.changes)) {
		if (Object.hasOwn(decided, field)) continue;
		next.changes[field] = value;
		if (Object.hasOwn(entry.base, field)) next.base[field] = entry.base[field];
	}
	Object.assign(next.changes, edit?.changes);
	Object.assign(next.base, edit?.base);

	const log = [logRow(entry, now, { action: 'resolved', fields: decided })];
	if (!hasFields(next.changes)) return { entry: null, log, snapshot };
	const remaining = open.filter((c) => stillOpen.has(c.field));
	return {
		entry: {
			...entry,
			changes: next.changes,
			base: next.base,
			status: remaining.length > 0 ? 'conflict' : 'pending',
			conflicts: remaining.length > 0 ? remaining : null,
			revision: entry.revision + 1,
			updatedAt: now,
			attempts: 0,
			nextAttemptAt: now,
			lastError: null
		},
		log,
		snapshot
	};
}

/**
 * Due at once: an entry the service refused ("Send again") or one waiting out its backoff ("Sync
 * now"). Undefined when its state has nothing to retry (being sent, or waiting for a person).
 */
export function retried<E>(entry: OutboxEntry<E>, now: number): OutboxEntry<E> | undefined {
	if (entry.status !== 'pending' && entry.status !== 'failed') return undefined;
	return { ...entry, status: 'pending', nextAttemptAt: now, updatedAt: now };
}

// ─── The replay's transitions ───────────────────────────────────────────────────────────────────

/** The outcome of a decision: the step, and the PUT it leads to. */
export interface Decision<E> extends Step<E> {
	/** The fields to PUT now, or null (nothing to send, or parked for a person). */
	send: Fields | null;
	/** The entry's PUT of unknown outcome before this decision: restored if the PUT is not made. */
	inFlightBefore: FieldsEdit | null;
	outcome: 'send' | 'already-applied' | 'conflict';
}

/**
 * The entry merged field by field with the server's resource as just read: fields the server
 * already holds leave the entry; fields someone else changed park it for a person ('conflict');
 * the rest are marked in flight and the entry is 'sending' (one attempt more). Undefined when the
 * entry is not due (a person must act first).
 */
export function decided<E>(
	entry: OutboxEntry<E>,
	server: Fields,
	now: number
): Decision<E> | undefined {
	if (!isDue(entry)) return undefined;
	const base = reconcileBase(entry, server);
	const decision = threeWayMerge<Fields>(base, entry.changes, server);
	const applied = decision.alreadyApplied as string[];
	// Restored if this decision's PUT is not made; fields found on the server leave it, or a later
	// save would read them as "set back to the base" and revert the server.
	const inFlightBefore = withoutFields(entry.inFlight ?? null, applied);
	const changes = { ...entry.changes };
	for (const field of applied) {
		delete changes[field];
		delete base[field];
	}
	const found: FieldConflictRecord[] = decision.conflicts.map((c) => ({
		field: c.field as string,
		base: c.base,
		mine: c.mine,
		theirs: c.theirs
	}));
	const sendsNothing = !hasFields(decision.send);
	const log: LogRow<E>[] = [];
	const appliedValues: Fields = {};
	for (const field of applied) appliedValues[field] = entry.changes[field];

	if (sendsNothing && found.length === 0) {
		log.push(logRow(entry, now, { action: 'already-applied', fields: entry.changes }));
		return { entry: null, log, send: null, inFlightBefore, outcome: 'already-applied' };
	}
	// Part of the edit is already on the server (another phone saved the same value).
	if (applied.length > 0) {
		log.push(logRow(entry, now, { action: 'already-applied', fields: appliedValues }));
	}
	if (sendsNothing) {
		log.push(logRow(entry, now, { action: 'conflict', fields: conflictFields(found) }));
		return {
			entry: {
				...entry,
				changes,
				base,
				status: 'conflict',
				conflicts: found,
				inFlight: null,
				lastError: null
			},
			log,
			send: null,
			inFlightBefore,
			outcome: 'conflict'
		};
	}
	// Fields in conflict wait for a person; the others go now.
	const inFlight: FieldsEdit = { changes: decision.send, base: {} };
	for (const field of Object.keys(decision.send)) inFlight.base[field] = base[field];
	return {
		entry: {
			...entry,
			changes,
			base,
			status: 'sending',
			attempts: entry.attempts + 1,
			conflicts: found.length > 0 ? found : null,
			inFlight
		},
		log,
		send: decision.send,
		inFlightBefore,
		outcome: 'send'
	};
}

/**
 * A decision whose PUT was never made (the replay stopped first): back to 'pending' with the
 * attempt uncounted and the PUT of unknown outcome from before restored, so nothing shows as
 * being sent that is not. Undefined when the entry is no longer being sent.
 */
export function released<E>(
	entry: OutboxEntry<E>,
	decidedRevision: number,
	inFlightBefore: FieldsEdit | null
): OutboxEntry<E> | undefined {
	if (entry.status !== 'sending') return undefined;
	const unchanged = entry.revision === decidedRevision;
	return {
		...entry,
		status: 'pending',
		// A save made meanwhile started a fresh series of attempts.
		attempts: unchanged ? Math.max(0, entry.attempts - 1) : entry.attempts,
		inFlight: inFlightBefore,
		// Found again by the next decision.
		conflicts: null
	};
}

/**
 * A PUT of `send` succeeded (HTTP `status`): the entry, read afresh, drops what was sent; a value
 * saved while the PUT was out stays, due at once, with the sent value as its base. Fields that
 * waited in conflict during the PUT park the entry again.
 */
export function sent<E>(
	entry: OutboxEntry<E> | undefined,
	sentEntry: Pick<OutboxEntry<E>, 'key' | 'kind' | 'resourceId' | 'revision'>,
	send: Fields,
	status: number,
	now: number
): Step<E> {
	const log: LogRow<E>[] = [
		{
			at: now,
			key: sentEntry.key,
			kind: sentEntry.kind,
			resourceId: sentEntry.resourceId,
			action: 'sent',
			status,
			detail: null,
			fields: send
		}
	];
	if (!entry) return { entry: null, log };
	const rest = rebaseOnSent(entry, send);
	if (!rest) return { entry: null, log };
	const unchanged = entry.revision === sentEntry.revision;
	const open = unchanged && entry.conflicts && entry.conflicts.length > 0 ? entry.conflicts : null;
	if (open) log.push(logRow(entry, now, { action: 'conflict', fields: conflictFields(open) }));
	return {
		entry: {
			...entry,
			changes: rest.changes,
			base: rest.base,
			inFlight: null,
			lastError: null,
			conflicts: open,
			status: open ? 'conflict' : 'pending',
			// Edited while in flight: due again at once.
			nextAttemptAt: unchanged ? entry.nextAttemptAt : now
		},
		log
	};
}

/** A failed read or PUT, as the sync layer classifies it. */
export interface Failure<E> {
	/** Transient (network, timeout, 5xx, 429, 412, not the service's body): try again later. */
	transient: boolean;
	/** The service answered (any HTTP status): a PUT that got an answer was not applied. */
	answered: boolean;
	status: number | null;
	/** For the log: an error code, or the service's message for a refusal. */
	detail: string;
	/** The error as stored on the entry. */
	record: E;
}

/**
 * A read or PUT of the entry (at `revision`) failed. Transient: back off (`delay(attempts)`) and
 * stay pending. Refused: park as 'failed' with the error, unless the steward edited meanwhile (the
 * edit may be the fix: due again). Never drops anything. After a network error on a PUT nobody
 * knows whether it arrived: its fields stay in flight.
 */
export function failed<E>(
	entry: OutboxEntry<E>,
	revision: number,
	failure: Failure<E>,
	putAttempted: boolean,
	delay: (attempts: number) => number,
	now: number
): Step<E> {
	const edited = entry.revision !== revision;
	// A PUT attempt was counted when it was marked 'sending'.
	const attempts = putAttempted && !edited ? entry.attempts : entry.attempts + 1;
	const inFlight = putAttempted && failure.answered ? null : (entry.inFlight ?? null);
	const row = {
		status: failure.status,
		detail: failure.detail,
		error: failure.record,
		fields: putAttempted ? (entry.inFlight?.changes ?? null) : null
	};
	// Conflicts found on the way are found again by the next decision; until then none is open.
	if (failure.transient) {
		const nextAttemptAt = now + delay(attempts);
		return {
			entry: {
				...entry,
				status: 'pending',
				attempts,
				nextAttemptAt,
				lastError: failure.record,
				conflicts: null,
				inFlight
			},
			log: [logRow(entry, now, { action: 'retry', ...row, nextAttemptAt })]
		};
	}
	return {
		entry: {
			...entry,
			status: edited ? 'pending' : 'failed',
			attempts,
			nextAttemptAt: edited ? now : entry.nextAttemptAt,
			lastError: failure.record,
			conflicts: null,
			inFlight
		},
		log: [logRow(entry, now, { action: 'failed', ...row })]
	};
}

// ─── Checks ─────────────────────────────────────────────────────────────────────────────────────

/** What is wrong with an entry's state, or null: the rules every transition keeps. */
export function entryProblem(entry: OutboxEntry<unknown>): string | null {
	const open = entry.conflicts?.length ?? 0;
	if (!hasFields(entry.changes)) return 'no changes';
	if (entry.status === 'conflict' && open === 0) return 'conflict without conflicts';
	if (open > 0 && entry.status !== 'conflict' && entry.status !== 'sending') {
		return `conflicts while ${entry.status}`;
	}
	if (entry.status === 'failed' && entry.lastError === null) return 'failed without an error';
	for (const c of entry.conflicts ?? []) {
		if (!Object.hasOwn(entry.changes, c.field)) return `conflict on ${c.field}, not changed`;
	}
	if (entry.status === 'sending' && !entry.inFlight) return 'sending without a PUT in flight';
	return null;
}

function conflictFields(conflicts: readonly FieldConflictRecord[]): Fields {
	const fields: Fields = {};
	for (const c of conflicts) fields[c.field] = { base: c.base, mine: c.mine, theirs: c.theirs };
	return fields;
}
