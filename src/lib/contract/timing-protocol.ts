/**
 * The line protocol of open-source agility chronometers, as AgilityContest's serial chronometer
 * interface defines it (github.com/geduxas/AgilityContest_SerialChronometer), read leniently where
 * that costs no safety. The full description, with examples, is docs/timing.md; in short:
 *
 * - ASCII text, one command a line. A line ends with CR LF (what the protocol prescribes), LF or
 *   a lone CR (both seen on serial adapters and simulators). Empty lines are skipped.
 * - Commands are case-insensitive; spaces and tabs around and between words are ignored.
 * - `START [t]`: a run starts; `t` is the chronometer's clock (0 when omitted).
 *   `INT t`: an intermediate; `STOP [t]`: the run ends. Elapsed = t − start, truncated to
 *   hundredths (the difference is truncated, not each timestamp).
 *   `FAIL`: a sensor failed (repeated every second while it lasts); `OK` or `READY`: the sensors
 *   are fine, the chronometer is ready; `RESET`: cleared; `DOWN [s]`: the start countdown,
 *   15 s when omitted; `WALK [s]`: the course walk, 420 s when omitted, 0 ends it.
 *   MSG, FAULT, REFUSAL, ELIM, DATA, TURN, BRIGHT, CLOCK (display commands) are ignored: faults
 *   and refusals are recorded by hand.
 * - A time `t` is a whole number of MILLISECONDS (`STOP 38639`, as the protocol specifies), or
 *   seconds with a decimal point or comma (`STOP 38.63`, `STOP 38,639`), or minutes:seconds
 *   (`STOP 1:05.32`). A whole number is never read as hundredths: `STOP 3863` is 3.86 s.
 * - Anything else — an unknown command, a bad argument, control or non-ASCII characters, a line
 *   over MAX_LINE characters — is one `garbage` event: shown on screen, never a time.
 *
 * Imported by the service from Node by a relative path: imports nothing but events.ts.
 */
import { hundredthsFromMs, type GarbageReason, type TimingEvent } from './timing-events.ts';

/** Longest line read; a longer one is one `overlong` garbage event and is skipped to its end. */
export const MAX_LINE = 256;
/** How much of a garbage line is kept in its event. */
export const GARBAGE_SHOWN = 80;
/** DOWN without seconds: the FCI start countdown. */
export const DEFAULT_COUNTDOWN_S = 15;
/** WALK without seconds: AgilityContest's default course walk (7 minutes). */
export const DEFAULT_WALK_S = 420;

/** Commands of the protocol that drive a display, not the time: read and ignored. */
const IGNORED = new Set(['MSG', 'FAULT', 'REFUSAL', 'ELIM', 'DATA', 'TURN', 'BRIGHT', 'CLOCK']);

/** Milliseconds from a time token, or undefined when it is not one of the accepted formats. */
export function parseTimeMs(token: string): number | undefined {
	let m = /^(\d{1,12})$/.exec(token);
	if (m) return Number(m[1]);
	// Seconds with a fraction: read as text, never through a float (38.63 * 1000 is 38629.99…).
	m = /^(\d{1,9})[.,](\d{1,9})$/.exec(token);
	if (m) return Number(m[1]) * 1000 + fractionMs(m[2] ?? '');
	m = /^(\d{1,6}):([0-5]\d)(?:[.,](\d{1,9}))?$/.exec(token);
	if (m) return (Number(m[1]) * 60 + Number(m[2])) * 1000 + fractionMs(m[3] ?? '');
	return undefined;
}

/** The first three digits of a decimal fraction as milliseconds ("639" → 639, "6" → 600). */
function fractionMs(digits: string): number {
	return Number(digits.slice(0, 3).padEnd(3, '0'));
}

function parseSeconds(token: string | undefined, fallback: number): number | undefined {
	if (token === undefined) return fallback;
	return /^\d{1,6}$/.test(token) ? Number(token) : undefined;
}

/** Printable ASCII, spaces and tabs: anything else on a line is noise. */
const NOISE = /[^\x20-\x7e\t]/;

/**
 * Splits a stream of text into lines and each line into a TimingEvent. Keeps what a line needs
 * from the lines before it (the start's timestamp) and the unfinished end of the last chunk.
 * Never throws; memory is bounded by MAX_LINE.
 */
export class LineParser {
	#buffer = '';
	/** A CR ended the last line: an LF right after it belongs to it (CR LF split across chunks). */
	#afterCr = false;
	/** Skipping the rest of an overlong line, up to its end. */
	#skipping = false;
	/** The chronometer's clock at the last START, in ms; undefined before a START or after RESET. */
	#startMs: number | undefined = undefined;

