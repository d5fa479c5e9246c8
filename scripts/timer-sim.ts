// `npm run timer:sim`: a simulated chronometer for development and tests. It listens on TCP
// (default 127.0.0.1:7700) and sends every connected client the same lines of the protocol of
// docs/timing.md, as electronic gates would during a ring: ready (OK), sometimes a 15 s
// countdown (DOWN 15), START, one or two INT, STOP 30–60 s later, sometimes FAIL or no STOP
// (the dog was eliminated), then RESET. Seeded: the same seed gives the same runs.
//
//   npm run timer:sim -- --port 7700 --seed 42 --pace 10 --runs 20
//   npx tsx server/main.ts --timer tcp:127.0.0.1:7700
import { createServer, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { mulberry32 } from '../server/seed/seed.ts';

/** One line of the simulated chronometer, `afterMs` (chronometer time) after the previous one. */
export interface SimLine {
	afterMs: number;
	line: string;
}

/** What a simulated run ended with. */
export type SimOutcome = 'stop' | 'fail' | 'no-stop';

export interface SimRun {
	lines: SimLine[];
	outcome: SimOutcome;
	/** Elapsed time of the run in hundredths (truncated), when it ended with STOP. */
	elapsedCs: number | null;
}

const between = (random: () => number, min: number, max: number): number =>
	min + Math.floor(random() * (max - min + 1));

/**
 * The chronometer's clock in the protocol: milliseconds since it was switched on, wrapping
 * like a 32-bit counter would (it is far from wrapping in a simulated day).
 */
const stamp = (clockMs: number): string => String(Math.floor(clockMs) >>> 0);

/**
 * The lines of one run starting at chronometer time `clockMs`. The elapsed time is whole
 * milliseconds, 30–60 s, so that the truncation to hundredths shows (38.637 s is 38.63).
 */
export function simulateRun(random: () => number, clockMs: number): SimRun {
	const lines: SimLine[] = [];
	let clock = clockMs;
	const emit = (afterMs: number, line: string): void => {
		clock += afterMs;
		lines.push({ afterMs, line });
	};
	emit(between(random, 2_000, 6_000), 'OK');
	let wait: number;
	if (random() < 0.35) {
		emit(between(random, 500, 2_000), 'DOWN 15');
		// The dog starts when the handler is ready, within the 15 s.
		wait = between(random, 3_000, 14_500);
	} else {
		wait = between(random, 1_000, 5_000);
	}
	const startAt = clock + wait;
	emit(wait, `START ${stamp(startAt)}`);
	const elapsedMs = between(random, 30_000, 60_000);
	const intermediates = random() < 0.5 ? 1 : 2;
	let at = startAt;
	for (let i = 1; i <= intermediates; i++) {
		const target = startAt + Math.floor((elapsedMs * i) / (intermediates + 1));
		const jitter = between(random, -1500, 1500);
		const t = target + jitter;
		emit(t - at, `INT ${stamp(t)}`);
		at = t;
	}
	const dice = random();
	let outcome: SimOutcome = 'stop';
	let elapsedCs: number | null = null;
	if (dice < 0.08) {
		// A sensor failed (a gate knocked out of line): FAIL every second while it lasts, no
		// time; OK once it is set right again.
		emit(between(random, 1_000, Math.max(1_000, startAt + elapsedMs - at - 1)), 'FAIL');
		const repeats = between(random, 0, 3);
		for (let i = 0; i < repeats; i++) emit(1_000, 'FAIL');
		emit(between(random, 2_000, 6_000), 'OK');
		outcome = 'fail';
	} else if (dice < 0.16) {
		// Eliminated: the dog never crosses the finish; the timekeeper resets.
		outcome = 'no-stop';
	} else {
		emit(startAt + elapsedMs - at, `STOP ${stamp(startAt + elapsedMs)}`);
		elapsedCs = Math.floor(elapsedMs / 10);
	}
	emit(between(random, 3_000, 8_000), 'RESET');
	return { lines, outcome, elapsedCs };
}

export interface TimerSimOptions {
	host?: string;
	/** TCP port (default 7700; 0 picks a free one). */
	port?: number;
	/** Seed of the runs (default: random, printed). */
	seed?: number;
	/** Speed-up: 1 is real time, 10 sends a 40 s run in 4 s (the times in the lines stay real). */
	pace?: number;
	/** Stop after this many runs (default: run until closed). */
	runs?: number;
	/** Start the first run when the first client connects (default: at once, as gates do). */
	waitForClient?: boolean;
	/** Line end (default "\r\n", as serial devices send). */
	eol?: string;
	/** Gets each line sent (default: none). */
	onLine?: (line: string, run: number) => void;
	/** Gets each run's outcome once it is sent. */
	onRun?: (run: SimRun, index: number) => void;
}

export interface TimerSim {
	host: string;
	port: number;
	seed: number;
	/** Clients connected now. */
	clients(): number;
	/** Resolves once the given number of runs has been sent (with `runs`). */
	done: Promise<void>;
	close(): Promise<void>;
}

/** Starts the simulated chronometer; resolves once it listens. */
export async function startTimerSim(options: TimerSimOptions = {}): Promise<TimerSim> {
	const host = options.host ?? '127.0.0.1';
	const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
	const pace = options.pace ?? 1;
	if (!(pace > 0) || !Number.isFinite(pace)) throw new Error(`pace must be > 0, got ${pace}`);
	const eol = options.eol ?? '\r\n';
	const random = mulberry32(seed);
	const sockets = new Set<Socket>();
	let playing = options.waitForClient !== true;
	const server = createServer((socket) => {
		sockets.add(socket);
		socket.setNoDelay(true);
		socket.on('error', () => socket.destroy());
		socket.on('close', () => sockets.delete(socket));
		// Whatever a client sends is ignored (a chronometer only talks).
		socket.resume();
		if (!playing) {
			playing = true;
			play(0);
		}
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 7700, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : (options.port ?? 7700);

	let closed = false;
	let timer: ReturnType<typeof setTimeout> | null = null;
	let finish: () => void = () => {};
	const done = new Promise<void>((resolve) => (finish = resolve));
	let clockMs = between(random, 60_000, 3_600_000);

	const send = (line: string): void => {
		for (const s of sockets) if (!s.destroyed) s.write(line + eol);
	};
	const play = (index: number): void => {
		if (closed) return;
		if (options.runs !== undefined && index >= options.runs) {
			finish();
			return;
		}
		const run = simulateRun(random, clockMs);
		let i = 0;
		const step = (): void => {
			timer = null;
			if (closed) return;
			const next = run.lines[i];
			if (!next) {
				options.onRun?.(run, index);
				play(index + 1);
				return;
			}
			timer = setTimeout(() => {
				timer = null;
				if (closed) return;
				clockMs += next.afterMs;
				send(next.line);
				options.onLine?.(next.line, index);
				i++;
				step();
			}, next.afterMs / pace);
		};
		step();
	};
	if (playing) play(0);

	return {
		host,
		port,
		seed,
		clients: () => sockets.size,
		done,
		close: () =>
			new Promise<void>((resolve) => {
				closed = true;
				if (timer) clearTimeout(timer);
				finish();
				for (const s of sockets) s.destroy();
				server.close(() => resolve());
			})
	};
}

const USAGE = `Simulated chronometer (TCP), for development and tests

Usage: npm run timer:sim -- [options]

Options:
  --host <addr>   Interface to listen on (default 127.0.0.1)
  --port <n>      TCP port (default 7700)
  --seed <n>      Seed of the runs (default: random; printed)
  --pace <x>      Speed-up: 1 = real time (default), 10 = ten times faster
  --runs <n>      Stop after n runs (default: until Ctrl-C)
  --wait          Start the first run when the first client connects (default: at once)
  --lf            End lines with LF only (default CR LF)
  --help          Show this help

Then: npx tsx server/main.ts --timer tcp:127.0.0.1:7700 (see docs/service.md, "Timer bridge").`;

function parseSimArgs(argv: string[]): TimerSimOptions & { help?: boolean } {
	const o: TimerSimOptions & { help?: boolean } = {};
	const number = (flag: string, v: string | undefined, ok: (n: number) => boolean): number => {
		const n = Number(v);
		if (v === undefined || v.trim() === '' || !ok(n)) {
			console.error(`${flag}: bad value ${String(v)}\n\n${USAGE}`);
			process.exit(2);
		}
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] ?? '';
		const [flag, inline] = arg.includes('=') ? arg.split(/=(.*)/s) : [arg];
		const value = (): string | undefined => inline ?? argv[++i];
		switch (flag) {
			case '--host':
				o.host = value() ?? '127.0.0.1';
				break;
			case '--port':
				o.port = number(flag, value(), (n) => Number.isInteger(n) && n >= 0 && n <= 65535);
				break;
			case '--seed':
				o.seed = number(flag, value(), Number.isInteger);
				break;
			case '--pace':
				o.pace = number(flag, value(), (n) => Number.isFinite(n) && n > 0);
				break;
			case '--runs':
				o.runs = number(flag, value(), (n) => Number.isInteger(n) && n >= 1);
				break;
			case '--wait':
				o.waitForClient = true;
				break;
			case '--lf':
				o.eol = '\n';
				break;
			case '--help':
			case '-h':
				o.help = true;
				break;
			default:
				console.error(`Unknown option ${arg}\n\n${USAGE}`);
				process.exit(2);
		}
	}
	return o;
}

async function main(): Promise<void> {
	const opts = parseSimArgs(process.argv.slice(2));
	if (opts.help) {
		console.log(USAGE);
		return;
	}
	const t0 = Date.now();
	const sim = await startTimerSim({
		...opts,
		onLine: (line, run) =>
			console.log(
				`${((Date.now() - t0) / 1000).toFixed(2).padStart(8)} s  run ${run + 1}  ${line}`
			),
		onRun: (run, index) =>
			console.log(
				`           run ${index + 1}: ${run.outcome}${run.elapsedCs === null ? '' : ` ${(run.elapsedCs / 100).toFixed(2)} s`}`
			)
	});
	console.log(
		`Simulated chronometer on tcp:${sim.host}:${sim.port}, seed ${sim.seed}, pace ${opts.pace ?? 1}`
	);
	console.log(`Connect the service: npx tsx server/main.ts --timer tcp:${sim.host}:${sim.port}`);
	const stop = (): void => {
		void sim.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	await sim.done;
	if (opts.runs !== undefined) await sim.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	main().catch((e: unknown) => {
		console.error(e instanceof Error ? e.message : e);
		process.exit(1);
	});
}
