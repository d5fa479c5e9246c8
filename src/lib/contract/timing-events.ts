/**
 * One event shape for every source of time: the line protocol of a cabled chronometer (parsed by
 * protocol.ts, on the service or over Web Serial), the service's timer stream, and the built-in
 * stopwatch. Every time is an integer number of hundredths of a second, truncated, never rounded
 * (FCI: timers truncate).
 *
 * Imported by the service from Node by a relative path: this module and protocol.ts import
 * nothing but each other (no `$lib` alias, no browser API).
 */

/** Why a stop or intermediate is not to be trusted blindly (the screen words these codes). */
export type TimeFlag =
	/** No START was seen before it: the time is the chronometer's figure as it stands. */
	| 'no-start'
	/** Its timestamp is earlier than the start's: the chronometer's clock wrapped or restarted. */
	| 'before-start';

export type TimingEvent =
	/** OK (or READY): the sensors are fine and the chronometer is ready; ends a FAIL. */
	| { type: 'ready' }
	/**
	 * A run started. `timestamp`: the chronometer's clock at the start, in milliseconds, when it
	 * sent one (the protocol's timestamps are milliseconds; elapsed times are computed from them).
	 */
	| { type: 'start'; timestamp?: number }
	/** An intermediate time, hundredths since the start (truncated). */
	| { type: 'intermediate'; elapsed: number; flag?: TimeFlag }
	/**
	 * The run stopped. `elapsed`: hundredths since the start, truncated; absent when the
	 * chronometer gave no time (a bare STOP) or a time that cannot be one (flag `before-start`).
	 */
	| { type: 'stop'; elapsed?: number; flag?: TimeFlag }
	/** A sensor failed (a chronometer repeats it every second while the failure lasts). */
	| { type: 'fail' }
	/** The chronometer was reset: no run, no countdown. */
	| { type: 'reset' }
	/** The start countdown began: the dog must start within `seconds` (0: cancelled). */
	| { type: 'countdown'; seconds: number }
	/** The course walk began: `seconds` long (0: ended). */
	| { type: 'walk'; seconds: number }
	/** A line that is not the protocol, kept (cut to a bound) so that the screen can show it. */
	| { type: 'garbage'; line: string; reason: GarbageReason };

export type GarbageReason =
	/** Not a command of the protocol. */
	| 'unknown-command'
	/** A command whose argument is missing or not a number in an accepted format. */
	| 'bad-argument'
	/** Control or non-ASCII characters: noise on the line (a wrong baud rate, a loose cable). */
	| 'noise'
	/** Longer than MAX_LINE characters without a line end. */
	| 'overlong'
	/**
	 * Unterminated when the stream ended: never parsed, since `STOP 38` may be the first part of
	 * `STOP 38630`.
	 */
	| 'cut';

export type TimingEventType = TimingEvent['type'];

/** Every type of event, e.g. for validating what arrives over the network. */
export const TIMING_EVENT_TYPES: readonly TimingEventType[] = [
	'ready',
	'start',
	'intermediate',
	'stop',
	'fail',
	'reset',
	'countdown',
	'walk',
	'garbage'
];

/** Hundredths from milliseconds, truncated (38639 ms → 3863). */
export function hundredthsFromMs(ms: number): number {
	return Math.trunc(ms / 10);
}

const isTime = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isFlag = (v: unknown): v is TimeFlag => v === 'no-start' || v === 'before-start';

/**
 * The event in `value` (e.g. JSON from the service's stream), with only the known fields, or
 * undefined when it is not a TimingEvent. Never trusts a time that is not a whole non-negative
 * number of hundredths.
 */
export function toTimingEvent(value: unknown): TimingEvent | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const v = value as Record<string, unknown>;
	switch (v.type) {
		case 'ready':
		case 'fail':
		case 'reset':
			return { type: v.type };
		case 'start':
			if (v.timestamp === undefined) return { type: 'start' };
			return isTime(v.timestamp) ? { type: 'start', timestamp: v.timestamp } : undefined;
		case 'intermediate': {
			if (!isTime(v.elapsed) || (v.flag !== undefined && !isFlag(v.flag))) return undefined;
			return v.flag === undefined
				? { type: 'intermediate', elapsed: v.elapsed }
				: { type: 'intermediate', elapsed: v.elapsed, flag: v.flag };
		}
		case 'stop': {
			if (v.elapsed !== undefined && !isTime(v.elapsed)) return undefined;
			if (v.flag !== undefined && !isFlag(v.flag)) return undefined;
			const stop: Extract<TimingEvent, { type: 'stop' }> = { type: 'stop' };
			if (v.elapsed !== undefined) stop.elapsed = v.elapsed;
			if (v.flag !== undefined) stop.flag = v.flag;
			return stop;
		}
		case 'countdown':
		case 'walk':
			return isTime(v.seconds) ? { type: v.type, seconds: v.seconds } : undefined;
		case 'garbage':
			return typeof v.line === 'string'
				? {
						type: 'garbage',
						line: v.line,
						reason: isReason(v.reason) ? v.reason : 'unknown-command'
					}
				: undefined;
		default:
			return undefined;
	}
}

const isReason = (v: unknown): v is GarbageReason =>
	v === 'unknown-command' ||
	v === 'bad-argument' ||
	v === 'noise' ||
	v === 'overlong' ||
	v === 'cut';
