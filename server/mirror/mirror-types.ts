// What mirror mode is given and what it offers (mirror.ts builds it): its options, the status the
// secretary's screen shows and the decisions it takes.
import type { ChangeRecorder } from '../changes/commit-change.ts';
import type { ImportSummary } from './import.ts';
import type { MirrorEntry } from './outbox.ts';
import type { Outcome } from './publish.ts';

/** What the laptop's requests to the upstream say they come from (its User-Agent). */
export const MIRROR_USER_AGENT = 'Ringside-mirror';

export interface MirrorOptions {
	/** The upstream service's address (its entry point is that plus /api/v1/competitions). */
	upstream: string;
	/** Competitions to mirror into an empty database (null: every one not over yet). */
	competitionIds: number[] | null;
	/** How often the upstream's lists are read again, ms (default 5,000). */
	pullIntervalMs?: number;
	/** Attempts published at once (default 8). */
	parallel?: number;
	/** Per upstream request, ms (default 15,000). */
	timeoutMs?: number;
	/** The event's day, YYYY-MM-DD (default: the laptop's local date): its runs are read most often. */
	today?: () => string;
	/** Sent as Authorization on every request to the upstream (when it asks for credentials). */
	authorization?: string;
	/** The link to the upstream (default: fetch); tests cut it here. */
	fetch?: (input: string, init: RequestInit) => Promise<Response>;
	/** The clock (default Date.now) and the random source of the backoff, for tests. */
	now?: () => number;
	random?: () => number;
}

/** What the secretary's screen shows. */
export interface MirrorStatus {
	upstream: string;
	/** Whether the upstream answered the last request made to it. */
	connected: boolean;
	/** When the upstream last answered (ISO), or null. */
	lastContactAt: string | null;
	/** Since when it does not answer (ISO), or null while it does. */
	lostSince: string | null;
	/** Every change accepted here before this time is published (ISO); null: none waits. */
	publishedUpTo: string | null;
	/** When the last change was published (ISO), or null. */
	lastPublishedAt: string | null;
	waiting: number;
	refused: number;
	conflicts: number;
	/** When the upstream's lists were last read (today's and the changed runs' at least; ISO), or null. */
	lastPulledAt: string | null;
	/** Every conflict and refusal, and the oldest of what waits (at most 50). */
	entries: MirrorEntry[];
}

export type Choice = 'ours' | 'theirs';

export interface Mirror {
	readonly recordChange: ChangeRecorder;
	/** Fills an empty database from the upstream; null when it holds the mirror already. */
	prepare(today: string, progress?: (line: string) => void): Promise<ImportSummary | null>;
	/** Starts the loops. */
	start(): void;
	status(): Promise<MirrorStatus>;
	/** The secretary's decision on an entry's conflicts; false when it has none. */
	resolve(key: string, choice: Choice | Record<string, Choice>): Promise<boolean>;
	/** A refused entry sent again (the secretary corrected it upstream, say); false: not refused. */
	retry(key: string): Promise<boolean>;
	/** Counts of the attempts since the start, for benches and tests. */
	outcomes(): Record<Outcome, number>;
	close(): Promise<void>;
}
