/**
 * One process of spectators for the `scale-out` part (bench/parts/scale-out.ts), started by it
 * with an IPC channel: `viewers` idle phones on a competition's push link (one Server-Sent Events
 * connection each) and `boards` ring boards polling their ring's next dogs with If-None-Match
 * every POLL_MS, each board on its own keep-alive connection. It notes when each change reached
 * each viewer (the clock is the machine's, `timeOrigin + now`, the same in every process) and
 * answers it all when told to stop. Several processes share the load: one process would spend
 * its event loop and its open-files limit on 12,000 sockets.
 */
import { Agent, request } from 'node:http';
import { POLL_MS } from '../../src/lib/sync/live-updates.ts';
import { openEventStream, type SseClient } from './live-http.ts';
import { percentile } from './stats.ts';

export interface StartMessage {
	type: 'start';
	/** The competition's `changes` link (through the proxy). */
	changes: string;
	/** A ring's next dogs, as a board reads them (through the proxy). */
	board: string;
	viewers: number;
	boards: number;
	/** Spread the openings over this long. */
	rampMs: number;
}

export interface WorkerResult {
	type: 'result';
	/** `<dogRunId>/<time>` of a change → the arrival time at each viewer that got it. */
	arrivals: [string, number[]][];
	opened: number;
	openFailed: number;
	/** Why streams failed to open: a status or an error's code, with how many. */
	openFailures: Record<string, number>;
	/** Streams that ended before the stop (the service or the proxy closed them). */
	dropped: number;
	/** Statuses of the boards' reads, e.g. {200: 12, 304: 3900}. */
	boardStatuses: Record<string, number>;
	boardErrors: number;
	boardMsP50: number;
	boardMsP95: number;
}

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let stopping = false;
const streams: SseClient[] = [];
const arrivals = new Map<string, number[]>();
let opened = 0;
let openFailed = 0;
const openFailures: Record<string, number> = {};
const failure = (why: string): void => {
	openFailed++;
	openFailures[why] = (openFailures[why] ?? 0) + 1;
};
let dropped = 0;
const boardStatuses: Record<string, number> = {};
let boardErrors = 0;
const boardMs: number[] = [];
const boardAgents: Agent[] = [];

function viewer(url: string): void {
	const client = openEventStream(url, (m) => {
		if (m.event !== 'dogRun') return;
		const at = now();
		// The dog run's id and time lead its JSON: read them without parsing the rest.
		const d = /^\{"id":(\d+),"time":([^,]+),/.exec(m.data);
		if (!d) return;
		const key = `${d[1]}/${d[2]}`;
		let list = arrivals.get(key);
		if (!list) arrivals.set(key, (list = []));
		list.push(at);
	});
	streams.push(client);
	client.opened.then(
		(status) => {
			if (status === 200) opened++;
			else failure(String(status));
		},
		(e: NodeJS.ErrnoException) => failure(e.code ?? e.message)
	);
	void client.ended.then(() => {
		if (!stopping) dropped++;
	});
}

async function board(url: string, phase: number): Promise<void> {
	const agent = new Agent({ keepAlive: true, maxSockets: 1 });
	boardAgents.push(agent);
	let etag: string | undefined;
	await sleep(phase);
	while (!stopping) {
		const t0 = performance.now();
		await new Promise<void>((resolve) => {
			const req = request(
				url,
				{
					agent,
					headers: { Accept: 'application/hal+json', ...(etag ? { 'If-None-Match': etag } : {}) }
				},
				(res) => {
					res.resume();
					res.on('end', () => {
						const status = String(res.statusCode ?? 0);
						boardStatuses[status] = (boardStatuses[status] ?? 0) + 1;
						const tag = res.headers.etag;
						if (res.statusCode === 200 && typeof tag === 'string') etag = tag;
						boardMs.push(performance.now() - t0);
						resolve();
					});
					res.on('error', () => {
						boardErrors++;
						resolve();
					});
				}
			);
			req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
			req.on('error', () => {
				if (!stopping) boardErrors++;
				resolve();
			});
			req.end();
		});
		await sleep(Math.max(0, POLL_MS - (performance.now() - t0)));
	}
}

process.on('message', (msg: StartMessage | { type: 'stop' }) => {
	if (msg.type === 'start') {
		void (async () => {
			const step = msg.rampMs / Math.max(1, msg.viewers);
			for (let i = 0; i < msg.viewers; i++) {
				viewer(msg.changes);
				// A burst of a few dozen at a time, as phones arrive.
				if (i % 50 === 49) await sleep(step * 50);
			}
			for (let i = 0; i < msg.boards; i++) void board(msg.board, Math.random() * POLL_MS);
			// Ready once every stream answered (or failed).
			await Promise.allSettled(streams.map((s) => s.opened));
			process.send?.({ type: 'ready', opened, openFailed });
		})();
	} else if (msg.type === 'stop') {
		stopping = true;
		for (const s of streams) s.close();
		for (const a of boardAgents) a.destroy();
		const result: WorkerResult = {
			type: 'result',
			arrivals: [...arrivals],
			opened,
			openFailed,
			openFailures,
			dropped,
			boardStatuses,
			boardErrors,
			boardMsP50: boardMs.length ? percentile(boardMs, 0.5) : 0,
			boardMsP95: boardMs.length ? percentile(boardMs, 0.95) : 0
		};
		process.send?.(result, () => process.exit(0));
	}
});
