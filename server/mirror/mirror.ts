// Mirror mode (`--mirror <upstream>`): the laptop serves the phones from its own copy of the
// competitions the secretary picked (import.ts) and publishes every change accepted here to the
// upstream service (publish.ts, from the outbox written with each change: outbox.ts), while what
// the upstream changed comes down (pull.ts). Two loops run: the publisher takes due entries as
// soon as they are due, and the puller reads the mirrored lists every few seconds, which also
// tells whether the upstream can be reached: when it answers again after an outage, every entry
// that waits out a backoff is due at once. The secretary's status and decisions are here too.
import * as v from 'valibot';
import { HalClient, type FetchLike } from '../../src/lib/api/hal-client.ts';
import type { Contact } from '../../src/lib/api/contact.ts';
import { contactKind } from '../../src/lib/sync/reachability.ts';
import { localToday } from '../seed.ts';
import type { Store } from '../store/store.ts';
import { importFromUpstream, type MirrorPick } from './import.ts';
import { MIRROR_USER_AGENT, type Mirror, type MirrorOptions } from './mirror-types.ts';
import {
	dueEntries,
	lockEntry,
	makeDueNow,
	nextDueAt,
	outboxCounts,
	recordChange,
	shownEntries,
	type MirrorEntry
} from './outbox.ts';
import { publishEntry, type Outcome } from './publish.ts';
import { pullOnce } from './pull.ts';
import { resolveEntry, retryEntry } from './decisions.ts';

export type { Choice, Mirror, MirrorOptions, MirrorStatus } from './mirror-types.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Contact that says the upstream is not there (no answer, a portal's page, a gateway's error). */

/** The entries that wait the status lists (the counts tell how many there are). */
const SHOWN_WAITING = 50;

/** How often, and how long at most, the upstream is asked whether it is back (ms). */
const PROBE_MS = 2_000;

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
	let lastContactAt: number | null = null;
	let lostSince: number | null = null;
	let lastPublishedAt: number | null = null;
	let lastPulledAt: number | null = null;
	let running = false;
	let wake: (() => void) | null = null;
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

	const kick = (): void => {
		const w = wake;
		wake = null;
		w?.();
	};
	const observe = (c: Contact): void => {
		const kind = contactKind(c);
		// A request the mirror cancelled (closing) says nothing of the upstream.
		if (kind === null) return;
		if (kind === 'unreachable') {
			lostSince ??= c.startedAt;
			return;
		}
		lastContactAt = c.at;
		if (lostSince !== null) {
			lostSince = null;
			// Back: what waited out a backoff for want of a connection is due now.
			void store.write((sql) => makeDueNow(store, sql, now())).then(kick, () => {});
		}
	};
	const link: FetchLike = (input, init) => {
		// The federation's logs tell the laptop's requests from a browser's.
		const headers = new Headers(init.headers);
		headers.set('User-Agent', MIRROR_USER_AGENT);
		return (options.fetch ?? fetch)(input, {
			...init,
			headers,
			signal: init.signal ? AbortSignal.any([init.signal, closing.signal]) : closing.signal
		});
	};
	const auth = options.authorization ? { authorization: options.authorization } : {};
	const client = new HalClient({
		serviceUrl: options.upstream,
		timeoutMs: options.timeoutMs ?? 15_000,
		observe,
		fetch: link,
		...auth
	});
	// While the upstream does not answer, this asks for its entry point every PROBE_MS, with a
	// short time-out: a 4G link that comes back after dropping packets is noticed in seconds,
	// not after a request lost in the outage times out.
	const prober = new HalClient({
		serviceUrl: options.upstream,
		timeoutMs: PROBE_MS,
		observe,
		fetch: link
	});
	const ctx = { store, client, now, random };

	/** Waits `ms`, or less when woken (`kick`, `close`); `wakes` says whether a kick ends it. */
	const sleep = (ms: number, wakes: boolean): Promise<void> =>
		new Promise((resolve) => {
			// Closed: no timer is left behind, nor waited for.
			if (!running) {
				resolve();
				return;
			}
			const done = (): void => {
				clearTimeout(t);
				sleeping.delete(done);
				if (wake === done) wake = null;
				resolve();
			};
			const t = setTimeout(done, ms);
			sleeping.add(done);
			if (wakes) wake = done;
		});

	async function publishLoop(): Promise<void> {
		while (running) {
			// No contact: the prober says when it is back (every entry is then due, and this woken).
			if (lostSince !== null) {
				await sleep(1_000, true);
				continue;
			}
			let due: MirrorEntry[] = [];
			try {
				due = await dueEntries(store.sql, now(), parallel * 4);
			} catch (e) {
				if (!running) return;
				logError(JSON.stringify({ msg: 'mirror outbox', error: String(e) }));
			}
			if (due.length === 0) {
				const at = running ? await nextDueAt(store.sql).catch(() => null) : null;
				await sleep(at === null ? 1_000 : Math.min(1_000, Math.max(10, at - now())), true);
				continue;
			}
			let next = 0;
			const worker = async (): Promise<void> => {
				while (running && next < due.length) {
					const entry = due[next++]!;
					try {
						const outcome = await publishEntry(ctx, entry);
						counts[outcome]++;
						if (outcome === 'sent') lastPublishedAt = now();
					} catch (e) {
						if (running)
							logError(JSON.stringify({ msg: 'mirror publish', key: entry.key, error: String(e) }));
					}
				}
			};
			await Promise.all(Array.from({ length: Math.min(parallel, due.length) }, worker));
		}
	}

	/**
	 * Every interval the dog runs of today's runs and of the runs changed here lately are read
	 * again (where results are recorded and corrected); every FULL_EVERY-th time every list (other
	 * days, the courses). A venue's 4G and
	 * the federation's service carry it: a realistic event's lists are about 200 pages, 4.5 MB
	 * without ETags.
	 */
	async function pullLoop(): Promise<void> {
		for (let cycle = 1; running; cycle++) {
			await sleep(pullIntervalMs, false);
			if (!running) return;
			while (running && lostSince !== null) {
				await prober.get(prober.entryPoint, v.unknown()).catch(() => {});
				if (lostSince !== null) await sleep(PROBE_MS, false);
			}
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
			// After the commit (a microtask later): the publisher takes it at once.
			setTimeout(kick, 0);
		},

		async prepare(today, progress) {
			const n = await store.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM mirror_resource');
			if (Number(n?.n ?? 0) > 0) {
				const was = await store.sql.get<{ value: string }>(
					"SELECT value FROM meta WHERE key = 'mirror.upstream'"
				);
				if (was && was.value !== client.entryPoint) {
					throw new Error(
						`the database ${store.where} mirrors ${was.value}, not ${client.entryPoint}: its changes belong there; name a new file with --db for another service`
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
			loops.push(publishLoop(), pullLoop());
		},

		async status() {
			const c = await outboxCounts(store.sql);
			const entries = await shownEntries(store.sql, SHOWN_WAITING);
			const waiting = c.waiting + c.refused + c.conflicts;
			return {
				upstream: new URL(client.entryPoint).origin,
				connected: lostSince === null && lastContactAt !== null,
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
			if (ok) kick();
			return ok;
		},

		async retry(key) {
			const ok = await retryEntry(store, key, now());
			if (ok) kick();
			return ok;
		},

		outcomes: () => ({ ...counts }),

		async close() {
			running = false;
			closing.abort();
			for (const done of [...sleeping]) done();
			await Promise.allSettled(loops);
		}
	};
}
