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
 * IndexedDB work is batched, since each read-write transaction costs milliseconds and they queue
 * behind each other: the entries of a run checked against its list are decided together, one
 * transaction per page of the list (their PUTs start while the next page comes), single decisions
 * made at the same time share one, and the bookkeeping of successful PUTs is written in groups (a
 * crash before it is harmless: the entry still holds the PUT as in flight, and the next replay
 * finds the server holding its values). A stored dog run that already holds what the check read
 * is not rewritten before its PUT, whose answer is stored anyway.
 *
 * Runs in the page and in the service worker; callers hold the replay lock (./replay-lock).
 *
 * Long because one replay's steps (lanes, the batched list reads ahead, the grouped writes of
 * decisions and outcomes) share its context and its order of IndexedDB transactions; split into
 * files they would pass that context everywhere and hide the order that makes it fast and safe.
 */
import { putBodyOf } from '$lib/contract/put-bodies';
import { patchSnapshot } from '$lib/db/snapshot-store';
import { ApiError, isRetryable } from '$lib/api/errors';
import type { HalClient, PageResult } from '$lib/api/hal-client';
import { expandLink, findLink } from '$lib/api/links';
import {
	CompetitionRunSchema,
	DogRunSchema,
	type CompetitionRun,
	type DogRun
} from '$lib/api/schemas';
import { db, type OutboxEntry } from '$lib/db/db';
import {
	countByStatus,
	getEntries,
	getEntry,
	listDueEntries,
	putEntries,
	StepWriter
} from '$lib/db/outbox-store';
import { getSetting, setSetting, SETTING_SERVICE_ETAGS } from '$lib/db/settings-store';
import {
	putDogRunSnapshots,
	putRunSnapshot,
	touchDogRunSnapshots,
	type DogRunSnapshotOptions
} from '$lib/db/snapshot-store';
import { sameFieldValue, type FieldsEdit } from '$lib/domain/merge';
import { decided, failed, released, sent } from '$lib/domain/outbox-entry';
import { delayAfter, failureOf, isPreconditionFailed } from './failure';
import { GroupWriter, Slots } from './pool';

export const DEFAULT_CONCURRENCY = 6;
/** From this many due dog-run entries of one run on, their check reads the run's list once. */
export const BATCH_THRESHOLD = 3;
/** Page size asked for when the dog-run list link is a template offering `size`. */
export const BATCH_PAGE_SIZE = 2000;
/** The bookkeeping of successful PUTs is written this many at a time, or after this wait. */
const OUTCOME_BATCH = 24;
const OUTCOME_WAIT_MS = 50;

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
	/** Every request of the replay, the lanes' and the list reads ahead: `concurrency` at once. */
	slots: Slots;
	/** Runs whose dog-run entries are checked against one read of the run's list. */
	batchedRuns: Set<number>;
	/** The due entries of each batched run, oldest first; the runs in the order they come up. */
	dueByRun: Map<number, OutboxEntry[]>;
	/** Per batched run: its list read page by page, deciding its entries found on each page. */
	prepared: Map<number, RunCheck>;
	/** Decisions made ahead for entries of batched runs, until their lane takes them. */
	ahead: Map<string, Decided>;
	/** Entries decided on their own (after their own read): never decided ahead as well. */
	single: Set<string>;
	decisions: GroupWriter<Check, Decided>;
	outcomes: GroupWriter<Outcome, void>;
	/**
	 * Dog runs whose stored row already held what a decision read, left unrewritten since their PUT
	 * follows (its answer is stored): dog-run id → the decision's time, written as their `fetchedAt`
	 * at the end unless the PUT's bookkeeping rewrote the row first.
	 */
	touches: Map<number, number>;
	/** A failed write of outcomes: the lanes stop and the replay throws it. */
	failure: { error: unknown } | null;
	summary: ReplaySummary;
}

/** The check of a batched run's due entries against its list. */
interface RunCheck {
	/** Settles once the list read ended (never rejects). */
	read: Promise<void>;
	/**
	 * Per due entry: resolves once it was decided ahead (its page came in) or the list ended without
	 * it (it reads its own link); rejects with the list's transient error, so each entry backs off.
	 */
	entries: Map<string, Promise<void>>;
}

