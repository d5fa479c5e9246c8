/**
 * Per-field three-way merge used by the outbox replay, and the coalescing of pending edits.
 *
 * A pending edit holds only the fields the steward changed (`changes`) and, for each of them, the
 * server's value when the first unsent edit of that field was made (`base`). Two people recording
 * one dog (timekeeper: time; scribe: faults, refusals) touch different fields, so their edits merge.
 */
import type { Fields } from '../contract/fields';

export interface PendingEdit<T> {
	/** The server's values of the changed fields when the steward first changed them. */
	base: Partial<T>;
	/** The steward's new values; only the fields the steward changed. */
	changes: Partial<T>;
}

export interface FieldConflict<T, K extends keyof T = keyof T> {
	field: K;
	/** Undefined when the base of the field was never recorded. */
	base: T[K] | undefined;
	mine: T[K];
	theirs: T[K];
}

export interface MergeDecision<T> {
	/** Fields to PUT now: the server still holds the value the steward started from. */
	send: Partial<T>;
	/** Fields the server already holds with the steward's value: nothing to send. */
	alreadyApplied: (keyof T)[];
	/** Fields someone else changed to another value meanwhile: a person decides. */
	conflicts: FieldConflict<T>[];
}

export type ConflictChoice = 'mine' | 'theirs';

export interface Resolution<T> {
	/** The edit to queue (its base is the server's current values), or null if nothing to send. */
	edit: PendingEdit<T> | null;
	/** Conflicts the choice did not cover: they stay open. */
	unresolved: FieldConflict<T>[];
}

/** Decimals at which two numbers count as equal: course times carry three, dog times two. */
const EQUALITY_DECIMALS = 3;

/**
 * Field equality for merging. Numbers are equal when they round to the same thousandth (the
 * service may answer 65, 65.00 or 64.99999999 for one value); null differs from any number;
 * everything else compares with ===.
 */
export function sameFieldValue(a: unknown, b: unknown): boolean {
	if (typeof a === 'number' && typeof b === 'number') {
		if (!Number.isFinite(a) || !Number.isFinite(b)) return Object.is(a, b);
		const scale = 10 ** EQUALITY_DECIMALS;
		return Math.round(a * scale) === Math.round(b * scale);
	}
	return a === b;
}

function ownKeys<T>(o: Partial<T>): (keyof T)[] {
	return Object.keys(o) as (keyof T)[];
}

function has<T>(o: Partial<T>, key: keyof T): boolean {
	return Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;
}

/**
 * Decides, field by field, what to do with the steward's change given the server's current
 * resource. For each field in `mine`: the server already holds mine → already applied (checked
 * first, so a field equal everywhere is not sent again); the server still holds base → send;
 * otherwise → conflict. A field whose base is missing can only be already applied or a conflict.
 * Fields of `mine` set to undefined are ignored.
 */
export function threeWayMerge<T extends object>(
	base: Partial<T>,
	mine: Partial<T>,
	theirs: T
): MergeDecision<T> {
	const decision: MergeDecision<T> = { send: {}, alreadyApplied: [], conflicts: [] };
	for (const field of ownKeys(mine)) {
		if (!has(mine, field)) continue;
		const mineValue = mine[field] as T[typeof field];
		const theirsValue = theirs[field];
		if (sameFieldValue(theirsValue, mineValue)) {
			decision.alreadyApplied.push(field);
		} else if (has(base, field) && sameFieldValue(theirsValue, base[field])) {
			decision.send[field] = mineValue;
		} else {
			decision.conflicts.push({ field, base: base[field], mine: mineValue, theirs: theirsValue });
		}
	}
	return decision;
}

/**
 * Turns a person's choice on the conflicts of a decision into the edit to queue. 'mine' re-queues
 * the steward's value with the server's current value as its new base (so the next replay sends it
 * unless the field moves again); 'theirs' drops the steward's value. A per-field record leaves any
 * conflict it does not name unresolved. `decision.send` is not part of the result: the replay sends
 * those fields at once, without waiting for a person.
 */
export function resolveConflicts<T>(
	decision: MergeDecision<T>,
	choice: ConflictChoice | Partial<Record<keyof T, ConflictChoice>>
): Resolution<T> {
	const edit: PendingEdit<T> = { base: {}, changes: {} };
	const unresolved: FieldConflict<T>[] = [];
	for (const conflict of decision.conflicts) {
		const pick = typeof choice === 'string' ? choice : choice[conflict.field];
		if (pick === undefined) {
			unresolved.push(conflict);
		} else if (pick === 'mine') {
			edit.changes[conflict.field] = conflict.mine;
			edit.base[conflict.field] = conflict.theirs;
		}
	}
	return { edit: ownKeys(edit.changes).length > 0 ? edit : null, unresolved };
}

