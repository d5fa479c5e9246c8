// The change feed of the push extension: every accepted PUT becomes one change with an id
// `<epoch>-<seq>` (the store's epoch and seq, store/store.ts), kept in a bounded buffer from which
// a stream resumes after Last-Event-ID. No I/O here; server/push/push.ts writes the changes to the
// event streams.
import { randomBytes } from 'node:crypto';

/** The event name of a change: the kind of the resource a PUT changed. */
export type ChangeEvent = 'dogRun' | 'run' | 'publication' | 'checkIn';

export interface Change {
	/** The store's sequence number, from 1, raised by every change of any competition. */
	seq: number;
	/** The SSE id: `<epoch>-<seq>`. */
	id: string;
	competitionId: number;
	event: ChangeEvent;
	/** The changed resource as its GET answers it, built on API_BASE (see hal.ts). */
	template: string;
}

/** Why a stream cannot resume from the id it was given; the client must read again. */
export type ResetReason = 'unknown' | 'expired' | 'restarted';

export type Resume = { kind: 'replay'; changes: Change[] } | { kind: 'reset'; reason: ResetReason };

/**
 * A new epoch (of a SQLite store at each start, of a new PostgreSQL database): the time (base
 * 36) and a few random bits, lowercase.
 */
export const newEpoch = (): string => `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

const ID_RE = /^([a-z0-9]+)-(\d{1,15})$/;

export class ChangeFeed {
	readonly epoch: string;
	readonly bufferSize: number;
	#seq = 0;
	/** The most recent changes, oldest first, at most bufferSize. */
	#buffer: Change[] = [];

	/** `lastSeq`: the store's latest change when this instance started (0: none). */
	constructor(bufferSize: number, epoch: string = newEpoch(), lastSeq = 0) {
		if (!Number.isInteger(bufferSize) || bufferSize < 1) {
			throw new Error(`bufferSize must be an integer >= 1, got ${String(bufferSize)}`);
		}
		this.bufferSize = bufferSize;
		this.epoch = epoch;
		this.#seq = lastSeq;
	}

	/** The seq of the latest change (0 before the first). */
	get lastSeq(): number {
		return this.#seq;
	}

	/** The id of the latest change (`<epoch>-0` before the first). */
	get lastId(): string {
		return `${this.epoch}-${this.#seq}`;
	}

	/**
	 * Adds a change the store numbered `seq` (in commit order; a seq that is not after the
	 * latest is ignored: it came twice).
	 */
	append(competitionId: number, event: ChangeEvent, template: string, seq: number): Change | null {
		if (seq <= this.#seq) return null;
		this.#seq = seq;
		const change = { seq, id: `${this.epoch}-${seq}`, competitionId, event, template };
		this.#buffer.push(change);
		if (this.#buffer.length > this.bufferSize) this.#buffer.shift();
		return change;
	}

	/**
	 * What a stream of `competitionId` that last saw `lastEventId` has missed: the changes after it
	 * (none without an id: a new stream starts from now), or a reset when the id is not one of
	 * this process, is malformed or ahead of it, or is older than the buffer reaches back.
	 */
	resume(lastEventId: string | undefined, competitionId: number): Resume {
		const last = lastEventId?.trim();
		if (!last) return { kind: 'replay', changes: [] };
		const m = ID_RE.exec(last);
		if (!m) return { kind: 'reset', reason: 'unknown' };
		if (m[1] !== this.epoch) return { kind: 'reset', reason: 'restarted' };
		const seq = Number(m[2]);
		if (seq > this.#seq) return { kind: 'reset', reason: 'unknown' };
		const oldest = this.#buffer[0]?.seq ?? this.#seq + 1;
		if (seq < oldest - 1) return { kind: 'reset', reason: 'expired' };
		return {
			kind: 'replay',
			changes: this.#buffer.filter((c) => c.seq > seq && c.competitionId === competitionId)
		};
	}
}
