/**
 * Replays the outbox to the results service: for each due entry, read the server's current
 * resource, merge field by field (domain threeWayMerge), PUT only what is still the steward's to
 * send, and record every outcome in the entry and the sync log.
 *
 * What Workbox's background sync does wrong and this does not: an entry leaves the queue only after
 * its PUT succeeded, or after the server was seen holding its values (workbox#2599, data loss); an
 * error answer is never taken for success; entries go out in parallel across resources; every
 * outcome is written to Dexie, where the page reads it (workbox#2044).
 *
 * Runs in the page and in the service worker; callers hold the replay lock (./replay-lock).
 */
import { ApiError, isRetryable } from '$lib/api/errors';
import type { HalClient } from '$lib/api/hal-client';
import { expandLink, findLink } from '$lib/api/links';
import {
	CompetitionRunSchema,
	DogRunSchema,
	type CompetitionRun,
	type DogRun
} from '$lib/api/schemas';
import { db, type OutboxEntry } from '$lib/db/db';
import {
	appendSyncLog,
	countByStatus,
	deleteEntry,
	DUE_STATUSES,
	getEntry,
	listDueEntries,
	putEntry
} from '$lib/db/outbox-store';
import { getSetting, setSetting, SETTING_SERVICE_ETAGS } from '$lib/db/settings-store';
import { putDogRunSnapshot, putRunSnapshot } from '$lib/db/snapshot-store';
import { sameFieldValue, threeWayMerge } from '$lib/domain/merge';
import { nextDelayMs } from './backoff';
import { conflictRecords, hasFields, patchSnapshot, rebaseOnSent, type Edit } from './outbox';

export const DEFAULT_CONCURRENCY = 6;
/** From this many due dog-run entries of one run on, their check reads the run's list once. */
export const BATCH_THRESHOLD = 3;
/** Page size asked for when the dog-run list link is a template offering `size`. */
export const BATCH_PAGE_SIZE = 2000;

export interface ReplayOptions {
	client: HalClient;
	now?: () => number;
	/** Entries in flight at once, one per resource. Default 6. */
	concurrency?: number;
	/** Stops between steps; an entry caught mid-PUT stays 'sending' and is resumed next time. */
	signal?: AbortSignal;
	/** For the backoff jitter; default Math.random. */
	random?: () => number;
}

export interface ReplaySummary {
	/** Successful PUTs. */
	sent: number;
	/** Entries the server was found already holding: removed without a PUT. */
	alreadyApplied: number;
	/** Entries parked for a person to decide. */
	conflicts: number;
	/** Entries the service refused (4xx): parked with its message, never dropped. */
	failed: number;
	/** Entries that met a transient error and wait for their next attempt. */
	retried: number;
	/** Entries still pending or sending after this replay (due later). */
	remaining: number;
	/** The signal stopped the replay before every due entry was handled. */
	aborted: boolean;
}

type Theirs =
	| { kind: 'dogRun'; resource: DogRun; etag?: string }
	| { kind: 'run'; resource: CompetitionRun; etag?: string };

interface Context {
	/** The service answers ETags: every PUT is conditional, no batched list reads. */
	etags: boolean;
	client: HalClient;
	now: () => number;
	random: () => number;
	signal?: AbortSignal;
	/** Runs whose dog-run entries are checked against one read of the run's list. */
	batchedRuns: Set<number>;
	lists: Map<number, Promise<Map<number, DogRun> | null>>;
	summary: ReplaySummary;
}

/** The PUT a decision leads to. */
interface Sending {
	entry: OutboxEntry;
	send: Record<string, unknown>;
	/** From the read the decision was made on: sent as If-Match (list reads carry none). */
	etag?: string;
}

