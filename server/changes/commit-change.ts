// The one way a PUT changes a versioned resource (a dog run's result, a run's course), the same
// on one process and on several instances of one database: read it once (the router, before the
// body: 404, a steward's ring, If-Match), check the request against it, update it on the condition that its version is still the one read, and in
// the same transaction claim the change's place in the order of changes, read again what the
// answer shows, write the PUT log row and record the change (the store delivers it to the push
// channel once committed) and, in mirror mode, the outbox entry of the upstream; then answer it
// with its ETag. The mirror applies what the upstream changed through the same `applyChange`.
import { stringifyHal } from '../http/hal.ts';
import { HttpError } from '../http/errors.ts';
import type { Fields } from '../../src/lib/contract/fields.ts';
import type { ResourceKind } from '../../src/lib/contract/fields.ts';
import type { ChangeEvent } from '../push/change-feed.ts';
import type { Versioned } from '../middleware/etag.ts';
import type { Etags } from '../middleware/etag.ts';
import type { Exchange } from '../middleware/exchange.ts';
import { Repository } from '../store/repository.ts';
import type { Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';

/** What a PUT of one kind of resource changes, and how it shows. */
export interface Change<Row> {
	/** The event the push channel names the change with. */
	event: ChangeEvent;
	/** Reads the resource as it is now (throws 404 when there is none). */
	read(repo: Repository): Promise<Row>;
	/** Its stored version, which If-Match names. */
	versionOf(row: Row): Versioned;
	/** Checks the request against the resource as read (throws 400), after If-Match. */
	check(current: Row): void;
	/** Updates it on the condition that it is still `current`; false: it is not (nothing changed). */
	update(repo: Repository, current: Row): Promise<boolean>;
	/** Its representation (built on API_BASE) as the answer and the event show it, and its competition. */
	shown(repo: Repository, row: Row): Promise<{ value: unknown; competitionId: number }>;
	/**
	 * What the mirror publishes upstream: its editable fields in the interface's names and units,
	 * and what the outbox names it by with the run it belongs to (itself for a run). Null: the
	 * event laptop's own state (public views' settings), which is never published.
	 */
	upstream: {
		fields(row: Row): Fields;
		target(row: Row): { kind: ResourceKind; id: number; runId: number };
	} | null;
}

/** A ring, as the steward check names it. */
export interface RingRef {
	id: number;
	name: string;
}

/** A resource a PUT changes: the route's part (server/routes/route.ts, `writes`). */
export interface Writable<Row> {
	/**
	 * The change of resource `id` by the PUT's body, which `json` gives once it is read (the
	 * resource is read, and If-Match checked, before it).
	 */
	change(api: string, id: number, json: () => Record<string, unknown>): Change<Row>;
	/** The ring of the run it belongs to: a steward may write only the runs of its rings. */
	ringOf(repo: Repository, row: Row): Promise<RingRef>;
}

/** What a change made by a PUT needs of the request's call. */
export interface CommitCall {
	store: Store;
	/** A transaction that first confirms the caller's device was not revoked (router.ts). */
	write: Store['write'];
	etags: Etags;
	/** Writes the PUT log row in the change's transaction. */
	logApplied: (sql: Sql, summary: string) => Promise<void>;
	recordChange: ChangeRecorder | null;
}

/** A committed change as the mirror's outbox records it (server/mirror/outbox.ts). */
export interface RecordedChange {
	kind: ResourceKind;
	id: number;
	runId: number;
	competitionId: number;
	/** The editable fields before and after the change. */
	before: Fields;
	after: Fields;
}

/**
 * Records, in the transaction of a change, what the change did (mirror mode: the outbox of what
 * the upstream has not yet); null: nothing records changes.
 */
export type ChangeRecorder = (sql: Sql, change: RecordedChange) => Promise<void>;

/** What a change did, once committed. */
export interface Applied<Row> {
	value: unknown;
	template: string;
	versioned: Versioned;
	summary: string;
	row: Row;
}

/**
 * The change `c` applied to `current` in one transaction of `write`, or null when another writer
 * changed the resource since `current` was read (nothing changed). In the transaction: the update
 * conditional on the version read, the change's place in the order of changes, the row as it now
 * is, `log` (the PUT log row, when a PUT made it), the change delivered to the push channel once
 * committed, and `recorder` (the mirror's outbox, when a phone made it).
 */
export async function applyChange<Row>(
	store: Store,
	write: Store['write'],
	c: Change<Row>,
	current: Row,
	log: ((sql: Sql, summary: string) => Promise<void>) | null,
	recorder: ChangeRecorder | null
): Promise<Applied<Row> | null> {
	return write(async (sql) => {
		const repo = new Repository(sql);
		if (!(await c.update(repo, current))) return null;
		// First: what is read next (the run's progress) includes every change committed before.
		const seq = await store.feed.claim(sql);
		const row = await c.read(repo);
		const versioned = c.versionOf(row);
		const summary = `updated ${versioned.kind} ${versioned.id} to version ${versioned.version}`;
		if (log) await log(sql, summary);
		const { value, competitionId } = await c.shown(repo, row);
		const template = stringifyHal(value);
		await store.feed.record(sql, seq, { competitionId, event: c.event, template });
		if (recorder && c.upstream) {
			const before = c.upstream.fields(current);
			const after = c.upstream.fields(row);
			await recorder(sql, { ...c.upstream.target(row), competitionId, before, after });
		}
		return { value, template, versioned, summary, row };
	});
}

/** How often a PUT without If-Match reads again when another writer came first. */
export const WRITE_ATTEMPTS = 20;

/**
 * Applies the PUT `ex` with `c` to `first`, the resource as the router read it (If-Match checked
 * against it), and answers it. The new values are computed from the version read, and the UPDATE
 * is conditional on that version (`… WHERE id = @id AND version = @version`). When another writer
 * committed in between (a slow upload, another instance), nothing changed: the resource is read
 * again, and with If-Match the check answers 412 (the tag names an older version); without, the
 * PUT is applied to what is there now, as it would have been in order. No update is lost,
 * whichever instance each writer reached.
 */
export async function commitChange<Row>(
	ex: Exchange,
	call: CommitCall,
	c: Change<Row>,
	first: Row
): Promise<void> {
	const { store, write, etags, logApplied, recordChange } = call;
	let current = first;
	for (let attempt = 1; ; attempt++) {
		c.check(current);
		const done = await applyChange(store, write, c, current, logApplied, recordChange);
		if (done) {
			etags.send(ex, done.value, done.versioned, done.template);
			ex.summary = done.summary;
			return;
		}
		if (attempt >= WRITE_ATTEMPTS) {
			throw new HttpError(
				503,
				'The resource is being changed by many writers at once; nothing was stored. Send again',
				{ 'Retry-After': '1' }
			);
		}
		await takeTurns(attempt);
		current = await c.read(new Repository(store.sql));
		etags.checkIfMatch(ex.req, c.versionOf(current));
	}
}

/**
 * Before another attempt of a write that found its row changed: writers that keep colliding on
 * one row (several instances, or the mirror's puller and a phone) take turns at random, or they
 * could keep beating each other until the attempts run out.
 */
export function takeTurns(attempt: number): Promise<void> {
	return new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
}