/** The PUT a decision leads to. */
interface Sending {
	entry: OutboxEntry;
	send: Record<string, unknown>;
	/** From the read the decision was made on: sent as If-Match (list reads carry none). */
	etag?: string;
}

/** An entry to decide against the server's resource. */
interface Check {
	key: string;
	theirs: Theirs;
}

interface Decided {
	/** The PUT to make, or null (nothing to send, parked, or not due any more). */
	sending: Sending | null;
	/** The entry's PUT of unknown outcome before this decision: restored if the PUT is not made. */
	inFlightBefore: FieldsEdit | null;
}

/** A successful PUT, waiting for its bookkeeping. */
interface Outcome {
	sending: Sending;
	status: number;
	fresh: Theirs | undefined;
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

	const dueDogRuns = new Map<number, OutboxEntry[]>();
	for (const entry of due) {
		if (entry.kind === 'dogRun') {
			const ofRun = dueDogRuns.get(entry.runId);
			if (ofRun) ofRun.push(entry);
			else dueDogRuns.set(entry.runId, [entry]);
		}
	}
	// A service that offers ETags gets every update conditional (If-Match): each entry then reads its
	// own resource, since list reads carry no ETag. Without ETags, one list read serves many entries.
	// Not known yet: the first entry reads its own resource (a probe) before any batching.
	const known = await getSetting<boolean>(SETTING_SERVICE_ETAGS);
	const etags = known === true;
	const width = Math.max(
		1,
		Math.min(Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY), due.length)
	);
	const ctx: Context = {
		client: opts.client,
		now,
		random: opts.random ?? Math.random,
		signal: opts.signal,
		slots: new Slots(width),
		etags,
		batchedRuns: new Set(
			etags
				? []
				: [...dueDogRuns].filter(([, e]) => e.length >= BATCH_THRESHOLD).map(([runId]) => runId)
		),
		dueByRun: dueDogRuns,
		prepared: new Map(),
		ahead: new Map(),
		single: new Set(),
		decisions: new GroupWriter((checks) => decideAll(ctx, checks)),
		outcomes: new GroupWriter((outcomes) => finalizeAll(ctx, outcomes), {
			gather: OUTCOME_BATCH,
			waitMs: OUTCOME_WAIT_MS
		}),
		touches: new Map(),
		failure: null,
		summary
	};

	try {
		let next = 0;
		if (known === undefined && ctx.batchedRuns.size > 0 && due.length > 0) {
			const batched = ctx.batchedRuns;
			ctx.batchedRuns = new Set();
			await replayEntry(ctx, due[next++] as OutboxEntry);
			ctx.batchedRuns = ctx.etags ? new Set() : batched;
			if (!ctx.etags) await setSetting(SETTING_SERVICE_ETAGS, false);
		}

		// A pool of lanes over the due entries; one entry per resource, so each resource's edits stay
		// in order while different resources go out in parallel.
		const lane = async (): Promise<void> => {
			for (;;) {
				if (stopped(ctx) || ctx.failure) return;
				const entry = due[next++];
				if (!entry) return;
				await replayEntry(ctx, entry);
			}
		};
		const results = await Promise.allSettled(Array.from({ length: width }, lane));
		const failure = results.find((r) => r.status === 'rejected');
		if (failure) throw failure.reason;
	} finally {
		// The bookkeeping of every PUT made, even when stopped; decisions ahead not acted on go back.
		await ctx.outcomes.idle();
		await ctx.decisions.idle();
		await Promise.all([...ctx.prepared.values()].map((check) => check.read));
		await releaseAhead(ctx);
		await touchDogRunSnapshots(ctx.touches);
	}
	if (ctx.failure) throw ctx.failure.error;

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
	let theirs: Theirs | undefined;
	try {
		if (listed.kind === 'dogRun' && ctx.batchedRuns.has(listed.runId)) {
			const check = prepareRun(ctx, listed.runId);
			prepareNextRun(ctx, listed.runId);
			await check.entries.get(key);
			if (stopped(ctx)) return;
		}
		// A dog run missing from its run's list (moved, or the list failed for good): its own link.
		if (!ctx.ahead.has(key)) theirs = await readSelf(ctx, listed);
	} catch (e) {
		await recordError(ctx, key, listed.revision, e, false);
		return;
	}
	let reread = false;
	for (;;) {
		if (stopped(ctx)) return;
		const sending = theirs ? await decide(ctx, key, theirs) : takeAhead(ctx, key);
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
		// Not waited for: the lane goes on to its next entry while the outcome is written.
		ctx.outcomes.submit({ sending, ...answer }).catch((error: unknown) => {
			ctx.failure ??= { error };
		});
		return;
	}
}

