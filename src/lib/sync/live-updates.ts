/**
 * Keeps the stored copy of what the open screens show current while the page is online and
 * visible, so that what one device records appears on the others without a reload. Screens say
 * what they show (`watch`: a competition and some of its runs); what arrives is written to the
 * stored snapshots, which every screen reads through live queries. Unsent edits live in the outbox
 * and stay laid over the snapshots: an update never hides or overwrites one.
 *
 * Two ways, chosen per competition by what the service offers, never assumed:
 * - push: the competition's `changes` link (an extension of the interface that the embedded
 *   service offers; docs/service.md), Server-Sent Events each carrying a changed dog run or run as
 *   a GET of it would return it. The browser resumes a dropped stream itself (Last-Event-ID); when
 *   the stream opens, after a `reset`, and while it is down, the watched runs are read once more;
 * - polling: each watched run's dog-run list, read conditionally (If-None-Match → 304 where the
 *   service gives ETags), every `pollMs`.
 * Hidden or offline: nothing at all.
 *
 * Pure apart from its dependencies, which the page provides ($lib/ui/state/live-updates) and tests fake.
 *
 * Long because it is one state machine over one timer: the stream, its fallback to polling and
 * back, the idle close and the reads each of them triggers (the lists and the competition's
 * settings of public views) decide together what is read when.
 */
import * as v from 'valibot';
import type { HalClient } from '$lib/api/hal-client';
import { expandLink, findLink } from '$lib/api/links';
import {
	CheckInSchema,
	CheckInsSchema,
	CompetitionRunSchema,
	DogRunSchema,
	PublicationSchema,
	type CheckInJson,
	type Competition,
	type PublicationJson
} from '$lib/api/schemas';
import type { Clock } from './scheduler';

/** Page size asked for when a dog-run list link is a template offering `size`: one request. */
export const POLL_PAGE_SIZE = 2000;
/** A refused push link is tried again after this long (polling meanwhile). */
export const REFUSED_RETRY_MS = 120_000;
/** Polling period while no push link serves: a ring board is at most this late. */
export const POLL_MS = 3_000;
/** How long a push stream stays open after the last screen stopped watching. */
export const IDLE_MS = 2_000;

export interface Watched {
	competition: Competition;
	/** Ids of runs whose dog runs are on screen (their `dogRuns` links are read). */
	runs: { id: number; dogRunsHref: string | undefined }[];
}

/** The part of EventSource the module uses. */
export interface EventStream {
	readonly readyState: number;
	onopen: ((event: Event) => void) | null;
	onerror: ((event: Event) => void) | null;
	addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
	close(): void;
}

export interface LiveDeps {
	client(): Promise<HalClient>;
	/** Opens a Server-Sent Events stream; undefined where the platform has none. */
	openStream?: (url: string) => EventStream;
	/** Stores dog runs and runs the service sent (only those downloaded; snapshots only). */
	storeDogRuns(items: readonly unknown[]): Promise<void>;
	storeRun(run: unknown): Promise<void>;
	/** Stores what public views show of a competition (its `publication`, where it has one). */
	storePublication(publication: PublicationJson): Promise<void>;
	/** Stores the gate's marks of a competition (its `checkIns`, or one pushed). */
	/** False: some marks were not taken (the device holds its own over them). */
	storeCheckIns(competitionId: number, marks: readonly CheckInJson[]): Promise<boolean | void>;
	onError(error: unknown): void;
	clock: Clock;
	pollMs?: number;
}

export type LiveMode = 'off' | 'push' | 'polling';

const CLOSED = 2;