/**
 * Drops the fields whose new value equals their base (the steward typed the old value back):
 * sending them would only risk a needless conflict. Returns null when no field remains.
 */
export function pruneEdit<T>(edit: PendingEdit<T>): PendingEdit<T> | null {
	const result: PendingEdit<T> = { base: {}, changes: {} };
	for (const field of ownKeys(edit.changes)) {
		if (!has(edit.changes, field)) continue;
		const value = edit.changes[field];
		if (has(edit.base, field) && sameFieldValue(value, edit.base[field])) continue;
		result.changes[field] = value;
		if (Object.prototype.hasOwnProperty.call(edit.base, field))
			result.base[field] = edit.base[field];
	}
	return ownKeys(result.changes).length > 0 ? result : null;
}

/**
 * Folds a newer unsent edit of the same resource into the pending one. New values come from
 * `next`; a field already pending keeps its ORIGINAL base (the server value the steward started
 * from), a field new to this edit takes its base from `next`. A field edited back to its base is
 * dropped; null means nothing is left to send (remove the pending edit).
 */
export function coalesce<T>(existing: PendingEdit<T>, next: PendingEdit<T>): PendingEdit<T> | null {
	const merged: PendingEdit<T> = { base: {}, changes: {} };
	const fields = new Set([...ownKeys(existing.changes), ...ownKeys(next.changes)]);
	for (const field of fields) {
		const fromNext = has(next.changes, field);
		if (!fromNext && !has(existing.changes, field)) continue;
		merged.changes[field] = fromNext ? next.changes[field] : existing.changes[field];
		const baseSource = has(existing.changes, field) && has(existing.base, field) ? existing : next;
		if (has(baseSource.base, field)) merged.base[field] = baseSource.base[field];
	}
	return pruneEdit(merged);
}

// ─── The edit arithmetic of the outbox, over untyped field records ─────────────────────────────

/** A resource's fields by name, as stored and sent. */
export type { Fields };
export type FieldsEdit = PendingEdit<Fields>;

export function hasFields(record: Fields): boolean {
	return Object.keys(record).length > 0;
}

/**
 * A steward's change as an edit: the allowed `fields` that `changes` sets, each with its base, the
 * server's value the steward started from: the one given in `base` where known better (an undo
 * knows what its save recorded), else the stored snapshot's.
 */
export function editOf(
	changes: Fields,
	fields: readonly string[],
	snapshot: Fields,
	base: Fields = {}
): FieldsEdit {
	const edit: FieldsEdit = { changes: {}, base: {} };
	for (const field of fields) {
		if (!Object.hasOwn(changes, field) || changes[field] === undefined) continue;
		edit.changes[field] = changes[field];
		edit.base[field] = Object.hasOwn(base, field) ? base[field] : snapshot[field];
	}
	return edit;
}

/**
 * Keeps every field of a PUT whose outcome is unknown: a field the steward took back to its base is
 * kept as "back to base", since the server may hold the sent value. Null when nothing is left.
 */
export function keepInFlight(
	edit: FieldsEdit | null,
	inFlight: FieldsEdit | null | undefined
): FieldsEdit | null {
	if (!inFlight) return edit;
	const result: FieldsEdit = { changes: { ...edit?.changes }, base: { ...edit?.base } };
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
export function rebaseOnSent(edit: FieldsEdit, sent: Fields): FieldsEdit | null {
	const result: FieldsEdit = { changes: {}, base: {} };
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

/**
 * The edit's bases, counting a field of an earlier PUT of unknown outcome as ours when the server
 * holds exactly the value that PUT carried (its answer was lost, but it arrived).
 */
export function reconcileBase(
	edit: FieldsEdit & { inFlight?: FieldsEdit | null },
	server: Fields
): Fields {
	const base = { ...edit.base };
	for (const [field, sent] of Object.entries(edit.inFlight?.changes ?? {})) {
		if (sameFieldValue(server[field], sent)) base[field] = sent;
	}
	return base;
}

/** The edit without the given fields; null when nothing is left. */
export function withoutFields(
	edit: FieldsEdit | null,
	fields: readonly string[]
): FieldsEdit | null {
	if (!edit || fields.length === 0) return edit;
	const changes = { ...edit.changes };
	const base = { ...edit.base };
	for (const field of fields) {
		delete changes[field];
		delete base[field];
	}
	return hasFields(changes) ? { changes, base } : null;
}