async function decide(ctx: Context, key: string, theirs: Theirs): Promise<Sending | null> {
	ctx.single.add(key);
	return (await ctx.decisions.submit({ key, theirs })).sending;
}

function takeAhead(ctx: Context, key: string): Sending | null {
	const decided = ctx.ahead.get(key);
	ctx.ahead.delete(key);
	return decided?.sending ?? null;
}

/**
 * A batched run's list, read once, page by page: the due entries found on a page are decided in
 * one transaction as soon as it is in, so their lanes start sending while the next pages come. A
 * transient error of the list is thrown to every entry of the run not decided yet, so each backs
 * off.
 */
function prepareRun(ctx: Context, runId: number): RunCheck {
	const known = ctx.prepared.get(runId);
	if (known) return known;
	const due = ctx.dueByRun.get(runId) ?? [];
	const byResource = new Map(due.map((entry) => [entry.resourceId, entry]));
	const waiting = new Map<string, { resolve: () => void; reject: (error: unknown) => void }>();
	const entries = new Map<string, Promise<void>>();
	for (const { key } of due) {
		const settled = new Promise<void>((resolve, reject) => waiting.set(key, { resolve, reject }));
		// Awaited by the entry's lane, which a stop may keep from coming: never unhandled.
		settled.catch(() => undefined);
		entries.set(key, settled);
	}
	const onPage = async (items: readonly DogRun[]): Promise<void> => {
		if (stopped(ctx)) return;
		const checks: Check[] = [];
		for (const resource of items) {
			const entry = byResource.get(resource.id);
			if (entry && waiting.has(entry.key) && !ctx.single.has(entry.key)) {
				checks.push({ key: entry.key, theirs: { kind: 'dogRun', resource } });
			}
		}
		const decided = await decideAll(ctx, checks);
		checks.forEach((check, i) => {
			ctx.ahead.set(check.key, decided[i] as Decided);
			waiting.get(check.key)?.resolve();
			waiting.delete(check.key);
		});
	};
	const read = (async () => {
		try {
			await readRunList(ctx, runId, new Set(byResource.keys()), onPage);
		} catch (error) {
			for (const { reject } of waiting.values()) reject(error);
			return;
		}
		// Not on the list (moved), or the list is refused for good: each reads its own link.
		for (const { resolve } of waiting.values()) resolve();
	})();
	const check: RunCheck = { read, entries };
	ctx.prepared.set(runId, check);
	return check;
}

/**
 * Starts on the next batched run's list while this run's entries go out, so its lanes find their
 * decisions ready instead of waiting for the list's pages.
 */
function prepareNextRun(ctx: Context, runId: number): void {
	let found = false;
	for (const next of ctx.dueByRun.keys()) {
		if (found && ctx.batchedRuns.has(next)) {
			if (!ctx.prepared.has(next)) void prepareRun(ctx, next);
			return;
		}
		if (next === runId) found = true;
	}
}

async function readSelf(ctx: Context, entry: OutboxEntry): Promise<Theirs> {
	const opts = { signal: ctx.signal };
	const theirs: Theirs = await ctx.slots.take(() =>
		entry.kind === 'dogRun'
			? ctx.client.get(entry.href, DogRunSchema, opts).then(({ body, etag }) => ({
					kind: 'dogRun' as const,
					resource: body,
					etag
				}))
			: ctx.client.get(entry.href, CompetitionRunSchema, opts).then(({ body, etag }) => ({
					kind: 'run' as const,
					resource: body,
					etag
				}))
	);
	if (theirs.etag !== undefined && !ctx.etags) {
		ctx.etags = true;
		await setSetting(SETTING_SERVICE_ETAGS, true);
	}
	return theirs;
}

