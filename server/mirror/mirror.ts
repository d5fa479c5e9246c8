// Mirror mode (`--mirror <upstream>`): the laptop serves the phones from its own copy of the
// competitions the secretary picked (import.ts) and publishes every change accepted here to the
// upstream service (publish.ts, from the outbox written with each change: outbox.ts), while what
// the upstream changed comes down (pull.ts). The secretary's status and decisions are here too.
//
// It runs on the phone's sync core, each rule with one owner in src/lib/sync:
// - when to publish: the phone's ReplayScheduler (a change recorded, an entry's backoff ending,
//   the upstream answering again);
// - whether the upstream can be reached: the phone's Reachability, fed by every request;
// - asking whether it is back: the phone's Prober, every 2 s here (a parameter, not a copy);
// - a request sent into a link that dropped it: HungRequests, which the prober's answer ends
//   long before the 15 s time-out (a 4G dongle reconnecting);
// - what an answer means for an entry: src/lib/sync/failure.ts; the entry's changes: the
//   transitions of src/lib/domain/outbox-entry.ts.
// Every request, the probe's included, goes through one link with the credential and the
// laptop's User-Agent (upstream-link.ts).
import { ReplayScheduler, type Clock } from '../../src/lib/sync/scheduler.ts';
import { localToday } from '../seed/dates.ts';
import { metaValue } from '../store/meta-table.ts';
import { mirrorResourceCount } from '../store/mirror-resource-table.ts';
import type { Store } from '../store/store.ts';
import { importFromUpstream, MIRROR_UPSTREAM, type MirrorPick } from './import.ts';
import type { Mirror, MirrorOptions } from './mirror-types.ts';
import {
	dueEntries,
	lockEntry,
	outboxCounts,
	outboxState,
	recordChange,
	retryWaitingForUpstream,
	shownEntries,
	type MirrorEntry
} from './outbox.ts';
import { publishEntry, type Outcome } from './publish.ts';
import { pullOnce } from './pull.ts';
import { openUpstreamLink, PROBE_MS } from './upstream-link.ts';
import { resolveEntry, retryEntry } from './decisions.ts';

export type { Choice, Mirror, MirrorOptions, MirrorStatus } from './mirror-types.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The entries that wait the status lists (the counts tell how many there are). */
const SHOWN_WAITING = 50;

/** How long a run where something changed stays among the lists read every time (ms). */
const HOT_MS = 15 * 60_000;

/** Every how many pulls every list is read (the others: today's dog runs and the changed runs'). */
const FULL_EVERY = 12;