export async function replayOutbox(opts: ReplayOptions): Promise<ReplaySummary> {
	const now = opts.now ?? Date.now;
	const summary: ReplaySummary = {
		sent: 0,
		alreadyApplied: 0,
		conflicts: 0,
		failed: 0,
		retried: 0,
		remaining: 0,
		aborted: false
	};
	const due = await listDueEntries(now());

	const dueDogRunsPerRun = new Map<number, number>();
	for (const entry of due) {
		if (entry.kind === 'dogRun') {
			dueDogRunsPerRun.set(entry.runId, (dueDogRunsPerRun.get(entry.runId) ?? 0) + 1);
		}
	}
	// A service that offers ETags gets every update conditional (If-Match): each entry then reads its
	// own resource, since list reads carry no ETag. Without ETags, one list read serves many entries.
	// Not known yet: the first entry reads its own resource (a probe) before any batching.
	const known = await getSetting<boolean>(SETTING_SERVICE_ETAGS);
	const etags = known === true;
	const ctx: Context = {
		client: opts.client,
		now,
		random: opts.random ?? Math.random,
		signal: opts.signal,
		etags,
		batchedRuns: new Set(
			etags
				? []
				: [...dueDogRunsPerRun].filter(([, n]) => n >= BATCH_THRESHOLD).map(([runId]) => runId)
		),
		lists: new Map(),
		summary
	};

	let next = 0;
	if (known === undefined && ctx.batchedRuns.size > 0 && due.length > 0) {
		const batched = ctx.batchedRuns;
		ctx.batchedRuns = new Set();
		await replayEntry(ctx, due[next++] as OutboxEntry);
		ctx.batchedRuns = ctx.etags ? new Set() : batched;
		if (!ctx.etags) await setSetting(SETTING_SERVICE_ETAGS, false);
	}

	// A pool of workers over the due entries; one entry per resource, so each resource's edits stay
	// in order while different resources go out in parallel.
	const worker = async (): Promise<void> => {
		for (;;) {
			if (stopped(ctx)) return;
			const entry = due[next++];
			if (!entry) return;
			await replayEntry(ctx, entry);
		}
	};
	const width = Math.max(
		1,
		Math.min(Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY), due.length)
	);
	const results = await Promise.allSettled(Array.from({ length: width }, worker));
	const failure = results.find((r) => r.status === 'rejected');
	if (failure) throw failure.reason;

	summary.aborted = stopped(ctx);
	const counts = await countByStatus();
	summary.remaining = counts.pending + counts.sending;
	return summary;
}

function stopped(ctx: Context): boolean {
	return ctx.summary.aborted || ctx.signal?.aborted === true;
}

async function replayEntry(ctx: Context, listed: OutboxEntry): Promise<void> {
	const key = listed.key;
	let theirs: Theirs;
	try {
		theirs = await readTheirs(ctx, listed);
	} catch (e) {
		await recordError(ctx, key, listed.revision, e, false);
		return;
	}
	let reread = false;
	for (;;) {
		if (stopped(ctx)) return;
		const sending = await decide(ctx, key, theirs);
		if (!sending) return;
		if (stopped(ctx)) return; // marked 'sending' but not sent: resumed next time
		let answer: { status: number; fresh: Theirs | undefined };
		try {
			answer = await put(ctx, sending);
		} catch (e) {
			// 412: someone changed the resource between our read and our PUT. Read it again and merge
			// again, once; the new merge may find a conflict, or still send with the new ETag.
			if (!reread && isPreconditionFailed(e)) {
				reread = true;
				try {
					theirs = await readSelf(ctx, sending.entry);
				} catch (e2) {
					await recordError(ctx, key, sending.entry.revision, e2, true);
					return;
				}
				continue;
			}
			await recordError(ctx, key, sending.entry.revision, e, true);
			return;
		}
		await finalize(ctx, sending, answer.status, answer.fresh);
		return;
	}
}

/** The server's current resource: from the run's list when batched, else its self link. */
async function readTheirs(ctx: Context, entry: OutboxEntry): Promise<Theirs> {
	if (entry.kind === 'dogRun' && ctx.batchedRuns.has(entry.runId)) {
		let list = ctx.lists.get(entry.runId);
		if (!list) {
			list = readRunList(ctx, entry.runId);
			ctx.lists.set(entry.runId, list);
		}
		const found = (await list)?.get(entry.resourceId);
		// A dog run missing from the list (moved, or the list failed for good): its own link.
		if (found) return { kind: 'dogRun', resource: found };
	}
	return readSelf(ctx, entry);
}