	/** The events of every line completed by `chunk`, in order. */
	push(chunk: string): TimingEvent[] {
		const events: TimingEvent[] = [];
		if (typeof chunk !== 'string') return events;
		let from = 0;
		for (let i = 0; i < chunk.length; i++) {
			const c = chunk.charCodeAt(i);
			if (c !== 10 && c !== 13) continue;
			const wasAfterCr = this.#afterCr;
			this.#afterCr = c === 13;
			if (c === 10 && wasAfterCr && i === from && this.#buffer === '' && !this.#skipping) {
				from = i + 1; // the LF of a CR LF
				continue;
			}
			this.#append(chunk.slice(from, i), events);
			from = i + 1;
			this.#endLine(events);
		}
		if (from < chunk.length) {
			this.#afterCr = false;
			this.#append(chunk.slice(from), events);
		}
		return events;
	}

	/**
	 * The stream ended (the port closed): an unfinished line is reported as `cut`, never parsed.
	 * The parser can then be used for a new stream; what it knew of the run is forgotten.
	 */
	end(): TimingEvent[] {
		const rest = this.#skipping ? '' : this.#buffer;
		this.#buffer = '';
		this.#skipping = false;
		this.#afterCr = false;
		this.#startMs = undefined;
		return rest.trim() === '' ? [] : [garbage(rest, 'cut')];
	}

	#append(text: string, events: TimingEvent[]): void {
		if (this.#skipping || text === '') return;
		if (this.#buffer.length + text.length > MAX_LINE) {
			events.push(garbage(this.#buffer + text, 'overlong'));
			this.#buffer = '';
			this.#skipping = true;
			return;
		}
		this.#buffer += text;
	}

	#endLine(events: TimingEvent[]): void {
		const line = this.#buffer;
		this.#buffer = '';
		if (this.#skipping) {
			this.#skipping = false;
			return;
		}
		const event = this.#parseLine(line);
		if (event) events.push(event);
	}

	/** The event of one line, or undefined for an empty line or an ignored command. */
	#parseLine(raw: string): TimingEvent | undefined {
		// NUL is what some USB adapters send when the port opens: no information, dropped.
		const line = raw.replaceAll('\0', '');
		if (NOISE.test(line)) return garbage(line, 'noise');
		const words = line.trim().split(/[ \t]+/);
		const command = (words[0] ?? '').toUpperCase();
		const args = words.slice(1);
		if (command === '') return undefined;
		switch (command) {
			case 'OK':
			case 'READY':
				return { type: 'ready' };
			case 'FAIL':
				return { type: 'fail' };
			case 'RESET':
				this.#startMs = undefined;
				return { type: 'reset' };
			case 'START': {
				if (args.length > 1) return garbage(line, 'bad-argument');
				if (args[0] === undefined) {
					this.#startMs = 0;
					return { type: 'start' };
				}
				const t = parseTimeMs(args[0]);
				if (t === undefined) return garbage(line, 'bad-argument');
				this.#startMs = t;
				return { type: 'start', timestamp: t };
			}
			case 'INT':
			case 'STOP': {
				if (args.length > 1) return garbage(line, 'bad-argument');
				if (args[0] === undefined) {
					return command === 'STOP' ? { type: 'stop' } : garbage(line, 'bad-argument');
				}
				const t = parseTimeMs(args[0]);
				if (t === undefined) return garbage(line, 'bad-argument');
				const type = command === 'STOP' ? 'stop' : 'intermediate';
				if (this.#startMs === undefined) {
					return { type, elapsed: hundredthsFromMs(t), flag: 'no-start' };
				}
				if (t < this.#startMs) {
					return type === 'stop' ? { type, flag: 'before-start' } : garbage(line, 'bad-argument');
				}
				return { type, elapsed: hundredthsFromMs(t - this.#startMs) };
			}
			case 'DOWN':
			case 'WALK': {
				if (args.length > 1) return garbage(line, 'bad-argument');
				const fallback = command === 'DOWN' ? DEFAULT_COUNTDOWN_S : DEFAULT_WALK_S;
				const seconds = parseSeconds(args[0], fallback);
				if (seconds === undefined) return garbage(line, 'bad-argument');
				return { type: command === 'DOWN' ? 'countdown' : 'walk', seconds };
			}
			default:
				return IGNORED.has(command) ? undefined : garbage(line, 'unknown-command');
		}
	}
}

function garbage(line: string, reason: GarbageReason): TimingEvent {
	return { type: 'garbage', line: line.slice(0, GARBAGE_SHOWN), reason };
}

/** Every event of a whole text (a recording, a test fixture); an unterminated end is `cut`. */
export function parseAll(text: string): TimingEvent[] {
	const parser = new LineParser();
	return [...parser.push(text), ...parser.end()];
}
