// The secretary's decisions on what the upstream did not take: Keep ours / Keep theirs on a
// conflict, Send again on a refusal. Each is one transaction on the entry (taken after every
// other write of it, lockEntry), and "Keep theirs" then applies the upstream's value here too.
import { resolved, retried } from '../../src/lib/domain/outbox-entry.ts';
import type { Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';
import type { Choice } from './mirror-types.ts';
import { lockEntry, readEntry, readResource, writeEntry, type MirrorEntry } from './outbox.ts';
import { applyUpstream } from './pull.ts';

/** The entry `key` (`dogRun:12`), read once no other write of it is open (lockEntry). */
export async function lockedEntry(
	store: Pick<Store, 'lock'>,
	sql: Sql,
	key: string
): Promise<MirrorEntry | undefined> {
	const [kind, id] = key.split(':');
	if ((kind !== 'dogRun' && kind !== 'run') || !/^\d+$/.test(id ?? '')) return undefined;
	await lockEntry(store, sql, kind, Number(id));
	return readEntry(sql, key);
}

/** The secretary's choice on the entry's conflicts; false when it has none (any more). */
export async function resolveEntry(
	store: Store,
	key: string,
	choice: Choice | Record<string, Choice>,
	now: number
): Promise<boolean> {
	const mine = (c: Choice): 'mine' | 'theirs' => (c === 'ours' ? 'mine' : 'theirs');
	const picked =
		typeof choice === 'string'
			? mine(choice)
			: Object.fromEntries(Object.entries(choice).map(([f, c]) => [f, mine(c)]));
	const done = await store.write(async (sql) => {
		const entry = await lockedEntry(store, sql, key);
		if (!entry) return null;
		const r = resolved(entry, picked, now);
		if ('refused' in r) return null;
		await writeEntry(sql, key, r.entry, true);
		const resource = await readResource(sql, entry.kind, entry.resourceId);
		return { entry, snapshot: r.snapshot, resource };
	});
	if (!done) return false;
	// "Keep theirs": the upstream's value replaces ours here too (the phones hear of it): the
	// newest known (the conflict's read, or a later list read), as of when it was read. The
	// conflict's value taken as news of now would set back a newer one that a list read brought
	// down since this decision committed (and that page is not read again).
	const theirs = Object.keys(done.snapshot).filter(
		(f) => (typeof picked === 'string' ? picked : picked[f]) === 'theirs'
	);
	if (theirs.length > 0) {
		const known = done.resource?.known ?? null;
		const values = { ...done.snapshot };
		for (const f of theirs) if (known && Object.hasOwn(known, f)) values[f] = known[f];
		await applyUpstream(
			store,
			done.entry.kind,
			done.entry.resourceId,
			values,
			known ? done.resource!.knownAt : now,
			theirs
		);
	}
	return true;
}

/** A refused entry due again (Send again); false when it is not refused. */
export async function retryEntry(store: Store, key: string, now: number): Promise<boolean> {
	return store.write(async (sql) => {
		const entry = await lockedEntry(store, sql, key);
		const next = entry && entry.status === 'failed' ? retried(entry, now) : undefined;
		if (!next) return false;
		await writeEntry(sql, key, next, true);
		return true;
	});
}