/**
 * Reads a stored run's list of dog runs, following its `dogRuns` link as given and walking `next`,
 * handing each page to `onPage`, until every dog run in `wanted` was seen (the rest of the list is
 * not needed), the list ends, or the replay stops. Without a usable link, or when the list is
 * refused for good, it ends quietly (the entries not seen read their own links); a transient error
 * is thrown, so each entry backs off.
 */
async function readRunList(
	ctx: Context,
	runId: number,
	wanted: ReadonlySet<number>,
	onPage: (items: readonly DogRun[]) => Promise<void>
): Promise<void> {
	const run = await db.runs.get(runId);
	const link = findLink(run?.data._links, 'dogRuns');
	if (!link) return;
	const seen = new Set<number>();
	const href = expandLink(link, { size: BATCH_PAGE_SIZE });
	const pages = ctx.client.pages(href, 'dogRuns', DogRunSchema, { signal: ctx.signal });
	// One slot per page: the pages come one after another anyway.
	const nextPage = () => {
		const next = ctx.slots.take(() => pages.next());
		next.catch(() => undefined); // awaited below, unless `onPage` failed meanwhile
		return next;
	};
	try {
		if (wanted.size === 0 || stopped(ctx)) return;
		let next = nextPage();
		for (;;) {
			let page: IteratorResult<PageResult<DogRun>, void>;
			try {
				page = await next;
			} catch (e) {
				if (isRetryable(e) || (e instanceof ApiError && e.code === 'aborted')) throw e;
				return;
			}
			if (page.done) return;
			for (const dogRun of page.value.items) if (wanted.has(dogRun.id)) seen.add(dogRun.id);
			// The next page is asked for before this one's entries are decided.
			const more = seen.size < wanted.size && !stopped(ctx);
			if (more) next = nextPage();
			await onPage(page.value.items);
			if (!more) return;
		}
	} finally {
		await pages.return();
	}
}

/**
 * Merges each entry (read afresh, so a save made meanwhile counts) with the server's resource, and
 * records the decisions in one transaction: the snapshots become the server's; fields the server
 * already holds leave the entry; conflicts park it; otherwise it is marked 'sending'. Answers, per
 * check, the PUT to make or null.
 *
 * A dog run about to be sent whose stored row already holds what was read is not rewritten: its
 * PUT's answer is stored moments later anyway, and rewriting the row first would change only its
 * `fetchedAt` (owed in `ctx.touches` instead, in case that answer never comes).
 */
async function decideAll(ctx: Context, checks: readonly Check[]): Promise<Decided[]> {
	if (checks.length === 0) return [];
	const now = ctx.now();
	return db.transaction('rw', [db.outbox, db.syncLog, db.dogRuns, db.runs], async () => {
		const entries = await getEntries(checks.map((c) => c.key));
		const snapshots: Theirs[] = [];
		const keepIfSame = new Set<number>();
		const step = new StepWriter();
		const out = checks.map(({ key, theirs }, i): Decided => {
			const entry = entries[i];
			const decision = entry && decided(entry, theirs.resource, now);
			if (!decision) return { sending: null, inFlightBefore: null };
			snapshots.push(theirs);
			if (decision.outcome === 'send' && theirs.kind === 'dogRun') {
				keepIfSame.add(theirs.resource.id);
			}
			step.add(key, decision);
			if (decision.outcome === 'already-applied') ctx.summary.alreadyApplied++;
			if (decision.outcome === 'conflict') ctx.summary.conflicts++;
			const { entry: marked, send, inFlightBefore } = decision;
			return {
				sending: marked && send ? { entry: marked, send, etag: theirs.etag } : null,
				inFlightBefore
			};
		});
		await storeSnapshots(snapshots, now, {
			keepIfSame,
			unchanged: (id) => ctx.touches.set(id, now)
		});
		await step.write();
		return out;
	});
}

