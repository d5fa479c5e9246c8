// Publishing one outbox entry to the upstream, as the app's replay does it for a phone (the same
// transitions of src/lib/domain/outbox-entry.ts): read the resource as the upstream holds it now,
// decide field by field (what it holds already leaves the entry, what someone else changed there
// parks it for the secretary, the rest is sent), PUT with If-Match when the upstream offered an
// ETag, then drop what was sent. A failure is classified by the app's own rule
// (src/lib/sync/failure.ts): no answer, 5xx, 429 and 412 wait and try again (never expire); any
// other 4xx parks the entry with the upstream's message. Each step is one transaction of the
// laptop's database.
import { ApiError } from '../../src/lib/api/errors.ts';
import type { HalClient } from '../../src/lib/api/hal-client.ts';
import { CompetitionRunSchema, DogRunSchema } from '../../src/lib/api/schemas.ts';
import { putBodyOf } from '../../src/lib/contract/put-bodies.ts';
import type { Fields } from '../../src/lib/domain/merge.ts';
import { decided, failed, sent, type Failure } from '../../src/lib/domain/outbox-entry.ts';
import { nextDelayMs } from '../../src/lib/sync/backoff.ts';
import { delayAfter, failureOf as classify } from '../../src/lib/sync/failure.ts';
import type { Store } from '../store/store.ts';
import {
	lockEntry,
	readEntry,
	setKnown,
	writeEntry,
	type MirrorEntry,
	type MirrorError
} from './outbox.ts';
import { dogRunFieldsOf, runFieldsOf } from './upstream-fields.ts';

export interface PublishContext {
	store: Store;
	client: HalClient;
	now: () => number;
	random: () => number;
}

/** How an attempt ended, for the mirror's status and log. */
export type Outcome = 'sent' | 'already-applied' | 'conflict' | 'retry' | 'refused' | 'gone';

/** The upstream's fields of `entry`'s resource, and its ETag, read now. */
async function readUpstream(
	client: HalClient,
	entry: MirrorEntry
): Promise<{ fields: Fields; etag: string | undefined }> {
	if (entry.kind === 'dogRun') {
		const got = await client.get(entry.href, DogRunSchema);
		return { fields: dogRunFieldsOf(got.body), etag: got.etag };
	}
	const got = await client.get(entry.href, CompetitionRunSchema);
	return { fields: runFieldsOf(got.body), etag: got.etag };
}

/**
 * A failed read or PUT as the entry keeps it: the phone's classification (src/lib/sync/failure.ts),
 * the error kept as the secretary's screen shows it. Null: the mirror cancelled the request
 * (closing), which says nothing of the entry. Anything that is not an ApiError is a fault of the
 * laptop's own: it waits its backoff like a transient failure, with its message for the log.
 */
export function failureOf(e: unknown): Failure<MirrorError> | null {
	if (!(e instanceof ApiError)) {
		const message = e instanceof Error ? e.message : String(e);
		const record = { code: 'internal', status: null, message };
		return { transient: true, answered: false, status: null, detail: 'internal', record };
	}
	const failure = classify(e);
	if (failure === null) return null;
	const message = e.serverMessage ?? e.detail ?? e.message;
	return { ...failure, record: { code: e.code, status: e.status ?? null, message } };
}

/** The delay before the next try after `attempts` failed ones. */
function delayOf(e: unknown, random: () => number): (attempts: number) => number {
	return e instanceof ApiError ? delayAfter(e, random) : (n) => nextDelayMs(n, { random });
}

/** Records a failed attempt at `revision` on the stored entry. */
async function recordFailure(
	ctx: PublishContext,
	{ key, kind, resourceId }: Pick<MirrorEntry, 'key' | 'kind' | 'resourceId'>,
	revision: number,
	e: unknown,
	putAttempted: boolean
): Promise<Outcome> {
	const failure = failureOf(e);
	if (failure === null) return 'retry';
	return ctx.store.write(async (sql) => {
		await lockEntry(ctx.store, sql, kind, resourceId);
		const entry = await readEntry(sql, key);
		if (!entry) return 'gone';
		const step = failed(entry, revision, failure, putAttempted, delayOf(e, ctx.random), ctx.now());
		await writeEntry(sql, key, step.entry, true);
		return failure.transient ? 'retry' : 'refused';
	});
}

/** One attempt at publishing the entry `key` (as read in `seen`). */
export async function publishEntry(ctx: PublishContext, seen: MirrorEntry): Promise<Outcome> {
	const { store, client } = ctx;
	const { key, kind, resourceId, href } = seen;
	const readAt = Date.now();
	let upstream: { fields: Fields; etag: string | undefined };
	try {
		upstream = await readUpstream(client, seen);
	} catch (e) {
		return recordFailure(ctx, seen, seen.revision, e, false);
	}
	const decision = await store.write(async (sql) => {
		await lockEntry(store, sql, kind, resourceId);
		await setKnown(sql, kind, resourceId, upstream.fields, readAt);
		const entry = await readEntry(sql, key);
		if (!entry) return null;
		const d = decided(entry, upstream.fields, ctx.now());
		if (!d) return null;
		await writeEntry(sql, key, d.entry, true);
		return { d, revision: entry.revision };
	});
	if (!decision) return 'gone';
	const { d, revision } = decision;
	if (!d.send) return d.outcome === 'conflict' ? 'conflict' : 'already-applied';
	const send = d.send;
	let status: number;
	let answered: Fields;
	const ifMatch = upstream.etag ? { ifMatch: upstream.etag } : {};
	try {
		// The interface is unsure what a dog run's PUT answers: what was sent, over what was read,
		// when the answer is not the resource.
		if (kind === 'dogRun') {
			const res = await client.put(href, putBodyOf('dogRun', send), DogRunSchema, ifMatch);
			status = res.status;
			answered = res.body ? dogRunFieldsOf(res.body) : { ...upstream.fields, ...send };
		} else {
			const res = await client.put(href, putBodyOf('run', send), CompetitionRunSchema, ifMatch);
			status = res.status;
			answered = res.body ? runFieldsOf(res.body) : { ...upstream.fields, ...send };
		}
	} catch (e) {
		return recordFailure(ctx, seen, revision, e, true);
	}
	await recordSent(ctx, { key, kind, resourceId, revision }, send, status, answered, Date.now());
	return 'sent';
}

/**
 * A PUT of `send`, decided at `revision`, was answered `status` at `answeredAt`, the upstream
 * then holding `answered`: what was sent leaves the entry, and the answer is known.
 */
export async function recordSent(
	ctx: Pick<PublishContext, 'store' | 'now'>,
	sentEntry: Pick<MirrorEntry, 'key' | 'kind' | 'resourceId' | 'revision'>,
	send: Fields,
	status: number,
	answered: Fields,
	answeredAt: number
): Promise<void> {
	const { key, kind, resourceId } = sentEntry;
	await ctx.store.write(async (sql) => {
		await lockEntry(ctx.store, sql, kind, resourceId);
		const entry = await readEntry(sql, key);
		const step = sent(entry, sentEntry, send, status, ctx.now());
		await writeEntry(sql, key, step.entry, entry !== undefined);
		await setKnown(sql, kind, resourceId, answered, answeredAt);
	});
}
