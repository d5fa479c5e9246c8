// The timer bridge (an extension of the interface, docs/service.md "Timer bridge"): a
// chronometer cabled to the ring laptop (serial) or on the network (TCP) is read by the service,
// its lines parsed by the app's own LineParser (src/lib/contract/timing-protocol.ts, docs/timing.md), and
// each TimingEvent is relayed to the phones of that ring over Server-Sent Events, at the link
// `timer` of the ring (present only for a ring that has a timer).
//
// Long because the bridge is one lifecycle: its options, the rings resolved at start, the
// reconnecting sources, and the streams per ring that its state and drops reach.
import { LineParser } from '../../src/lib/contract/timing-protocol.ts';
import type { TimingEvent } from '../../src/lib/contract/timing-events.ts';
import { newEpoch } from '../push/change-feed.ts';
import {
	EVENT_STREAM_HEADERS,
	formatEvent,
	MAX_PENDING_BYTES,
	StreamRegistry
} from '../middleware/event-stream.ts';
import { resetConnection, type Exchange } from '../middleware/exchange.ts';
import type { Repository } from '../store/repository.ts';
import {
	describeSource,
	keepConnected,
	parseTimerSpec,
	type ReconnectOptions,
	type TimerSource,
	type TimerSpec
} from './timer-source.ts';

export { parseTimerSpec, type TimerSpec, type TimerSource };

/** A `--timer` value (see parseTimerSpec) or its parsed form. */
export type TimerSetting = string | TimerSpec;

export interface TimerOptions extends ReconnectOptions {
	/** Interval of the comment heartbeat of a timer stream, in ms (default 15000). */
	heartbeatMs?: number;
	/** The `retry:` hint sent at the start of each stream, in ms (default 1000). */
	retryMs?: number;
	/** Most timer streams open at once, over all rings; more are answered 503 (default 1000). */
	maxStreams?: number;
	/** Timing events kept per ring for Last-Event-ID replay (default 100). */
	replay?: number;
}

export const TIMER_DEFAULTS = {
	heartbeatMs: 15_000,
	retryMs: 1_000,
	maxStreams: 1_000,
	replay: 100
};

/** The `data` of an `event: status`. */
export interface TimerStatus {
	connected: boolean;
	source: TimerSource['kind'];
	/** What happened, for the screen and the log (the address, the error, the next attempt). */
	detail: string;
	/** When this state began, ms since the Unix epoch (service clock). */
	since: number;
}

/** The `data` of an `event: timing`: the parser's event and when the service read its line. */
export type RelayedTimingEvent = TimingEvent & {
	/** When the service received the line, ms since the Unix epoch (service clock). */
	receivedAt: number;
};

export interface TimerRing {
	competitionId: number;
	ringId: number;
	source: TimerSource;
}

/** The state of a timer: its ring, its source (`spec`) and its status. */
export interface TimerState extends TimerStatus {
	competitionId: number;
	ringId: number;
	spec: TimerSource;
}

/** Resolved timers: one per ring. */
export interface Timers {
	/** The rings that have a timer (their competitions link `timer` on them). */
	readonly rings: ReadonlySet<number>;
	/** The state of each timer (a copy). */
	status(): TimerState[];
	/** Answers a GET or HEAD of a ring's timer stream; false when the ring has no timer. */
	open(ex: Exchange, ringId: number): boolean;
	/** Stops every connection and ends every stream (service shutdown). */
	close(): void;
	/** Drops every stream's connection (fault injection: the service became unreachable). */
	drop(): void;
}

