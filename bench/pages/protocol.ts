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
	/** Until every list was read (the rest is the storing left: the last runs and the end). */
	fetchMs: number;
	/** Every GET of the download, in the order made (paths with their queries). */
	paths: string[];
	runs: number;
	dogRuns: number;
	/** navigator.storage.estimate().usage after minus before. */
	usageBytes: number;
}

/** One request as the app made it, to be made again by plain fetch. */
export interface RecordedRequest {
	method: string;
	/** Path with its query. */
	path: string;
	/** The JSON body sent, if any. */
	body?: string;
}

export interface ReplayResult {
	ms: number;
	/** Every request of the replay in the order made: its check's list reads and its PUTs. */
	requests: RecordedRequest[];
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
	/** Recorded requests with plain fetch, in their order, `concurrency` at a time. */
	plainRequests(requests: RecordedRequest[], concurrency: number): Promise<PlainResult>;
	/** The GETs with plain fetch, `concurrency` at a time, each answer read to the end. */
	plainGets(paths: string[], concurrency: number): Promise<PlainResult>;
	clearDb(): Promise<void>;
}
