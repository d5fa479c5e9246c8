import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editOf, sameFieldValue, type Fields, type FieldsEdit } from './merge';
import {
	decided,
	discarded,
	entryProblem,
	failed,
	released,
	resolved,
	retried,
	saved,
	sent,
	type Failure,
	type OutboxEntry,
	type Step,
	type Target
} from './outbox-entry';

type Entry = OutboxEntry<{ code: string }>;

const FIELDS = ['time', 'faults', 'refusals'] as const;
const target: Target = {
	key: 'dogRun:7',
	kind: 'dogRun',
	resourceId: 7,
	runId: 3,
	competitionId: 1,
	href: 'http://service/api/v1/dog-runs/7'
};
const T0 = 1_000;

function entryOf(over: Partial<Entry>): Entry {
	return {
		...target,
		changes: { time: 38.63 },
		base: { time: null },
		status: 'pending',
		revision: 1,
		createdAt: T0,
		updatedAt: T0,
		attempts: 0,
		nextAttemptAt: T0,
		lastError: null,
		conflicts: null,
		inFlight: null,
		...over
	};
}

function save(
	existing: Entry | undefined,
	changes: Fields,
	snapshot: Fields,
	now = T0
): Step<{ code: string }> {
	return saved(existing, editOf(changes, FIELDS, snapshot), target, now);
}

const transient: Failure<{ code: string }> = {
	transient: true,
	answered: true,
	status: 503,
	detail: 'http',
	record: { code: 'http' }
};
const refused: Failure<{ code: string }> = {
	transient: false,
	answered: true,
	status: 400,
	detail: 'time must not be negative',
	record: { code: 'http' }
};
const reset: Failure<{ code: string }> = {
	transient: true,
	answered: false,
	status: null,
	detail: 'network',
	record: { code: 'network' }
};

describe('saved', () => {
	it('makes a new pending entry, due now, with the snapshot values as base', () => {
		const { entry, log } = save(undefined, { time: 38.63, faults: 5 }, { time: null, faults: 0 });
		expect(entry).toMatchObject({
			key: 'dogRun:7',
			status: 'pending',
			revision: 1,
			changes: { time: 38.63, faults: 5 },
			base: { time: null, faults: 0 },
			nextAttemptAt: T0
		});
		expect(log).toEqual([]);
	});

	it('coalesces into the entry, keeping the first base, a new revision and attempt series', () => {
		const first = entryOf({ attempts: 4, nextAttemptAt: T0 + 60_000, revision: 3 });
		const { entry } = save(first, { time: 40.1 }, { time: 38.63 }, T0 + 5);
		expect(entry).toMatchObject({
			changes: { time: 40.1 },
			base: { time: null },
			revision: 4,
			attempts: 0,
			nextAttemptAt: T0 + 5
		});
	});

	it('drops the entry when the steward types the server value back', () => {
		expect(save(entryOf({}), { time: null }, { time: null }).entry).toBeNull();
		expect(save(undefined, { faults: 0 }, { faults: 0 }).entry).toBeNull();
	});

	it('while a PUT is out: stays sending, and a field taken back is kept as "back to base"', () => {
		const sending = entryOf({
			status: 'sending',
			attempts: 1,
			inFlight: { changes: { time: 38.63 }, base: { time: null } }
		});
		const { entry } = save(sending, { time: null }, { time: null });
		expect(entry).toMatchObject({
			status: 'sending',
			changes: { time: null },
			base: { time: null },
			revision: 2
		});
	});

	it('over a conflict: pending again, the next decision judges the new value', () => {
		const conflict = entryOf({
			status: 'conflict',
			conflicts: [{ field: 'time', base: null, mine: 38.63, theirs: 39 }]
		});
		const { entry } = save(conflict, { time: 39.5 }, { time: null });
		expect(entry).toMatchObject({ status: 'pending', conflicts: null, changes: { time: 39.5 } });
	});

	it('an undo with its base given: cancels an unsent save, re-sends the old value after a sent one', () => {
		const unsent = entryOf({ changes: { faults: 5 }, base: { faults: 0 } });
		const undo = (existing: Entry | undefined): Entry | null =>
			saved(existing, editOf({ faults: 0 }, FIELDS, { faults: 5 }, { faults: 5 }), target, T0)
				.entry;
		expect(undo(unsent)).toBeNull();
		expect(undo(undefined)).toMatchObject({ changes: { faults: 0 }, base: { faults: 5 } });
	});
});

