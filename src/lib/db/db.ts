import Dexie, { type EntityTable } from 'dexie';
import type { ApiErrorRecord } from '$lib/api/errors';
import type { Competition, CompetitionRun, DogRun } from '$lib/api/schemas';
import type {
	OutboxEntry as DomainOutboxEntry,
	EntryStatus,
	FieldConflictRecord,
	LogRow,
	ResourceKind
} from '$lib/domain/outbox-entry';

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
	| 'withheld'
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
	/** Why the last download failed (null unless `state` is 'failed'); the UI words it. */
	error: ErrorRecord | null;
}

/**
 * An error other than the HAL client's, as stored: IndexedDB keeps no class, so its name (e.g.
 * 'QuotaExceededError') and its technical message.
 */
export interface OtherErrorRecord {
	code: 'other';
	name: string;
	message: string;
}

/** An error as stored on the device: an ApiError's record, or another error's name and message. */
export type ErrorRecord = ApiErrorRecord | OtherErrorRecord;

export interface SettingRow {
	key: string;
	value: unknown;
}

/** What an outbox entry changes: a dog run's result or a competition run's course parameters. */
/** The outbox's types are the domain's (its state machine); stored errors are the API's records. */
export type { EntryStatus as OutboxStatus, FieldConflictRecord, ResourceKind };
export type OutboxEntry = DomainOutboxEntry<ApiErrorRecord>;

export interface SyncLogRow extends LogRow<ApiErrorRecord> {
	id?: number;
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