/** Throws on timer options that cannot work. */
export function checkTimerOptions(p: TimerOptions): void {
	const check = (name: string, v: number | undefined, min: number): void => {
		if (v !== undefined && (!Number.isInteger(v) || v < min)) {
			throw new Error(`timerOptions.${name} must be an integer >= ${min}, got ${String(v)}`);
		}
	};
	check('heartbeatMs', p.heartbeatMs, 1);
	check('retryMs', p.retryMs, 0);
	check('maxStreams', p.maxStreams, 1);
	check('replay', p.replay, 0);
	check('reconnectMinMs', p.reconnectMinMs, 1);
	check('reconnectMaxMs', p.reconnectMaxMs, p.reconnectMinMs ?? 1);
	check('connectTimeoutMs', p.connectTimeoutMs, 1);
}

/** Parses the settings (throws on a bad one); before the database is opened. */
export function parseTimerSettings(
	setting: TimerSetting | TimerSetting[] | undefined
): TimerSpec[] {
	if (setting === undefined) return [];
	const list = Array.isArray(setting) ? setting : [setting];
	return list.map((s) => (typeof s === 'string' ? parseTimerSpec(s) : s));
}

/**
 * The ring of each timer: the one given (any competition's ring, by its id), else the first ring
 * of the competition in progress when there is exactly one such competition. Throws when a ring
 * does not exist, a default cannot be chosen, or two timers would time one ring.
 */
export async function resolveTimers(repo: Repository, specs: TimerSpec[]): Promise<TimerRing[]> {
	const out: TimerRing[] = [];
	for (const spec of specs) {
		const what = describeSource(spec.source);
		let ring: { competitionId: number; ringId: number };
		if (spec.ringId !== undefined) {
			const found = await repo.ringById(spec.ringId);
			if (!found) throw new Error(`timer ${what}: there is no ring ${spec.ringId}`);
			ring = { competitionId: found.competition_id, ringId: found.id };
		} else {
			const filter = { dateFrom: null, dateTo: null, state: 'IN_PROGRESS' };
			const running = await repo.competitionPage(filter, 2, 0);
			const only = running.length === 1 ? running[0] : undefined;
			const first = only ? (await repo.rings(only.id))[0] : undefined;
			if (!only || !first) {
				throw new Error(
					`timer ${what}: which ring? ${running.length === 0 ? 'no competition is' : 'several competitions are'} in progress; give ring=<ringId>,${what}`
				);
			}
			ring = { competitionId: only.id, ringId: first.id };
		}
		if (out.some((t) => t.ringId === ring.ringId)) {
			throw new Error(`timer ${what}: ring ${ring.ringId} already has a timer; give ring=<ringId>`);
		}
		out.push({ ...ring, source: spec.source });
	}
	return out;
}

interface Subscriber {
	write(text: string): void;
}

interface Kept {
	seq: number;
	text: string;
}

/**
 * Connects every timer and serves their streams. `latencyMs` (the service's `latency` option)
 * delays each event as it delays every answer. `log` gets a JSON line on each change of state.
 */
