/**
 * The load generator of the `live` part's idle-screen cost, run in a child process (forked by
 * bench/parts/live.ts) so that the bench process's CPU time is the service's alone. It gets a
 * `LoadConfig` over IPC, warms up, sends `start`, keeps the clients going for `durationMs`, then
 * sends `done` with what it counted and exits.
 *
 * - polling: each client reads its lists conditionally (as the app's live updates do), then waits
 *   `pollMs`, again and again; clients start at random points of the first period.
 * - push: each client holds one `changes` stream open and reads nothing else.
 * A steward records a result every `stewardMs` (first one second into the window) in both modes.
 */
import {
	agentFor,
	ConditionalList,
	openEventStream,
	putJson,
	type SseClient
} from './live-http.ts';

export interface LoadConfig {
	mode: 'polling' | 'push';
	clients: number;
	/** First pages of the dog-run lists each client watches (polling). */
	lists: string[];
	/** The competition's `changes` link (push). */
	changes: string;
	/** Self links of the dog runs the steward records, in order. */
	stewardDogs: string[];
	stewardMs: number;
	pollMs: number;
	durationMs: number;
}

export interface LoadStart {
	type: 'start';
}

export interface LoadDone {
	type: 'done';
	wallMs: number;
	/** CPU time of this process over the window, µs. */
	cpuUs: number;
	/** Answers received within the window, by status (the steward's PUTs included). */
	statuses: Record<string, number>;
	puts: number;
	/** Events received (push: `dogRun` events over all streams). */
	events: number;
	streamsOpen: number;
	/** Streams that ended during the window, or read errors of pollers. */
	failures: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function run(config: LoadConfig): Promise<void> {
	const agent = agentFor(config.changes, { keepAlive: true, maxSockets: Infinity });
	const statuses: Record<string, number> = {};
	let counting = false;
	let stopped = false;
	let events = 0;
	let failures = 0;
	let puts = 0;
	const count = (status: number): void => {
		if (counting) statuses[status] = (statuses[status] ?? 0) + 1;
	};

	const streams: SseClient[] = [];
	if (config.mode === 'polling') {
		for (let c = 0; c < config.clients; c++) {
			const lists = config.lists.map((href) => new ConditionalList(href, agent));
			void (async () => {
				await sleep(Math.random() * config.pollMs);
				while (!stopped) {
					try {
						for (const list of lists) await list.read(count);
					} catch {
						if (counting) failures++;
					}
					await sleep(config.pollMs);
				}
			})();
		}
		// Every client has started and read its lists once (the tags are known).
		await sleep(config.pollMs + 500);
	} else {
		const ready: Promise<void>[] = [];
		for (let c = 0; c < config.clients; c++) {
			let isReady: () => void = () => undefined;
			ready.push(new Promise<void>((r) => (isReady = r)));
			const stream = openEventStream(config.changes, (m) => {
				if (m.event === 'ready') isReady();
				else if (m.event === 'dogRun' && counting) events++;
			});
			streams.push(stream);
			void stream.ended.then(() => {
				if (counting && !stopped) failures++;
			});
		}
		// Opened all at once, as screens reconnecting after a network change would.
		for (const status of await Promise.all(streams.map((s) => s.opened))) {
			if (status !== 200) throw new Error(`changes stream answered ${status}`);
		}
		await Promise.all(ready);
		await sleep(500);
	}

	await send({ type: 'start' } satisfies LoadStart);
	counting = true;
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	void (async () => {
		await sleep(1000);
		for (let k = 0; !stopped && performance.now() - t0 < config.durationMs; k++) {
			const href = config.stewardDogs[k % config.stewardDogs.length];
			if (!href) break;
			const a = await putJson(href, { time: 30 + k * 0.37 }, agent);
			count(a.status);
			if (a.status !== 200) failures++;
			puts++;
			await sleep(config.stewardMs);
		}
	})().catch(() => {
		if (counting) failures++;
	});
	await sleep(config.durationMs);
	counting = false;
	const cpu = process.cpuUsage(cpu0);
	const done: LoadDone = {
		type: 'done',
		wallMs: performance.now() - t0,
		cpuUs: cpu.user + cpu.system,
		statuses,
		puts,
		events,
		streamsOpen: streams.length,
		failures
	};
	stopped = true;
	await send(done);
	// The pollers and the steward are left to the exit: nothing they do now is counted.
	for (const s of streams) s.close();
	agent.destroy();
}

/** Resolves once the message is handed to the IPC channel. */
function send(message: LoadStart | LoadDone): Promise<void> {
	return new Promise((resolve, reject) => {
		if (!process.send) return reject(new Error('not forked with IPC'));
		process.send(message, undefined, {}, (e) => (e ? reject(e) : resolve()));
	});
}

process.once('message', (config: LoadConfig) => {
	run(config).then(
		() => process.exit(0),
		(e: unknown) => {
			console.error(e);
			process.exit(1);
		}
	);
});
