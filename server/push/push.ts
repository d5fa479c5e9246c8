// The push channel, an extension of the interface (which shows no events): each competition links
// `changes`, a Server-Sent Events stream of the accepted PUTs of that competition, each event
// carrying the changed resource as its GET answers it. See docs/service.md, "Push channel".
import { ChangeFeed, type Change } from './change-feed.ts';
import type { Audience } from '../auth/auth.ts';
import { API_BASE, apiBase, renderBase } from '../http/hal.ts';
import { publicDogRunTemplate } from '../http/public-view.ts';
import { OPEN_PUBLICATION, type Publication } from '../../src/lib/contract/publication.ts';
import {
	EVENT_STREAM_HEADERS,
	formatEvent,
	MAX_PENDING_BYTES,
	StreamRegistry
} from '../middleware/event-stream.ts';
import { HttpError } from '../http/errors.ts';
import { resetConnection, type Exchange } from '../middleware/exchange.ts';
import type { StoredChange, StoreFeed } from '../store/store.ts';

export interface PushOptions {
	/** Interval of the comment heartbeat, in ms (default 15000). */
	heartbeatMs?: number;
	/** The `retry:` hint sent at the start of each stream, in ms (default 2000). */
	retryMs?: number;
	/** Most streams open at once; more are answered 503 (default 1000). */
	maxStreams?: number;
	/** Changes kept for Last-Event-ID resume, over all competitions (default 5000). */
	bufferSize?: number;
}

/** How long a stream waits for this instance's feed to reach its Last-Event-ID (see caughtUp). */
export const CATCH_UP_MS = 1000;

export const PUSH_DEFAULTS: Required<PushOptions> = {
	heartbeatMs: 15_000,
	retryMs: 2_000,
	maxStreams: 1_000,
	bufferSize: 5_000
};

/** Throws on push options that cannot work. */
export function checkPushOptions(p: PushOptions): Required<PushOptions> {
	const o = { ...PUSH_DEFAULTS, ...p };
	const positive = (name: string, v: number, min: number): void => {
		if (!Number.isInteger(v) || v < min) {
			throw new Error(`push.${name} must be an integer >= ${min}, got ${String(v)}`);
		}
	};
	positive('heartbeatMs', o.heartbeatMs, 1);
	positive('retryMs', o.retryMs, 0);
	positive('maxStreams', o.maxStreams, 1);
	positive('bufferSize', o.bufferSize, 1);
	return o;
}

/**
 * Where the push channel's feed starts: the store's feed (its epoch, the same on every instance
 * of a shared database) and its latest changes kept, so that a stream of another instance, or of
 * this one before a restart, resumes here with its Last-Event-ID.
 */
export interface FeedStart {
	feed: Pick<StoreFeed, 'epoch' | 'deliveredSeq' | 'committedSeq'>;
	recent: StoredChange[];
}

export interface Push {
	/**
	 * Sends a committed change to the streams of its competition (and keeps it for resume), as
	 * the store delivers it: once, in seq order.
	 */
	deliver(change: StoredChange): void;
	/**
	 * Answers a GET or HEAD of the changes of a competition (that exists); throws 503 when too
	 * many streams are open or about to open. A stream whose Last-Event-ID names a change this
	 * instance has not received yet (another instance of a shared database sent it to the client)
	 * first waits for it, at most CATCH_UP_MS; it holds no database connection meanwhile, and
	 * counts as a stream. An id beyond the store's latest change is answered at once (reset
	 * `unknown`).
	 */
	open(ex: Exchange, competitionId: number, audience: Audience): Promise<void>;
	/**
	 * What public views show of each competition that has settings, read once the push channel
	 * hears the store's feed: the public's streams are sent every dog run as those show it. A
	 * competition whose `publication` change was delivered meanwhile keeps that newer one.
	 */
	loadPublications(stored: ReadonlyMap<number, Publication>): void;
	/** Ends every stream cleanly (service shutdown). */
	close(): void;
	/** Drops every stream's connection (fault injection: the service became unreachable). */
	drop(): void;
}

interface Subscriber {
	/** The API base of the stream's request, which its events' links are rendered on. */
	api: string;
	/** Whom the stream is for: the public is sent dog runs as public views show them. */
	audience: Audience;
	write(text: string): void;
}

/** The settings a `publication` change carries (its representation's fields). */
function publicationIn(template: string): Publication {
	const text = renderBase(template, API_BASE);
	const { handlerNames, results, releasedRuns } = JSON.parse(text) as Publication;
	return { handlerNames, results, releasedRuns };
}

/**
 * The push channel of the local service. `latencyMs` (the service's `latency` option) delays
 * each event as it delays every answer, so a benchmark sees push cross the same slow link.
 */