describe('discarded, retried, resolved', () => {
	it('a discard removes the entry and logs its values; refused while sending', () => {
		expect(discarded(entryOf({}), T0)).toEqual({
			entry: null,
			log: [expect.objectContaining({ action: 'discarded', fields: { time: 38.63 } })]
		});
		expect(discarded(entryOf({ status: 'sending' }), T0)).toEqual({ refused: 'busy' });
	});

	it.each<[Entry['status'], boolean]>([
		['pending', true],
		['failed', true],
		['sending', false],
		['conflict', false]
	])('retried from %s: %s', (status, due) => {
		const next = retried(entryOf({ status, nextAttemptAt: T0 + 99_000 }), T0 + 1);
		expect(next === undefined).toBe(!due);
		if (next) expect(next).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 1 });
	});

	const conflicting = entryOf({
		status: 'conflict',
		changes: { time: 38.63, faults: 5 },
		base: { time: null, faults: 0 },
		conflicts: [
			{ field: 'time', base: null, mine: 38.63, theirs: 40 },
			{ field: 'faults', base: 0, mine: 5, theirs: 10 }
		]
	});

	it("'mine' keeps my values with theirs as base; the snapshot takes theirs", () => {
		const step = resolved(conflicting, 'mine', T0);
		expect(step).toMatchObject({
			entry: {
				status: 'pending',
				conflicts: null,
				changes: { time: 38.63, faults: 5 },
				base: { time: 40, faults: 10 }
			},
			snapshot: { time: 40, faults: 10 },
			log: [{ action: 'resolved', fields: { time: 'mine', faults: 'mine' } }]
		});
	});

	it("'theirs' drops the entry; a per-field choice leaves the rest open", () => {
		expect(resolved(conflicting, 'theirs', T0)).toMatchObject({ entry: null });
		const step = resolved(conflicting, { time: 'mine' }, T0);
		expect(step).toMatchObject({
			entry: {
				status: 'conflict',
				conflicts: [{ field: 'faults' }],
				changes: { time: 38.63, faults: 5 }
			}
		});
	});

	it('is refused without an open conflict', () => {
		expect(resolved(entryOf({}), 'mine', T0)).toEqual({ refused: 'no-conflict' });
	});
});

describe('decided', () => {
	const entry = entryOf({ changes: { time: 38.63, faults: 5 }, base: { time: null, faults: 0 } });

	it.each<[string, Fields, string, Fields | null, Entry['status'] | null]>([
		[
			'server still at base: sends all',
			{ time: null, faults: 0 },
			'send',
			{ time: 38.63, faults: 5 },
			'sending'
		],
		['server holds mine: gone', { time: 38.63, faults: 5 }, 'already-applied', null, null],
		['someone changed both: conflict', { time: 40, faults: 10 }, 'conflict', null, 'conflict'],
		['one applied, one to send', { time: 38.63, faults: 0 }, 'send', { faults: 5 }, 'sending'],
		[
			'one in conflict, one to send: sending the other',
			{ time: 40, faults: 0 },
			'send',
			{ faults: 5 },
			'sending'
		]
	])('%s', (_name, server, outcome, send, status) => {
		const d = decided(entry, server, T0);
		expect(d?.outcome).toBe(outcome);
		expect(d?.send).toEqual(send);
		expect(d?.entry?.status ?? null).toBe(status);
		if (d?.entry) expect(entryProblem(d.entry)).toBeNull();
	});

	it('counts a lost answer as delivered when the server holds what that PUT carried', () => {
		const lost = entryOf({
			changes: { time: 40.1 },
			base: { time: null },
			inFlight: { changes: { time: 38.63 }, base: { time: null } }
		});
		// The steward changed 38.63 to 40.1 after the first PUT went out; the server has 38.63.
		const d = decided(lost, { time: 38.63 }, T0);
		expect(d).toMatchObject({ outcome: 'send', send: { time: 40.1 } });
		expect(d?.entry?.inFlight).toEqual({ changes: { time: 40.1 }, base: { time: 38.63 } });
	});

	it('is not made for an entry waiting for a person', () => {
		expect(
			decided(entryOf({ status: 'failed', lastError: { code: 'http' } }), {}, T0)
		).toBeUndefined();
	});
});

