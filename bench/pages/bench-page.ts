/**
 * The bench page: the app's real sync code (HAL client, Dexie, download, outbox, replay) and
 * Workbox's background-sync Queue, bundled by bench/lib/bundle.ts and served on the service's own
 * origin, so every request meets the browser's HTTP/1.1 limit of 6 connections per origin.
 * Node drives it through `window.ringsideBench` (see ./protocol.ts).
 */
import { ACCEPT, HalClient, type FetchLike } from '$lib/api/hal-client';
import { requireLink } from '$lib/api/links';
import { CompetitionRunSchema, CompetitionSchema, type Competition } from '$lib/api/schemas';
import { db } from '$lib/db/db';
import { countByStatus } from '$lib/db/outbox-store';
import { downloadCompetition } from '$lib/sync/download';
import { saveDogRunEdit } from '$lib/sync/outbox';
import { replayOutbox, type ReplaySummary } from '$lib/sync/replay';
import { Queue } from 'workbox-background-sync';
import type {
	BenchApi,
	DownloadResult,
	PreparedEdits,
	PlainResult,
	PlannedPut,
	RecordedRequest,
	ReplayResult,
	WorkboxResult
} from './protocol';

const client = (fetch?: FetchLike): HalClient =>
	new HalClient({ serviceUrl: location.origin, fetch });

async function clearDb(): Promise<void> {
	await db.transaction(
		'rw',
		[db.competitions, db.runs, db.dogRuns, db.downloads, db.outbox, db.syncLog],
		async () => {
			await Promise.all([
				db.competitions.clear(),
				db.runs.clear(),
				db.dogRuns.clear(),
				db.downloads.clear(),
				db.outbox.clear(),
				db.syncLog.clear()
			]);
		}
	);
}

async function inProgress(): Promise<Competition> {
	const c = client();
	for await (const page of c.pages(c.competitionsUrl(), 'competitions', CompetitionSchema)) {
		const found = page.items.find((item) => item.state === 'IN_PROGRESS');
		if (found) return found;
	}
	throw new Error('no IN_PROGRESS competition');
}

async function usage(): Promise<number> {
	const estimate = await navigator.storage.estimate();
	return estimate.usage ?? 0;
}

async function download(concurrency: number): Promise<DownloadResult> {
	await clearDb();
	const competition = await inProgress();
	const before = await usage();
	const paths: string[] = [];
	const recording: FetchLike = (input, init) => {
		const url = new URL(input);
		paths.push(url.pathname + url.search);
		return globalThis.fetch(input, init);
	};
	const t0 = performance.now();
	let fetchedAt = NaN;
	const progress = await downloadCompetition(client(recording), competition._links.self.href, {
		concurrency,
		onProgress: (p) => {
			// The last run's list is in: from here on it is storing only.
			if (p.runsTotal > 0 && p.runsDone === p.runsTotal) fetchedAt = performance.now();
		}
	});
	const ms = performance.now() - t0;
	return {
		ms,
		fetchMs: fetchedAt - t0,
		paths,
		runs: progress.runsTotal,
		dogRuns: progress.dogRunsStored,
		usageBytes: (await usage()) - before
	};
}

/**
 * Downloads the IN_PROGRESS competition, then saves `count` edits spread over `runCount` runs (the
 * first runs in service order with enough dog runs) through the app's outbox, as a steward would.
 */
async function prepareEdits(count: number, runCount: number): Promise<PreparedEdits> {
	await clearDb();
	const c = client();
	const competition = await inProgress();
	await downloadCompetition(c, competition._links.self.href, { concurrency: 6 });
	const perRun = Math.ceil(count / runCount);
	const runs: number[] = [];
	for await (const page of c.pages(
		requireLink(competition._links, 'competitionRuns').href,
		'competitionRuns',
		CompetitionRunSchema
	)) {
		for (const run of page.items) {
			if (
				runs.length < runCount &&
				(await db.dogRuns.where('runId').equals(run.id).count()) >= perRun
			) {
				runs.push(run.id);
			}
		}
	}
	if (runs.length < runCount) throw new Error(`only ${runs.length} runs have ${perRun} dog runs`);
	const puts: PlannedPut[] = [];
	for (const runId of runs) {
		const rows = await db.dogRuns
			.where('[runId+order]')
			.between([runId, 0], [runId, Infinity])
			.toArray();
		for (const row of rows.slice(0, perRun)) {
			if (puts.length >= count) break;
			// 10.01 s to 19.99 s: below every seeded time, so each edit is a real change. An integer
			// over 100, so the number is exactly the decimal the service accepts (not 10 + 0.07).
			const time = (1001 + (puts.length % 999)) / 100;
			await saveDogRunEdit(row.id, { time });
			puts.push({ path: new URL(row.href).pathname, body: { time } });
		}
	}
	const counts = await countByStatus();
	return { puts, runs, pending: counts.pending };
}