async function readSelf(ctx: Context, entry: OutboxEntry): Promise<Theirs> {
	const opts = { signal: ctx.signal };
	const theirs: Theirs =
		entry.kind === 'dogRun'
			? await ctx.client.get(entry.href, DogRunSchema, opts).then(({ body, etag }) => ({
					kind: 'dogRun' as const,
					resource: body,
					etag
				}))
			: await ctx.client.get(entry.href, CompetitionRunSchema, opts).then(({ body, etag }) => ({
					kind: 'run' as const,
					resource: body,
					etag
				}));
	if (theirs.etag !== undefined && !ctx.etags) {
		ctx.etags = true;
		await setSetting(SETTING_SERVICE_ETAGS, true);
	}
	return theirs;
}

/**
 * Every dog run of a stored run, by id, following the run's `dogRuns` link as given and walking
 * `next`. Null when there is no usable link or the list is refused for good (each entry then reads
 * its own link); a transient error is thrown, so each entry backs off.
 */
async function readRunList(ctx: Context, runId: number): Promise<Map<number, DogRun> | null> {
	const run = await db.runs.get(runId);
	const link = findLink(run?.data._links, 'dogRuns');
	if (!link) return null;
	const byId = new Map<number, DogRun>();
	try {
		const href = expandLink(link, { size: BATCH_PAGE_SIZE });
		for await (const page of ctx.client.pages(href, 'dogRuns', DogRunSchema, {
			signal: ctx.signal
		})) {
			for (const dogRun of page.items) byId.set(dogRun.id, dogRun);
		}
	} catch (e) {
		if (isRetryable(e) || (e instanceof ApiError && e.code === 'aborted')) throw e;
		return null;
	}
	return byId;
}

/**
 * Merges the entry (read afresh, so a save made meanwhile counts) with the server's resource, and
 * records the decision in one transaction: the snapshot becomes the server's; fields the server
 * already holds leave the entry; conflicts park it; otherwise it is marked 'sending'. Returns the
 * PUT to make, or null.
 */
async function decide(ctx: Context, key: string, theirs: Theirs): Promise<Sending | null> {
	const now = ctx.now();
	return db.transaction('rw', [db.outbox, db.syncLog, db.dogRuns, db.runs], async () => {
		const entry = await getEntry(key);
		if (!entry || !DUE_STATUSES.includes(entry.status)) return null;
		const server: Record<string, unknown> = theirs.resource;
		const base = reconcileBase(entry, server);
		const decision = threeWayMerge<Record<string, unknown>>(base, entry.changes, server);
		await storeSnapshot(theirs, now);

		const changes = { ...entry.changes };
		for (const field of decision.alreadyApplied) {
			delete changes[field];
			delete base[field];
		}
		const conflicts = conflictRecords(decision.conflicts);
		const log = { at: now, key, kind: entry.kind, resourceId: entry.resourceId, status: null };

		const fullyApplied = !hasFields(decision.send) && conflicts.length === 0;
		if (decision.alreadyApplied.length > 0 && !fullyApplied) {
			// Part of the edit is already on the server (another phone saved the same value).
			const applied: Record<string, unknown> = {};
			for (const field of decision.alreadyApplied) applied[field] = entry.changes[field];
			await appendSyncLog({ ...log, action: 'already-applied', detail: null, fields: applied });
		}

		if (!hasFields(decision.send)) {
			if (fullyApplied) {
				await deleteEntry(key);
				await appendSyncLog({
					...log,
					action: 'already-applied',
					detail: null,
					fields: entry.changes
				});
				ctx.summary.alreadyApplied++;
				return null;
			}
			await putEntry({
				...entry,
				changes,
				base,
				previous: null,
				status: 'conflict',
				conflicts,
				inFlight: null,
				lastError: null
			});
			await appendSyncLog({
				...log,
				action: 'conflict',
				detail: null,
				fields: conflictFields(conflicts)
			});
			ctx.summary.conflicts++;
			return null;
		}

		// Fields in conflict wait for a person; the others go now.
		const inFlight: Edit = { changes: decision.send, base: {} };
		for (const field of Object.keys(decision.send)) inFlight.base[field] = base[field];
		const marked: OutboxEntry = {
			...entry,
			changes,
			base,
			previous: null,
			status: 'sending',
			attempts: entry.attempts + 1,
			conflicts: conflicts.length > 0 ? conflicts : null,
			inFlight
		};
		await putEntry(marked);
		return { entry: marked, send: decision.send, etag: theirs.etag };
	});
}