export function createPush(options: PushOptions, from: FeedStart, latencyMs = 0): Push {
	const o = checkPushOptions(options);
	const first = from.recent[0];
	const feed = new ChangeFeed(
		o.bufferSize,
		from.feed.epoch,
		first ? first.seq - 1 : from.feed.deliveredSeq()
	);
	for (const c of from.recent) feed.append(c.competitionId, c.event, c.template, c.seq);
	const publications = new Map<number, Publication>();
	/** Competitions whose settings a delivered change set (newer than any read at the start). */
	const heard = new Set<number>();
	const streams = new StreamRegistry(o.maxStreams);
	const byCompetition = new Map<number, Set<Subscriber>>();
	/** Streams waiting for the feed to reach a seq (shared feeds). */
	const waiting = new Set<{ seq: number; done: () => void }>();
	const wake = (seq: number): void => {
		for (const w of [...waiting]) if (w.seq <= seq) w.done();
	};
	let closed = false;

	/** The change's data as `audience` is sent it: a dog run under its competition's settings now. */
	const templateFor = (c: Change, audience: Audience): string =>
		audience === 'public' && c.event === 'dogRun'
			? publicDogRunTemplate(c.template, publications.get(c.competitionId) ?? OPEN_PUBLICATION)
			: c.template;
	const eventText = (
		c: Change,
		s: Pick<Subscriber, 'api' | 'audience'>,
		rendered?: Map<string, string>
	): string => {
		const key = `${s.audience} ${s.api}`;
		let text = rendered?.get(key);
		if (text === undefined) {
			const data = renderBase(templateFor(c, s.audience), s.api);
			text = formatEvent({ id: c.id, event: c.event, data });
			rendered?.set(key, text);
		}
		return text;
	};

	function deliver({ competitionId, event, template, seq }: StoredChange): void {
		const change = feed.append(competitionId, event, template, seq);
		if (!change) return;
		if (event === 'publication') {
			publications.set(competitionId, publicationIn(template));
			heard.add(competitionId);
		}
		if (waiting.size > 0) wake(change.seq);
		const subscribers = byCompetition.get(competitionId);
		if (!subscribers) return;
		// Streams mostly share one or two addresses: each text is rendered once per publish.
		const rendered = new Map<string, string>();
		for (const s of subscribers) {
			const text = eventText(change, s, rendered);
			if (latencyMs > 0) setTimeout(() => s.write(text), latencyMs);
			else s.write(text);
		}
	}

	/**
	 * Resolves once this instance's feed holds the change `lastEventId` names, or after at most
	 * CATCH_UP_MS; at once when there is nothing to wait for (another epoch, a change this feed
	 * has, or an id no change of the store has yet: always so on one process).
	 */
	async function caughtUp(lastEventId: string | undefined): Promise<void> {
		const m = /^([a-z0-9]+)-(\d{1,15})$/.exec(lastEventId?.trim() ?? '');
		const seq = Number(m?.[2]);
		if (!m || m[1] !== feed.epoch || seq <= feed.lastSeq) return;
		if (seq > (await from.feed.committedSeq()) || seq <= feed.lastSeq || closed) return;
		await new Promise<void>((resolve) => {
			const w = {
				seq,
				done: () => {
					clearTimeout(timer);
					waiting.delete(w);
					resolve();
				}
			};
			const timer = setTimeout(w.done, CATCH_UP_MS);
			waiting.add(w);
		});
	}

	async function open(ex: Exchange, competitionId: number, audience: Audience): Promise<void> {
		const release = streams.reserve();
		try {
			const last = ex.req.headers['last-event-id'];
			await caughtUp(typeof last === 'string' ? last : undefined);
			if (closed) {
				throw new HttpError(503, 'The service is shutting down; open the stream again', {
					'Retry-After': '2'
				});
			}
			start(ex, competitionId, audience);
		} finally {
			release();
		}
	}

	function start(ex: Exchange, competitionId: number, audience: Audience): void {
		// A client that went away while its stream waited: nothing to open.
		if (ex.req.socket.destroyed) return;
		if (ex.dropAnswer) {
			// Fault 'reset-after': the stream was "answered", and the answer is lost.
			ex.dropAnswer(200);
			return;
		}
		const { req, res } = ex;
		ex.status = 200;
		ex.summary = `changes of competition ${competitionId}`;
		res.writeHead(200, EVENT_STREAM_HEADERS);
		if (req.method === 'HEAD') {
			res.end();
			return;
		}
		const api = apiBase(req);
		const write = (text: string): void => {
			if (res.destroyed || res.writableEnded) return;
			res.write(text);
			// A client that does not read is dropped; it resumes from its Last-Event-ID.
			if (res.writableLength > MAX_PENDING_BYTES) res.destroy();
		};
		const lastEventId = req.headers['last-event-id'];
		const resume = feed.resume(
			typeof lastEventId === 'string' ? lastEventId : undefined,
			competitionId
		);
		let first = `retry: ${o.retryMs}\n`;
		if (resume.kind === 'reset') {
			const data = JSON.stringify({ reason: resume.reason });
			write(first + formatEvent({ id: feed.lastId, event: 'reset', data }));
		} else {
			for (const c of resume.changes) {
				write(first + eventText(c, { api, audience }));
				first = '';
			}
			write(first + formatEvent({ id: feed.lastId, event: 'ready', data: '{}' }));
		}

		const subscriber: Subscriber = { api, audience, write };
		let subscribers = byCompetition.get(competitionId);
		if (!subscribers) byCompetition.set(competitionId, (subscribers = new Set()));
		subscribers.add(subscriber);
		const heartbeat = setInterval(() => write(': heartbeat\n\n'), o.heartbeatMs);
		const remove = streams.add({ end: () => res.end(), drop: () => resetConnection(req) });
		res.once('close', () => {
			clearInterval(heartbeat);
			remove();
			subscribers.delete(subscriber);
			if (subscribers.size === 0) byCompetition.delete(competitionId);
		});
	}

	return {
		deliver,
		open,
		loadPublications(stored) {
			for (const [cid, p] of stored) if (!heard.has(cid)) publications.set(cid, p);
		},
		close() {
			closed = true;
			for (const w of [...waiting]) w.done();
			streams.endAll();
		},
		drop: () => streams.dropAll()
	};
}
