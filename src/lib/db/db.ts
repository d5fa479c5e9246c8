import Dexie, { type EntityTable } from 'dexie';
import type { ApiErrorRecord } from '$lib/api/errors';
import type { Competition, CompetitionRun, DogRun } from '$lib/api/schemas';

export const DB_NAME = 'ringside';

/** A dog run as the server last sent it, without the run it embeds (stored once, in runs). */
export type DogRunSnapshot = Pick<
	DogRun,
	| 'id'
	| 'time'
	| 'refusals'
	| 'faults'
	| 'disqualified'
	| 'absence'
	| 'dog'
	| 'competitor'
	| '_links'
>;

export interface CompetitionRow {
	id: number;
	/** The `self` href: where the competition is read again. */
	href: string;
	data: Competition;
	fetchedAt: number;
}

export interface RunRow {
	id: number;
	competitionId: number;
	href: string;
	date: string;
	startTime: string;
	ringId: number;
	judgeId: number;
	data: CompetitionRun;
	fetchedAt: number;
}

export interface DogRunRow {
	id: number;
	runId: number;
	competitionId: number;
	/** Position in the service's list of the run: the start order. */
	order: number;
	/** The `self` href: where an update is sent. */
	href: string;
	data: DogRunSnapshot;
	fetchedAt: number;
}

export type DownloadState = 'running' | 'complete' | 'failed' | 'cancelled';

export interface DownloadRow {
	competitionId: number;
	state: DownloadState;
	startedAt: number;
	/** When the stored copy was completed (kept from the last good download while a new one runs). */
	completedAt: number | null;
	runsTotal: number;
	runsDone: number;
	dogRunsStored: number;
	errorCode: string | null;
	/** HTTP status of a failed download's answer, when there was one. */
	errorStatus?: number | null;
	errorDetail: string | null;
}

export interface SettingRow {
	key: string;
	value: unknown;
}

/** What an outbox entry changes: a dog run's result or a competition run's course parameters. */
export type ResourceKind = 'dogRun' | 'run';

export type OutboxStatus = 'pending' | 'sending' | 'conflict' | 'failed';

export interface FieldConflictRecord {
	field: string;
	base: unknown;
	mine: unknown;
	theirs: unknown;
}

/**
 * One unsent edit of one resource. Edits of the same resource coalesce into one entry (new values,
 * the original base), so a resource's edits are sent in order by construction.
 */
export interface OutboxEntry {
	/** `${kind}:${resourceId}`: one entry per resource. */
	key: string;
	kind: ResourceKind;
	resourceId: number;
	/** The competition run the resource belongs to (itself for a run): batches the conflict check. */
	runId: number;
	competitionId: number;
	/** The resource's `self` href: where the PUT goes. */
	href: string;
	/** Field → new value, only the fields the steward changed. */
	changes: Record<string, unknown>;
	/** Field → the server's value when the first unsent edit of that field was made. */
	base: Record<string, unknown>;
	status: OutboxStatus;
	/** Increments on every local edit: a replay that read revision n never clobbers n + 1. */
	revision: number;
	createdAt: number;
	updatedAt: number;
	attempts: number;
	nextAttemptAt: number;
	lastError: ApiErrorRecord | null;
	conflicts: FieldConflictRecord[] | null;
	/**
	 * The fields of a PUT whose outcome is not known yet (in flight, or its answer was lost), with
	 * their bases. The next replay counts a server value equal to the sent one as ours, and a save
	 * never drops such a field, so an edit back to the old value still reaches the server.
	 */
	inFlight?: { changes: Record<string, unknown>; base: Record<string, unknown> } | null;
}

export interface SyncLogRow {
	id?: number;
	at: number;
	key: string;
	kind: ResourceKind;
	resourceId: number;
	action: 'sent' | 'already-applied' | 'conflict' | 'failed' | 'retry' | 'resolved' | 'discarded';
	status: number | null;
	detail: string | null;
	fields: Record<string, unknown> | null;
}

/** Called when another tab or a new worker opens a newer schema and this copy had to close. */
type VersionChangeListener = () => void;

export class RingsideDb extends Dexie {
	readonly #onVersionChange = new Set<VersionChangeListener>();

	competitions!: EntityTable<CompetitionRow, 'id'>;
	runs!: EntityTable<RunRow, 'id'>;
	dogRuns!: EntityTable<DogRunRow, 'id'>;
	downloads!: EntityTable<DownloadRow, 'competitionId'>;
	settings!: EntityTable<SettingRow, 'key'>;
	outbox!: EntityTable<OutboxEntry, 'key'>;
	syncLog!: EntityTable<SyncLogRow, 'id'>;

	/** Subscribes to "closed for a newer version"; returns the unsubscribe. */
	subscribeVersionChange(listener: VersionChangeListener): () => void {
		this.#onVersionChange.add(listener);
		return () => this.#onVersionChange.delete(listener);
	}

	constructor(name = DB_NAME) {
		super(name);
		// Every schema step stays here, in order; never edit a released step, add a new one.
		this.version(1).stores({
			competitions: 'id, data.dateFrom',
			runs: 'id, competitionId, [competitionId+date], [competitionId+ringId], [competitionId+judgeId]',
			dogRuns: 'id, runId, competitionId, [runId+order]',
			downloads: 'competitionId',
			settings: 'key',
			outbox: 'key, status, runId, competitionId, nextAttemptAt',
			syncLog: '++id, at, key'
		});
		// A newer version of the app (another tab, an updated worker) upgrades the schema: close at
		// once so the upgrade is not blocked, and let the UI ask for a reload. Every saved edit is
		// already committed in IndexedDB and is carried through the upgrade.
		this.on('versionchange', () => {
			this.close();
			for (const listener of this.#onVersionChange) listener();
			return false;
		});
	}
}

export const db = new RingsideDb();