/**
 * The entry's bases, counting a field of an earlier PUT of unknown outcome as ours when the server
 * holds exactly the value that PUT carried (its answer was lost, but it arrived).
 */
function reconcileBase(
	entry: OutboxEntry,
	server: Record<string, unknown>
): Record<string, unknown> {
	const base = { ...entry.base };
	const inFlight = entry.inFlight;
	if (!inFlight) return base;
	for (const [field, sent] of Object.entries(inFlight.changes)) {
		if (sameFieldValue(server[field], sent)) base[field] = sent;
	}
	return base;
}

/**
 * The PUT of a decision; then the resource as the server now holds it: the answer when it fits the
 * schema, else a fresh read of self, else undefined (the PUT still counts). PUT errors are thrown.
 */
async function put(
	ctx: Context,
	{ entry, send, etag }: Sending
): Promise<{ status: number; fresh: Theirs | undefined }> {
	const opts = { signal: ctx.signal, ifMatch: etag };
	let status: number;
	let fresh: Theirs | undefined;
	if (entry.kind === 'dogRun') {
		const answer = await ctx.client.put(entry.href, send, DogRunSchema, opts);
		status = answer.status;
		if (answer.body) fresh = { kind: 'dogRun', resource: answer.body };
	} else {
		const answer = await ctx.client.put(entry.href, send, CompetitionRunSchema, opts);
		status = answer.status;
		if (answer.body) fresh = { kind: 'run', resource: answer.body };
	}
	if (!fresh) {
		try {
			fresh = await readSelf(ctx, entry);
		} catch {
			// The sent values are laid over the snapshot instead.
		}
	}
	// A 2xx whose resource does not hold what was sent (a proxy or cache answering for the service)
	// is not taken as delivered: the entry stays, and the next replay's check decides again.
	if (fresh && !holds(fresh, send)) {
		throw new ApiError('invalid-shape', {
			url: entry.href,
			detail: 'the answer to the update does not hold the values sent'
		});
	}
	return { status, fresh };
}

function holds(fresh: Theirs, send: Record<string, unknown>): boolean {
	const resource = fresh.resource as Record<string, unknown>;
	return Object.entries(send).every(([field, value]) => sameFieldValue(resource[field], value));
}

