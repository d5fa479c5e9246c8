/**
 * Keys of the outbox (and of the sync log's rows): one entry per resource, so a resource's edits
 * coalesce. Pure, no Dexie: the pure views ($lib/ui/view/board, run-view) look entries up by it.
 */
import type { OutboxEntry, ResourceKind } from './db';

/** The one key of a resource's entry: edits of one resource coalesce into it. */
export function outboxKey(kind: ResourceKind, resourceId: number): string {
	return `${kind}:${resourceId}`;
}

/** Entries read, by their key. */
export type EntriesByKey = ReadonlyMap<string, OutboxEntry>;

/** The unsent edit of one dog run or run among those read, if any. */
export function unsentFor(
	entries: EntriesByKey,
	kind: ResourceKind,
	id: number
): OutboxEntry | undefined {
	return entries.get(outboxKey(kind, id));
}