export class LiveUpdates {
	readonly #deps: LiveDeps;
	readonly #watchers = new Set<Watched>();
	/** Each list page read: its ETag (the next read is conditional) and its `next` page. */
	readonly #pages = new Map<string, { etag: string | undefined; next: string | undefined }>();
	/** The ETag of each event-state resource as last stored: its next read is conditional. */
	readonly #tags = new Map<string, string>();
	#active = false;
	#stream: { href: string; source: EventStream; open: boolean } | null = null;
	/**
	 * Push links the service refused, with when: polled instead for a while, then tried again (the
	 * device may have joined or signed in meanwhile, or a busy service recovered).
	 */
	readonly #refused = new Map<string, number>();
	#timer: unknown = undefined;
	/** Stops everything a moment after the last screen stopped watching. */
	#idle: unknown = undefined;
	/** When each watched list was last read. */
	readonly #readAt = new Map<string, number>();
	#polling = false;
	/** A poll asked for while one ran, which must read after it. */
	#again = false;
	mode: LiveMode = 'off';
	/** When the stored copy was last found current or updated. */
	lastUpdateAt: number | null = null;

	constructor(deps: LiveDeps) {
		this.#deps = deps;
	}

	/**
	 * A screen shows these; returns the function that stops watching them. The steward moves from
	 * screen to screen of one run (Save & next rebuilds the capture screen): a list read within the
	 * last poll period is not read again, and the push stream stays open for a moment after the last
	 * screen stops watching, for the next one.
	 */
	watch(watched: Watched): () => void {
		this.#cancelIdle();
		this.#watchers.add(watched);
		this.#reconcile('stale');
		return () => {
			this.#watchers.delete(watched);
			if (this.#watchers.size > 0) {
				this.#reconcile('none');
				return;
			}
			this.#cancelIdle();
			this.#idle = this.#deps.clock.setTimeout(() => {
				this.#idle = undefined;
				this.#reconcile('none');
			}, IDLE_MS);
		};
	}

	/** Whether any screen watches something. */
	get watching(): boolean {
		return this.#watchers.size > 0;
	}

	/**
	 * Active (true: the device online, the page visible, the service not known to be unreachable or
	 * busy) or not: nothing is read while not; what the service asks for while it cannot answer is
	 * the probe's business ($lib/sync/prober), and everything watched is read again once active.
	 */
	setActive(active: boolean): void {
		if (active === this.#active) return;
		this.#active = active;
		this.#reconcile('all');
	}

	/** Reads every watched run now (e.g. after this device's replay delivered). */
	refresh(): Promise<void> {
		return this.#poll();
	}

	stop(): void {
		this.#cancelIdle();
		this.#watchers.clear();
		this.#reconcile('none');
	}

	#cancelIdle(): void {
		if (this.#idle === undefined) return;
		this.#deps.clock.clearTimeout(this.#idle);
		this.#idle = undefined;
	}

	/** `read`: every watched list now, only those not read within the poll period, or none. */
	#reconcile(read: 'all' | 'stale' | 'none'): void {
		const competition = this.#competition();
		if (!this.#active || !competition) {
			this.#closeStream();
			this.#disarm();
			this.mode = 'off';
			return;
		}
		const push = findLink(competition._links, 'changes');
		const href = push && !push.templated ? push.href : undefined;
		const refusedAt = href ? this.#refused.get(href) : undefined;
		if (href && refusedAt !== undefined && this.#deps.clock.now() - refusedAt >= REFUSED_RETRY_MS) {
			this.#refused.delete(href);
		}
		if (href && this.#deps.openStream && !this.#refused.has(href)) {
			this.mode = 'push';
			if (this.#stream?.href !== href) this.#openStream(href);
			else if (read !== 'none') void this.#poll(read === 'stale');
		} else {
			this.#closeStream();
			this.mode = 'polling';
			if (read !== 'none') void this.#poll(read === 'stale');
		}
		this.#arm();
	}

	/** The competition watched (screens of one competition at a time). */
	#competition(): Competition | undefined {
		let last: Competition | undefined;
		for (const w of this.#watchers) last = w.competition;
		return last;
	}

	#openStream(href: string): void {
		this.#closeStream();
		const open = this.#deps.openStream;
		if (!open) return;
		const source = open(href);
		const stream = { href, source, open: false };
		this.#stream = stream;
		source.onopen = () => {
			stream.open = true;
			// What changed before the stream opened (or while it was down) is read once.
			void this.#poll();
		};
		source.onerror = () => {
			stream.open = false;
			// CLOSED: the browser gave up (not a stream, 404, refused): poll instead. Otherwise it
			// reconnects by itself with Last-Event-ID; the timer polls meanwhile.
			if (source.readyState === CLOSED && this.#stream === stream) {
				this.#refused.set(href, this.#deps.clock.now());
				this.#stream = null;
				this.#reconcile('all');
			}
		};
		source.addEventListener('dogRun', (event) => void this.#received('dogRun', event.data));
		source.addEventListener('run', (event) => void this.#received('run', event.data));
		source.addEventListener('reset', () => void this.#poll(false, true));
		source.addEventListener('publication', (event) => void this.#receivedPublication(event.data));
		source.addEventListener('checkIn', (event) => void this.#receivedCheckIn(event.data));
	}

	/** A gate phone's mark, as the service keeps it. */
	async #receivedCheckIn(data: string): Promise<void> {
		try {
			const parsed = v.safeParse(CheckInSchema, JSON.parse(data));
			if (!parsed.success) return;
			await this.#deps.storeCheckIns(parsed.output.competitionId, [parsed.output]);
			this.lastUpdateAt = this.#deps.clock.now();
		} catch (error) {
			if (!(error instanceof SyntaxError)) this.#deps.onError(error);
		}
	}

	/**
	 * The secretary changed what public views show: stored, and what is on screen read again (a
	 * name or a result the copy was not sent may show now; the copy is then the public's as it is).
	 */
	async #receivedPublication(data: string): Promise<void> {
		try {
			const parsed = v.safeParse(PublicationSchema, JSON.parse(data));
			if (!parsed.success) return;
			await this.#deps.storePublication(parsed.output);
			this.lastUpdateAt = this.#deps.clock.now();
			await this.#poll(false, true);
		} catch (error) {
			if (!(error instanceof SyntaxError)) this.#deps.onError(error);
		}
	}

	/**
	 * Reads the watched competition's event state, where the service has it: the settings of
	 * public views and the gate's marks.
	 */
	async #readEventState(client: HalClient): Promise<void> {
		const links = this.#competition()?._links ?? {};
		// Each on its own: a failure is reported and the lists are read all the same.
		const publication = findLink(links, 'publication');
		if (publication && !publication.templated) {
			await this.#readIfChanged(client, publication.href, PublicationSchema, (body) =>
				this.#deps.storePublication(body)
			);
		}
		const checkIns = findLink(links, 'checkIns');
		if (checkIns && !checkIns.templated) {
			await this.#readIfChanged(client, checkIns.href, CheckInsSchema, (body) =>
				this.#deps.storeCheckIns(body.competitionId, body.checkIns)
			);
		}
	}

	/**
	 * Reads `href` unless it is unchanged since its last read here (If-None-Match: a poller asks
	 * every few seconds, and a 304 costs the service no database read), and stores it. The tag is
	 * kept only once the copy stored is the answer (`store` did not say false): a copy that failed
	 * to store, or that kept some of the device's own marks over the answer's (a mark the service
	 * then refuses gives way to the service's again), is read whole again. A failure is reported.
	 */
	async #readIfChanged<T>(
		client: HalClient,
		href: string,
		schema: v.GenericSchema<unknown, T>,
		store: (body: T) => Promise<boolean | void>
	): Promise<void> {
		try {
			const answer = await client.getIfChanged(href, schema, this.#tags.get(href));
			if (!answer) return;
			this.#tags.delete(href);
			const taken = await store(answer.body);
			if (answer.etag && taken !== false) this.#tags.set(href, answer.etag);
		} catch (error) {
			this.#deps.onError(error);
		}
	}

	async #received(kind: 'dogRun' | 'run', data: string): Promise<void> {
		try {
			const parsed: unknown = JSON.parse(data);
			if (kind === 'dogRun') {
				const dogRun = v.safeParse(DogRunSchema, parsed);
				// Not the service's shape: ignored; the next read brings the truth.
				if (dogRun.success) await this.#deps.storeDogRuns([dogRun.output]);
			} else {
				const run = v.safeParse(CompetitionRunSchema, parsed);
				if (run.success) await this.#deps.storeRun(run.output);
			}
			this.lastUpdateAt = this.#deps.clock.now();
		} catch (error) {
			if (!(error instanceof SyntaxError)) this.#deps.onError(error);
		}
	}

	#closeStream(): void {
		this.#stream?.source.close();
		this.#stream = null;
	}

	/** Polls every pollMs, unless an open push stream serves. */
	#arm(): void {
		this.#disarm();
		if (!this.#active || this.#watchers.size === 0) return;
		const { clock } = this.#deps;
		this.#timer = clock.setTimeout(() => {
			this.#timer = undefined;
			const served = this.mode === 'push' && this.#stream?.open === true;
			// Polling because push was refused a while ago: try push again (it reads what it needs).
			if (this.mode === 'polling' && this.#refusedExpired()) {
				this.#reconcile('stale');
				return;
			}
			void (served ? Promise.resolve() : this.#poll()).finally(() => this.#arm());
		}, this.#deps.pollMs ?? POLL_MS);
	}

	#refusedExpired(): boolean {
		const now = this.#deps.clock.now();
		for (const at of this.#refused.values()) if (now - at >= REFUSED_RETRY_MS) return true;
		return false;
	}

	#disarm(): void {
		if (this.#timer === undefined) return;
		this.#deps.clock.clearTimeout(this.#timer);
		this.#timer = undefined;
	}

	/**
	 * Every page of a list, each read conditionally: a page unchanged since the last read (304) is
	 * skipped, and its `next` as then known is followed; a changed page is stored.
	 */
	async #readList(client: HalClient, first: string): Promise<void> {
		this.#readAt.set(first, this.#deps.clock.now());
		const seen = new Set<string>();
		for (let href: string | undefined = first; href !== undefined && !seen.has(href);) {
			seen.add(href);
			const known = this.#pages.get(href);
			const page = await client.getPageIfChanged(href, 'dogRuns', DogRunSchema, known?.etag);
			if (!page) {
				href = known?.next;
				continue;
			}
			const nextLink = findLink(page.links, 'next');
			const next = nextLink ? expandLink(nextLink) : undefined;
			this.#pages.set(href, { etag: page.etag, next });
			await this.#deps.storeDogRuns(page.items);
			href = next;
		}
	}

	/**
	 * One conditional read of each watched run's dog-run list (one at a time, never two polls);
	 * `staleOnly`: not those read within the poll period.
	 */
	async #poll(staleOnly = false, surely = false): Promise<void> {
		if (this.#polling && surely) this.#again = true;
		if (this.#polling || !this.#active) return;
		this.#polling = true;
		try {
			const { clock, pollMs = POLL_MS } = this.#deps;
			const hrefs = new Set<string>();
			for (const w of this.#watchers) {
				for (const run of w.runs) {
					const href = run.dogRunsHref;
					const readAt = href === undefined ? undefined : this.#readAt.get(href);
					if (!href || (staleOnly && readAt !== undefined && clock.now() - readAt < pollMs)) {
						continue;
					}
					hrefs.add(href);
				}
			}
			if (hrefs.size === 0) return;
			const client = await this.#deps.client();
			await this.#readEventState(client);
			for (const href of hrefs) await this.#readList(client, href);
			this.lastUpdateAt = this.#deps.clock.now();
		} catch (error) {
			this.#deps.onError(error);
		} finally {
			this.#polling = false;
			// A read that must see what changed since this one began (its answers may be older).
			if (this.#again) {
				this.#again = false;
				void this.#poll();
			}
		}
	}
}

/** The href of a run's dog-run list for polling: one large page where the link offers `size`. */
export function dogRunsHref(run: { _links: Parameters<typeof findLink>[0] }): string | undefined {
	const link = findLink(run._links, 'dogRuns');
	return link ? expandLink(link, { size: POLL_PAGE_SIZE }) : undefined;
}