describe('released, sent, failed', () => {
	const sending = entryOf({
		status: 'sending',
		attempts: 3,
		revision: 2,
		inFlight: { changes: { time: 38.63 }, base: { time: null } }
	});

	it('released: pending, the attempt uncounted, the earlier unknown PUT restored', () => {
		const before: FieldsEdit = { changes: { time: 37 }, base: { time: null } };
		expect(released(sending, 2, before)).toMatchObject({
			status: 'pending',
			attempts: 2,
			inFlight: before
		});
		expect(released({ ...sending, revision: 3 }, 2, null)).toMatchObject({ attempts: 3 });
		expect(released(entryOf({}), 1, null)).toBeUndefined();
	});

	it('sent: gone when all went; a value saved meanwhile stays, based on what was sent, due now', () => {
		expect(sent(sending, sending, { time: 38.63 }, 200, T0)).toEqual({
			entry: null,
			log: [expect.objectContaining({ action: 'sent', status: 200, fields: { time: 38.63 } })]
		});
		const edited = { ...sending, revision: 3, changes: { time: 40.1 }, nextAttemptAt: T0 };
		const { entry } = sent(edited, sending, { time: 38.63 }, 200, T0 + 9);
		expect(entry).toMatchObject({
			status: 'pending',
			changes: { time: 40.1 },
			base: { time: 38.63 },
			inFlight: null,
			nextAttemptAt: T0 + 9
		});
	});

	it('sent with fields waiting in conflict: parked for a person', () => {
		const partly = {
			...sending,
			changes: { time: 38.63, faults: 5 },
			base: { time: null, faults: 0 },
			conflicts: [{ field: 'faults', base: 0, mine: 5, theirs: 10 }]
		};
		const step = sent(partly, partly, { time: 38.63 }, 200, T0);
		expect(step.entry).toMatchObject({ status: 'conflict', changes: { faults: 5 } });
		expect(step.log.map((r) => r.action)).toEqual(['sent', 'conflict']);
	});

	it.each<[string, Failure<{ code: string }>, boolean, Entry['status'], boolean]>([
		['503 on the PUT: backs off, the PUT was not applied', transient, true, 'pending', false],
		['reset on the PUT: backs off, the PUT may have arrived', reset, true, 'pending', true],
		['400 on the PUT: parked with the message', refused, true, 'failed', false],
		['503 on the read: backs off', transient, false, 'pending', true]
	])('%s', (_name, failure, putAttempted, status, keepsInFlight) => {
		const { entry, log } = failed(sending, 2, failure, putAttempted, (n) => n * 1000, T0);
		expect(entry?.status).toBe(status);
		expect(entry?.changes).toEqual(sending.changes);
		expect(entry?.inFlight ?? null).toEqual(keepsInFlight ? sending.inFlight : null);
		expect(entry?.lastError).toEqual(failure.record);
		expect(log[0]).toMatchObject({
			action: failure.transient ? 'retry' : 'failed',
			detail: failure.detail,
			error: failure.record
		});
		if (failure.transient) {
			const attempts = putAttempted ? 3 : 4;
			expect(entry).toMatchObject({ attempts, nextAttemptAt: T0 + attempts * 1000 });
		}
	});

	it('a refusal of a revision the steward has since edited: due again, the edit may be the fix', () => {
		const { entry } = failed({ ...sending, revision: 3 }, 2, refused, true, () => 0, T0 + 5);
		expect(entry).toMatchObject({ status: 'pending', nextAttemptAt: T0 + 5 });
	});
});

/**
 * A model of one dog run on the service, the phone's copy, its outbox entry, a PUT in flight, and
 * another writer. Random sequences of what happens at a ring; after every step the entry keeps the
 * rules (entryProblem) and every value the steward saved is either still in the entry or was seen
 * on the server, unless the steward gave it up (discard, "theirs"). At the end, with the network
 * good and the steward insisting, the service holds every value still wanted.
 */