export function createTimers(
	rings: TimerRing[],
	options: TimerOptions,
	log: ((line: string) => void) | null,
	latencyMs = 0
): Timers {
	checkTimerOptions(options);
	const o = { ...TIMER_DEFAULTS, ...options };
	const streams = new StreamRegistry(o.maxStreams);
	const epoch = newEpoch();
	const idRe = new RegExp(`^${epoch}-(\\d{1,15})$`);

	interface Bridge {
		ring: TimerRing;
		status: TimerStatus;
		subscribers: Set<Subscriber>;
		kept: Kept[];
		seq: number;
		connection: { close(): void };
		/** The current run of failed attempts was logged. */
		failureLogged: boolean;
	}
	const bridges = new Map<number, Bridge>();

	const send = (b: Bridge, text: string): void => {
		for (const s of b.subscribers) {
			if (latencyMs > 0) setTimeout(() => s.write(text), latencyMs);
			else s.write(text);
		}
	};
	const relay = (b: Bridge, events: TimingEvent[]): void => {
		const receivedAt = Date.now();
		for (const event of events) {
			const seq = ++b.seq;
			const data: RelayedTimingEvent = { ...event, receivedAt };
			const text = formatEvent({
				id: `${epoch}-${seq}`,
				event: 'timing',
				data: JSON.stringify(data)
			});
			b.kept.push({ seq, text });
			if (b.kept.length > o.replay) b.kept.shift();
			send(b, text);
		}
	};
	// A status carries the id of the ring's last timing event: a client that reconnects after it
	// (EventSource sends it as Last-Event-ID) gets what it missed.
	const statusText = (b: Bridge): string =>
		formatEvent({ id: `${epoch}-${b.seq}`, event: 'status', data: JSON.stringify(b.status) });

	for (const ring of rings) {
		let parser = new LineParser();
		const b: Bridge = {
			ring,
			status: {
				connected: false,
				source: ring.source.kind,
				detail: `connecting to ${describeSource(ring.source)}`,
				since: Date.now()
			},
			subscribers: new Set(),
			kept: [],
			seq: 0,
			connection: { close() {} },
			failureLogged: false
		};
		bridges.set(ring.ringId, b);
		b.connection = keepConnected(ring.source, options, {
			onText(text) {
				relay(b, parser.push(text));
			},
			onStatus(connected, detail) {
				const changed = connected !== b.status.connected;
				// The stream ended: half a line is reported (garbage, `cut`), never parsed; a new
				// connection starts with a new parser, knowing nothing of the run.
				if (changed && !connected) relay(b, parser.end());
				if (connected) parser = new LineParser();
				b.status = {
					connected,
					source: ring.source.kind,
					detail,
					since: changed ? Date.now() : b.status.since
				};
				// Repeated failures while disconnected update the state without an event each (the
				// log has the first one).
				if (changed) send(b, statusText(b));
				if (!changed && (connected || b.failureLogged)) return;
				b.failureLogged = !connected;
				log?.(
					JSON.stringify({
						ts: new Date().toISOString(),
						timer: describeSource(ring.source),
						ringId: ring.ringId,
						connected,
						detail
					})
				);
			}
		});
	}

	function open(ex: Exchange, ringId: number): boolean {
		const b = bridges.get(ringId);
		if (!b) return false;
		streams.admit();
		if (ex.dropAnswer) {
			ex.dropAnswer(200);
			return true;
		}
		const { req, res } = ex;
		ex.status = 200;
		ex.summary = `timer of ring ${ringId}`;
		res.writeHead(200, EVENT_STREAM_HEADERS);
		if (req.method === 'HEAD') {
			res.end();
			return true;
		}
		const write = (text: string): void => {
			if (res.destroyed || res.writableEnded) return;
			res.write(text);
			if (res.writableLength > MAX_PENDING_BYTES) res.destroy();
		};
		// The events kept after Last-Event-ID (of this process), then the current state.
		const last = req.headers['last-event-id'];
		const m = typeof last === 'string' ? idRe.exec(last.trim()) : null;
		const after = m ? Number(m[1]) : b.seq;
		let text = `retry: ${o.retryMs}\n`;
		for (const k of b.kept) if (k.seq > after) text += k.text;
		write(text + statusText(b));
		const subscriber: Subscriber = { write };
		b.subscribers.add(subscriber);
		const heartbeat = setInterval(() => write(': heartbeat\n\n'), o.heartbeatMs);
		const remove = streams.add({ end: () => res.end(), drop: () => resetConnection(req) });
		res.once('close', () => {
			clearInterval(heartbeat);
			remove();
			b.subscribers.delete(subscriber);
		});
		return true;
	}

	return {
		rings: new Set(bridges.keys()),
		status: () =>
			[...bridges.values()].map(({ ring, status }) => ({
				competitionId: ring.competitionId,
				ringId: ring.ringId,
				spec: ring.source,
				...status
			})),
		open,
		close() {
			for (const b of bridges.values()) b.connection.close();
			streams.endAll();
		},
		drop: () => streams.dropAll()
	};
}
