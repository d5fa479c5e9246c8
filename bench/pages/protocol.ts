/** What the bench page (./bench-page.ts) offers the Node side, and what it answers. */

export interface PlannedPut {
	/** Path of the dog run's self link (the same ids on every fresh copy of a seed). */
	path: string;
	body: { time: number };
}

export interface PreparedEdits {
	puts: PlannedPut[];
	runs: number[];
	/** Outbox entries pending after the saves. */
	pending: number;
}

export interface DownloadResult {
	ms: number;
	/** Until every list was read (the rest is the one storing transaction). */
	fetchMs: number;
	runs: number;
	dogRuns: number;
	/** navigator.storage.estimate().usage after minus before. */
	usageBytes: number;
}

export interface ReplayResult {
	ms: number;
	/** replayOutbox calls until nothing was due. */
	passes: number;
	sent: number;
	alreadyApplied: number;
	conflicts: number;
	failed: number;
	/** Outbox entries left in any status. */
	left: number;
}

export interface WorkboxResult {
	ms: number;
	queued: number;
	left: number;
}

export interface BenchApi {
	download(concurrency: number): Promise<DownloadResult>;
	prepareEdits(count: number, runCount: number): Promise<PreparedEdits>;
	replayApp(concurrency: number): Promise<ReplayResult>;
	replayWorkbox(puts: PlannedPut[]): Promise<WorkboxResult>;
	clearDb(): Promise<void>;
}