/**
 * Decisions made ahead whose PUT was never made (the replay stopped first): the entries go back to
 * 'pending' with the attempt uncounted, so nothing shows as being sent that is not. The rest of
 * each decision (server snapshot, bases, fields found applied) stays: it is true either way.
 */
async function releaseAhead(ctx: Context): Promise<void> {
	const unsent = [...ctx.ahead.values()].flatMap((d) => (d.sending ? [d] : []));
	ctx.ahead.clear();
	if (unsent.length === 0) return;
	await db.transaction('rw', db.outbox, async () => {
		const entries = await getEntries(unsent.map((d) => d.sending?.entry.key ?? ''));
		const puts: OutboxEntry[] = [];
		unsent.forEach(({ sending, inFlightBefore }, i) => {
			const entry = entries[i];
			const next = entry && sending && released(entry, sending.entry.revision, inFlightBefore);
			if (next) puts.push(next);
		});
		await putEntries(puts);
	});
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
		const body = putBodyOf('dogRun', send);
		const answer = await ctx.slots.take(() => ctx.client.put(entry.href, body, DogRunSchema, opts));
		status = answer.status;
		if (answer.body) fresh = { kind: 'dogRun', resource: answer.body };
	} else {
		const answer = await ctx.slots.take(() =>
			ctx.client.put(entry.href, putBodyOf('run', send), CompetitionRunSchema, opts)
		);
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

/**
 * After successful PUTs, in one transaction: snapshots, then each entry drops what was sent (or all
 * of it). Each entry is read here, so a save made while its PUT was out is kept.
 */
async function finalizeAll(ctx: Context, outcomes: readonly Outcome[]): Promise<void[]> {
	const now = ctx.now();
	let conflicts = 0;
	await db.transaction('rw', [db.outbox, db.syncLog, db.dogRuns, db.runs], async () => {
		const fresh: Theirs[] = [];
		for (const outcome of outcomes) {
			if (outcome.fresh) fresh.push(outcome.fresh);
			else {
				const { entry, send } = outcome.sending;
				await storeSnapshots(fresh.splice(0), now);
				await patchSnapshot(entry.kind, entry.resourceId, send, now);
			}
		}
		await storeSnapshots(fresh, now);

		const entries = await getEntries(outcomes.map((o) => o.sending.entry.key));
		const step = new StepWriter();
		outcomes.forEach(({ sending, status }, i) => {
			const next = sent(entries[i], sending.entry, sending.send, status, now);
			if (next.entry?.status === 'conflict') conflicts++;
			step.add(sending.entry.key, next);
		});
		await step.write();
	});
	// Each row was rewritten with the answer (or the values sent): nothing owed any more.
	for (const { sending } of outcomes) {
		if (sending.entry.kind === 'dogRun') ctx.touches.delete(sending.entry.resourceId);
	}
	ctx.summary.sent += outcomes.length;
	ctx.summary.conflicts += conflicts;
	return outcomes.map(() => undefined);
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
	const failure = failureOf(e);
	if (failure === null) {
		ctx.summary.aborted = true;
		return;
	}
	const now = ctx.now();
	const delay = delayAfter(e, ctx.random);
	await db.transaction('rw', db.outbox, db.syncLog, async () => {
		const entry = await getEntry(key);
		if (!entry) return;
		const step = failed(entry, revision, failure, putAttempted, delay, now);
		if (step.entry?.status === 'failed') ctx.summary.failed++;
		else ctx.summary.retried++;
		await new StepWriter().add(key, step).write();
	});
}

/** The server's resources as snapshots, in order; a run of dog runs in one bulk write. */
async function storeSnapshots(
	items: readonly Theirs[],
	now: number,
	options?: DogRunSnapshotOptions
): Promise<void> {
	let dogRuns: DogRun[] = [];
	for (const theirs of items) {
		if (theirs.kind === 'dogRun') {
			dogRuns.push(theirs.resource);
			continue;
		}
		await putDogRunSnapshots(dogRuns, now, options);
		dogRuns = [];
		await putRunSnapshot(theirs.resource, now);
	}
	await putDogRunSnapshots(dogRuns, now, options);
}