/** After a successful PUT: snapshot, then the entry drops what was sent (or all of it). */
async function finalize(
	ctx: Context,
	sending: Sending,
	status: number,
	fresh: Theirs | undefined
): Promise<void> {
	const now = ctx.now();
	const { entry: sentEntry, send } = sending;
	const key = sentEntry.key;
	await db.transaction('rw', [db.outbox, db.syncLog, db.dogRuns, db.runs], async () => {
		if (fresh) await storeSnapshot(fresh, now);
		else await patchSnapshot(sentEntry.kind, sentEntry.resourceId, send, now);
		const log = { at: now, key, kind: sentEntry.kind, resourceId: sentEntry.resourceId };
		await appendSyncLog({ ...log, action: 'sent', status, detail: null, fields: send });
		ctx.summary.sent++;

		const entry = await getEntry(key);
		if (!entry) return;
		const rest = rebaseOnSent(entry, send);
		if (!rest) {
			await deleteEntry(key);
			return;
		}
		const previous = entry.previous && {
			changes: {},
			base: {},
			...rebaseOnSent(entry.previous, send)
		};
		const unchanged = entry.revision === sentEntry.revision;
		const conflicts = unchanged ? entry.conflicts : null;
		const remaining: OutboxEntry = {
			...entry,
			changes: rest.changes,
			base: rest.base,
			previous,
			inFlight: null,
			lastError: null,
			conflicts,
			// Edited while in flight: due again at once (the caller's requestReplay runs it).
			status: conflicts && conflicts.length > 0 ? 'conflict' : 'pending',
			nextAttemptAt: unchanged ? entry.nextAttemptAt : now
		};
		await putEntry(remaining);
		if (remaining.status === 'conflict' && conflicts) {
			await appendSyncLog({
				...log,
				action: 'conflict',
				status: null,
				detail: null,
				fields: conflictFields(conflicts)
			});
			ctx.summary.conflicts++;
		}
	});
}

/**
 * A failed read or PUT. Transient (network, timeout, 5xx, 429, a body that is not the service's):
 * back off and stay pending. Refused (4xx): park as 'failed' with the service's message, unless the
 * steward edited meanwhile (the edit may be the fix: due again). Nothing is ever dropped.
 * 'aborted' leaves the entry as it is. Anything that is not an ApiError is a bug: rethrown.
 */
async function recordError(
	ctx: Context,
	key: string,
	revision: number,
	e: unknown,
	putAttempted: boolean
): Promise<void> {
	if (!(e instanceof ApiError)) throw e;
	if (e.code === 'aborted') {
		ctx.summary.aborted = true;
		return;
	}
	const now = ctx.now();
	await db.transaction('rw', db.outbox, db.syncLog, async () => {
		const entry = await getEntry(key);
		if (!entry) return;
		const edited = entry.revision !== revision;
		// A PUT attempt was counted when it was marked 'sending'.
		const attempts = putAttempted && !edited ? entry.attempts : entry.attempts + 1;
		// An HTTP answer to our PUT means it was not applied; after a network error nobody knows.
		const inFlight = putAttempted && e.code === 'http' ? null : (entry.inFlight ?? null);
		const log = {
			at: now,
			key,
			kind: entry.kind,
			resourceId: entry.resourceId,
			status: e.status ?? null,
			fields: putAttempted ? (entry.inFlight?.changes ?? null) : null
		};
		if (isRetryable(e) || isPreconditionFailed(e)) {
			const delay = nextDelayMs(attempts, { retryAfterMs: e.retryAfterMs, random: ctx.random });
			await putEntry({
				...entry,
				status: 'pending',
				attempts,
				nextAttemptAt: now + delay,
				lastError: e.toRecord(),
				inFlight
			});
			await appendSyncLog({ ...log, action: 'retry', detail: e.code });
			ctx.summary.retried++;
			return;
		}
		await putEntry({
			...entry,
			status: edited ? 'pending' : 'failed',
			attempts,
			nextAttemptAt: edited ? now : entry.nextAttemptAt,
			lastError: e.toRecord(),
			inFlight
		});
		await appendSyncLog({ ...log, action: 'failed', detail: e.serverMessage ?? e.code });
		ctx.summary.failed++;
	});
}

function isPreconditionFailed(e: unknown): boolean {
	return e instanceof ApiError && e.code === 'http' && e.status === 412;
}

async function storeSnapshot(theirs: Theirs, now: number): Promise<void> {
	if (theirs.kind === 'dogRun') await putDogRunSnapshot(theirs.resource, now);
	else await putRunSnapshot(theirs.resource, now);
}

function conflictFields(conflicts: OutboxEntry['conflicts']): Record<string, unknown> {
	const fields: Record<string, unknown> = {};
	for (const c of conflicts ?? [])
		fields[c.field] = { base: c.base, mine: c.mine, theirs: c.theirs };
	return fields;
}