describe('the state machine, property', () => {
	type Field = (typeof FIELDS)[number];
	type Op =
		| { op: 'save'; field: Field; value: number }
		| { op: 'other'; field: Field; value: number }
		| { op: 'decide' }
		| { op: 'put-ok' }
		| { op: 'put-503' }
		| { op: 'put-400' }
		| { op: 'put-reset'; arrived: boolean }
		| { op: 'release' }
		| { op: 'crash'; arrived: boolean }
		| { op: 'discard' }
		| { op: 'resolve'; choice: 'mine' | 'theirs' }
		| { op: 'retry' };

	const field = fc.constantFrom(...FIELDS);
	const value = fc.integer({ min: 0, max: 3 });
	const op: fc.Arbitrary<Op> = fc.oneof(
		{ weight: 4, arbitrary: fc.record({ op: fc.constant('save' as const), field, value }) },
		{ weight: 2, arbitrary: fc.record({ op: fc.constant('other' as const), field, value }) },
		{ weight: 3, arbitrary: fc.constant({ op: 'decide' as const }) },
		{ weight: 3, arbitrary: fc.constant({ op: 'put-ok' as const }) },
		fc.constant({ op: 'put-503' as const }),
		fc.constant({ op: 'put-400' as const }),
		fc.record({ op: fc.constant('put-reset' as const), arrived: fc.boolean() }),
		fc.constant({ op: 'release' as const }),
		fc.record({ op: fc.constant('crash' as const), arrived: fc.boolean() }),
		fc.constant({ op: 'discard' as const }),
		fc.record({
			op: fc.constant('resolve' as const),
			choice: fc.constantFrom('mine' as const, 'theirs' as const)
		}),
		fc.constant({ op: 'retry' as const })
	);

	class World {
		server: Fields = { time: 0, faults: 0, refusals: 0 };
		snapshot: Fields = { ...this.server };
		entry: Entry | undefined;
		put: { send: Fields; sentEntry: Entry; before: FieldsEdit | null } | null = null;
		/** Values the steward saved that the service has not been seen holding. */
		wanted = new Map<string, unknown>();
		now = T0;

		apply(o: Op): void {
			this.now += 1;
			switch (o.op) {
				case 'save': {
					const step = save(this.entry, { [o.field]: o.value }, this.snapshot, this.now);
					this.set(step.entry);
					if (step.entry && Object.hasOwn(step.entry.changes, o.field))
						this.wanted.set(o.field, o.value);
					// Pruned: the steward typed back the value the edit started from; nothing to send.
					else this.wanted.delete(o.field);
					break;
				}
				case 'other':
					this.server[o.field] = o.value;
					break;
				case 'decide': {
					if (!this.entry || this.put) break;
					const d = decided(this.entry, this.server, this.now);
					if (!d) break;
					this.snapshot = { ...this.server };
					this.set(d.entry);
					if (d.entry && d.send)
						this.put = { send: d.send, sentEntry: d.entry, before: d.inFlightBefore };
					break;
				}
				case 'put-ok': {
					if (!this.put) break;
					Object.assign(this.server, this.put.send);
					Object.assign(this.snapshot, this.put.send);
					this.set(sent(this.entry, this.put.sentEntry, this.put.send, 200, this.now).entry);
					this.put = null;
					break;
				}
				case 'put-503':
				case 'put-400':
				case 'put-reset': {
					if (!this.put || !this.entry) break;
					if (o.op === 'put-reset' && o.arrived) Object.assign(this.server, this.put.send);
					const failure = o.op === 'put-503' ? transient : o.op === 'put-400' ? refused : reset;
					const step = failed(
						this.entry,
						this.put.sentEntry.revision,
						failure,
						true,
						() => 10,
						this.now
					);
					this.set(step.entry);
					this.put = null;
					break;
				}
				case 'release': {
					if (!this.put || !this.entry) break;
					const next = released(this.entry, this.put.sentEntry.revision, this.put.before);
					if (next) this.set(next);
					this.put = null;
					break;
				}
				case 'crash':
					// The tab closed with a PUT out: no transition at all; the entry stays 'sending'.
					if (this.put && o.arrived) Object.assign(this.server, this.put.send);
					this.put = null;
					break;
				case 'discard': {
					if (!this.entry) break;
					const step = discarded(this.entry, this.now);
					if ('refused' in step) break;
					this.set(step.entry);
					this.wanted.clear();
					break;
				}
				case 'resolve': {
					if (!this.entry || this.put) break;
					const step = resolved(this.entry, o.choice, this.now);
					if ('refused' in step) break;
					Object.assign(this.snapshot, step.snapshot);
					if (o.choice === 'theirs')
						for (const f of Object.keys(step.snapshot)) this.wanted.delete(f);
					this.set(step.entry);
					break;
				}
				case 'retry': {
					const next = this.entry && retried(this.entry, this.now);
					if (next) this.set(next);
					break;
				}
			}
			this.seen();
		}

		set(entry: Entry | null): void {
			this.entry = entry ?? undefined;
		}

		/** A wanted value the service holds has arrived. */
		seen(): void {
			for (const [f, v] of this.wanted)
				if (sameFieldValue(this.server[f], v)) this.wanted.delete(f);
		}

		check(): void {
			if (this.entry) expect(entryProblem(this.entry), JSON.stringify(this.entry)).toBeNull();
			for (const [f, v] of this.wanted) {
				expect(this.entry?.changes[f], `wanted ${f}=${String(v)}`).toBe(v);
			}
		}

		/** Good network, no other writer, the steward insists on their values. */
		drain(): void {
			for (let i = 0; i < 20 && this.entry; i++) {
				if (this.put) this.apply({ op: 'put-ok' });
				else if (this.entry.status === 'conflict') this.apply({ op: 'resolve', choice: 'mine' });
				else if (this.entry.status === 'failed') this.apply({ op: 'retry' });
				else this.apply({ op: 'decide' });
				this.check();
			}
		}
	}

	it('keeps the rules and loses no unsent value, whatever happens', () => {
		fc.assert(
			fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
				const world = new World();
				for (const o of ops) {
					world.apply(o);
					world.check();
				}
				world.drain();
				expect(world.entry).toBeUndefined();
				expect([...world.wanted]).toEqual([]);
			}),
			{ numRuns: 2000 }
		);
	});
});