/** The app's replay until nothing is due: what the sync bar's "Sync now" ends in. */
async function replayApp(concurrency: number): Promise<ReplayResult> {
	const requests: RecordedRequest[] = [];
	const recording: FetchLike = (input, init) => {
		const url = new URL(input);
		const body = typeof init?.body === 'string' ? init.body : undefined;
		requests.push({ method: init?.method ?? 'GET', path: url.pathname + url.search, body });
		return globalThis.fetch(input, init);
	};
	const c = client(recording);
	const t0 = performance.now();
	const summaries: ReplaySummary[] = [];
	for (let pass = 0; pass < 20; pass++) {
		const summary = await replayOutbox({ client: c, concurrency });
		summaries.push(summary);
		if (summary.remaining === 0) break;
	}
	const ms = performance.now() - t0;
	const counts = await countByStatus();
	const total = (key: keyof ReplaySummary): number =>
		summaries.reduce((sum, s) => sum + Number(s[key]), 0);
	return {
		ms,
		requests,
		passes: summaries.length,
		sent: total('sent'),
		alreadyApplied: total('alreadyApplied'),
		conflicts: total('conflicts'),
		failed: total('failed'),
		left: counts.pending + counts.sending + counts.conflict + counts.failed
	};
}

/** Workbox's Queue, filled with the same PUTs, then `replayRequests()` timed alone. */
async function replayWorkbox(puts: PlannedPut[]): Promise<WorkboxResult> {
	// Queue reads `self.registration` (a worker global) when it is built; in a page there is none.
	// With no `sync` on it, Queue falls back to replaying at start, which finds an empty queue.
	const scope = globalThis as unknown as { registration?: object };
	scope.registration ??= {};
	const queue = new Queue(`bench-${Date.now()}`, { forceSyncFallback: true });
	for (const put of puts) {
		await queue.pushRequest({
			request: new Request(new URL(put.path, location.origin).href, {
				method: 'PUT',
				headers: { 'Content-Type': 'application/json', Accept: 'application/hal+json' },
				body: JSON.stringify(put.body)
			})
		});
	}
	const queued = (await queue.getAll()).length;
	const t0 = performance.now();
	await queue.replayRequests();
	const ms = performance.now() - t0;
	return { ms, queued, left: (await queue.getAll()).length };
}

/** `tasks` run `concurrency` at a time, in order; the time for all of them. */
async function lanes(tasks: (() => Promise<boolean>)[], concurrency: number): Promise<PlainResult> {
	let next = 0;
	let failed = 0;
	const t0 = performance.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			for (let task = tasks[next++]; task; task = tasks[next++]) if (!(await task())) failed++;
		})
	);
	return { ms: performance.now() - t0, failed };
}

/**
 * The app's replay's requests (its check's list reads and its PUTs) again, in the order it made
 * them, with nothing of the app: what the same exchange costs the browser alone.
 */
function plainRequests(requests: RecordedRequest[], concurrency: number): Promise<PlainResult> {
	const tasks = requests.map((request) => async () => {
		const answer = await fetch(request.path, {
			method: request.method,
			headers:
				request.body === undefined
					? { Accept: ACCEPT }
					: { 'Content-Type': 'application/json', Accept: ACCEPT },
			body: request.body
		});
		await answer.text();
		return answer.ok;
	});
	return lanes(tasks, concurrency);
}

/** The download's GETs with their addresses known in advance (no chain of links, no storing). */
function plainGets(paths: string[], concurrency: number): Promise<PlainResult> {
	const tasks = paths.map((path) => async () => {
		const answer = await fetch(path, { headers: { Accept: ACCEPT } });
		await answer.text();
		return answer.ok;
	});
	return lanes(tasks, concurrency);
}

const api: BenchApi = {
	download,
	prepareEdits,
	replayApp,
	replayWorkbox,
	plainRequests,
	plainGets,
	clearDb
};
(globalThis as unknown as { ringsideBench: BenchApi }).ringsideBench = api;
document.body.dataset.ready = 'true';
