// The one way a PUT changes a versioned resource (a dog run's result, a run's course), the same
// on one process and on several instances of one database: read it, check If-Match and the
// request against it, update it on the condition that its version is still the one read, and in
// the same transaction claim the change's place in the order of changes, read again what the
// answer shows, write the PUT log row and record the change (the store delivers it to the push
// channel once committed); then answer it with its ETag.
import { stringifyHal } from '../hal.ts';
import { HttpError } from '../errors.ts';
import type { ChangeEvent } from '../change-feed.ts';
import type { Versioned } from '../middleware/etag.ts';
import type { Exchange } from '../middleware/exchange.ts';
import { Repository } from '../resources.ts';
import type { PutCall } from './route.ts';

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
}

/** How often a PUT without If-Match reads again when another writer came first. */
export const WRITE_ATTEMPTS = 20;

/**
 * Applies the PUT `ex` with `c` and answers it. The new values are computed from the version
 * read, and the UPDATE is conditional on that version (`… WHERE id = @id AND version =
 * @version`). When another writer committed in between, nothing changed: with If-Match the next
 * check answers 412 (the tag names an older version); without, the PUT is applied to what is
 * there now, as it would have been in order. No update is lost, whichever instance each writer
 * reached.
 */
export async function commitChange<Row>(
	ex: Exchange,
	call: PutCall,
	c: Change<Row>
): Promise<void> {
	const { store, write, etags, logApplied } = call;
	for (let attempt = 1; ; attempt++) {
		const current = await c.read(new Repository(store.sql));
		etags.checkIfMatch(ex.req, c.versionOf(current));
		c.check(current);
		const done = await write(async (sql) => {
			const repo = new Repository(sql);
			if (!(await c.update(repo, current))) return null;
			// First: what is read next (the run's progress) includes every change committed before.
			const seq = await store.feed.claim(sql);
			const row = await c.read(repo);
			const versioned = c.versionOf(row);
			const summary = `updated ${versioned.kind} ${versioned.id} to version ${versioned.version}`;
			await logApplied(sql, summary);
			const { value, competitionId } = await c.shown(repo, row);
			const template = stringifyHal(value);
			await store.feed.record(sql, seq, { competitionId, event: c.event, template });
			return { value, template, versioned, summary };
		});
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
		// Writers that keep colliding on one row (several instances) take turns at random, or they
		// could keep beating each other until the attempts run out.
		await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
	}
}
