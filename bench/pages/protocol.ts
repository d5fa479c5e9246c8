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
	/** Every GET of the download, in the order made (paths with their queries). */
	paths: string[];
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

/** Plain requests from the page: what the browser itself costs, without the app. */
export interface PlainResult {
	ms: number;
	/** Answers other than 2xx. */
	failed: number;
}

export interface BenchApi {
	download(concurrency: number): Promise<DownloadResult>;
	prepareEdits(count: number, runCount: number): Promise<PreparedEdits>;
	replayApp(concurrency: number): Promise<ReplayResult>;
	replayWorkbox(puts: PlannedPut[]): Promise<WorkboxResult>;
	/** The PUTs with plain fetch, `concurrency` at a time, each answer read to the end. */
	plainPuts(puts: PlannedPut[], concurrency: number): Promise<PlainResult>;
	/** The GETs with plain fetch, `concurrency` at a time, each answer read to the end. */
	plainGets(paths: string[], concurrency: number): Promise<PlainResult>;
	clearDb(): Promise<void>;
}