export function createMirror(
	store: Store,
	options: MirrorOptions,
	logError: (line: string) => void
): Mirror {
	const now = options.now ?? Date.now;
	const random = options.random ?? Math.random;
	const pullIntervalMs = options.pullIntervalMs ?? 5_000;
	const parallel = options.parallel ?? 8;
	const today = options.today ?? (() => localToday());
	const clock: Clock = {
		now,
		setTimeout: (fn, ms) => setTimeout(fn, ms),
		clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>)
	};
	let lostSince: number | null = null;
	let lastPublishedAt: number | null = null;
	let lastPulledAt: number | null = null;
	let running = false;
	const counts: Record<Outcome, number> = {
		sent: 0,
		'already-applied': 0,
		conflict: 0,
		retry: 0,
		refused: 0,
		gone: 0
	};
	const pages = new Map();
	const sleeping = new Set<() => void>();
	/** Run id → when a change of it was last accepted here. */
	const hotRuns = new Map<number, number>();
	// Every request to the upstream ends when the mirror closes.
	const closing = new AbortController();
	const loops: Promise<void>[] = [];

	const { reachability, hung, prober, client } = openUpstreamLink(options, {
		clock,
		random,
		closing: closing.signal
	});
	const ctx = { store, client, now, random };

	/** The outbox as it stands, told to the scheduler (it sets its timer, or publishes now). */
	const report = async (): Promise<void> => {
		if (!running) return;
		try {
			scheduler.outboxChanged(await outboxState(store.sql));
		} catch (e) {
			if (running) logError(JSON.stringify({ msg: 'mirror outbox', error: String(e) }));
		}
	};

	/** One report for a burst of changes (a phone's queue arriving at once). */
	let reportQueued = false;
	const requestReport = (): void => {
		if (reportQueued || !running) return;
		reportQueued = true;
		setTimeout(() => {
			reportQueued = false;
			void report();
		}, 0);
	};

	let publishing: Promise<void> | null = null;
	let again = false;
	/** Publishes what is due, until nothing is; one pass at a time (a call meanwhile adds one). */
	const publishDue = (): Promise<void> => {
		if (publishing) {
			again = true;
			return publishing;
		}
		publishing = (async () => {
			try {
				do {
					again = false;
					const abortedBefore = hung.aborted;
					const due = await dueEntries(store.sql, now(), parallel * 4);
					const attempted = await publishAll(due);
					// More may be due (the list was cut, a change came meanwhile) when one went.
					if (attempted > 0) again = true;
					// Requests this pass sent into a dead link were ended when the upstream answered
					// others: what they carried waited only for it, and goes now.
					if (hung.aborted > abortedBefore) {
						await store.write((sql) => retryWaitingForUpstream(store, sql, now()));
						again = true;
					}
				} while (again && running);
			} finally {
				publishing = null;
			}
			await report();
		})();
		return publishing;
	};

	/** One attempt at each entry of `due`, `parallel` at once; answers how many got an outcome. */
	async function publishAll(due: MirrorEntry[]): Promise<number> {
		let next = 0;
		let attempted = 0;
		const worker = async (): Promise<void> => {
			while (running && next < due.length) {
				const entry = due[next++]!;
				try {
					const outcome = await publishEntry(ctx, entry);
					counts[outcome]++;
					attempted++;
					if (outcome === 'sent') lastPublishedAt = now();
				} catch (e) {
					if (running)
						logError(JSON.stringify({ msg: 'mirror publish', key: entry.key, error: String(e) }));
				}
			}
		};
		await Promise.all(Array.from({ length: Math.min(parallel, due.length) }, worker));
		return attempted;
	}

	const scheduler = new ReplayScheduler({
		replay: publishDue,
		makeDue: async (which) => {
			await store.write((sql) => retryWaitingForUpstream(store, sql, now(), which));
		},
		registerBackgroundSync: async () => {},
		// The laptop's "no network": the upstream known not to answer. Nothing is tried meanwhile
		// (thousands of entries would each fail and be written again, every backoff); the prober's
		// first answer is the 'reachable' trigger that sends what waited for it.
		online: () => reachability.view.state !== 'unreachable',
		onError: (e) => {
			if (running) logError(JSON.stringify({ msg: 'mirror publish', error: String(e) }));
		},
		clock
	});
	reachability.subscribe((view, previous) => {
		if (view.state === 'unreachable') lostSince ??= now();
		else if (view.state === 'reachable') {
			lostSince = null;
			// Back: what waited only for the upstream goes now.
			if (previous.state === 'unreachable') void scheduler.trigger('reachable');
		}
	});

	/** Waits `ms`, or less when the mirror closes. */
	const sleep = (ms: number): Promise<void> =>
		new Promise((resolve) => {
			// Closed: no timer is left behind, nor waited for.
			if (!running) {
				resolve();
				return;
			}
			const done = (): void => {
				clearTimeout(t);
				sleeping.delete(done);
				resolve();
			};
			const t = setTimeout(done, ms);
			sleeping.add(done);
		});

	/**
	 * Every interval the dog runs of today's runs and of the runs changed here lately are read
	 * again (where results are recorded and corrected); every FULL_EVERY-th time every list (other
	 * days, the courses). A venue's 4G and the federation's service carry it: a realistic event's
	 * lists are about 200 pages, 4.5 MB without ETags. Not while the upstream cannot be reached:
	 * the prober says when it is back.
	 */
	async function pullLoop(): Promise<void> {
		for (let cycle = 1; running; cycle++) {
			await sleep(pullIntervalMs);
			while (running && reachability.view.state === 'unreachable') await sleep(PROBE_MS / 4);
			if (!running) return;
			try {
				const all = cycle % FULL_EVERY === 0;
				const since = now() - HOT_MS;
				for (const [run, at] of hotRuns) if (at < since) hotRuns.delete(run);
				const scope = all ? { all: true as const } : { day: today(), runs: [...hotRuns.keys()] };
				await pullOnce({ store, client, pages, logError }, scope);
				lastPulledAt = now();
			} catch {
				// No contact, or the upstream answered with trouble: the status tells; try again.
			}
		}
	}

	return {
		async recordChange(sql, change) {
			await lockEntry(store, sql, change.kind, change.id);
			await recordChange(sql, change, now());
			// The office corrects what the ring just recorded: its list is read every time a while.
			hotRuns.set(change.runId, now());
			// The scheduler hears of it once the write has committed (the store's feed, in start()).
		},

		async prepare(today, progress) {
			if ((await mirrorResourceCount(store.sql)) > 0) {
				const was = await metaValue(store.sql, MIRROR_UPSTREAM);
				if (was !== undefined && was !== client.entryPoint) {
					throw new Error(
						`the database ${store.where} mirrors ${was}, not ${client.entryPoint}: its changes belong there; name a new file with --db for another service`
					);
				}
				return null;
			}
			const pick: MirrorPick = { competitionIds: options.competitionIds, today };
			return importFromUpstream(store, client, pick, progress);
		},

		start() {
			if (running) return;
			running = true;
			// The mirror always needs the upstream: the prober looks whenever it does not answer.
			prober.setWanted(true);
			// A change accepted here is told to the scheduler once its write has committed (the
			// entry is written in the same transaction), never before: on PostgreSQL a commit may
			// come well after the change was recorded, and an outbox read before it finds nothing.
			store.feed.onChange(requestReport);
			loops.push(pullLoop());
			void report();
		},

		async status() {
			const c = await outboxCounts(store.sql);
			const entries = await shownEntries(store.sql, SHOWN_WAITING);
			const waiting = c.waiting + c.refused + c.conflicts;
			const { state, lastContactAt } = reachability.view;
			return {
				upstream: new URL(client.entryPoint).origin,
				connected: state === 'reachable',
				lastContactAt: iso(lastContactAt),
				lostSince: iso(lostSince),
				publishedUpTo: waiting === 0 ? null : iso(c.oldestAt),
				lastPublishedAt: iso(lastPublishedAt),
				waiting: c.waiting,
				refused: c.refused,
				conflicts: c.conflicts,
				lastPulledAt: iso(lastPulledAt),
				entries
			};
		},

		async resolve(key, choice) {
			const ok = await resolveEntry(store, key, choice, now());
			if (ok) await report();
			return ok;
		},

		async retry(key) {
			const ok = await retryEntry(store, key, now());
			if (ok) await report();
			return ok;
		},

		outcomes: () => ({ ...counts }),

		async close() {
			running = false;
			scheduler.stop();
			prober.stop();
			closing.abort();
			for (const done of [...sleeping]) done();
			await Promise.allSettled([...loops, publishing ?? Promise.resolve()]);
		}
	};
}
