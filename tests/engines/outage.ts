import { createServer, type Socket } from 'node:net';
import type { ServiceHandle } from '../e2e/fixtures';
import type { DogRunJson } from '../e2e/support/service-data';
import { onService, seconds, shownTime, type Entry, type Steward } from './steward';

/**
 * An outage of the results service while a steward keeps saving, then the time until every
 * result is on the service after it listens again: flow d (tests/engines/flows.ts) runs one,
 * the bench (bench/parts/outage.ts) runs many with random durations.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A result as the service must end up holding it. */
export type Expected = Map<number, Required<Entry>>;

/**
 * The steward's shift on a run nobody had recorded: Save & next from dog to dog, round again
 * after the last. After each save the next dog's form must show what it holds: nothing yet, or
 * what this shift saved on it in an earlier round.
 */
export class Shift {
	#index = 0;
	readonly #saved = new Map<number, string>();

	constructor(readonly steward: Steward) {}

	get dog(): DogRunJson {
		return this.steward.scene.dogRuns[this.#index]!;
	}

	/** Enters `entry` on the dog on screen and taps Save & next; answers the dog it was for. */
	async save(entry: Entry): Promise<DogRunJson> {
		const dog = this.dog;
		await this.steward.enter(dog, entry);
		const next = await this.steward.saveAndNext(dog);
		this.#saved.set(dog.id, shownTime(seconds(entry)));
		if (next) {
			this.#index += 1;
		} else {
			// The last dog of the run: back to the run and its first dog (a correction round).
			this.#index = 0;
			await this.steward.backToRun();
			await this.steward.openDog(this.dog);
		}
		await this.steward.d.waitForText({ testid: 'time-input' }, this.#saved.get(this.dog.id) ?? '');
		return dog;
	}
}

/** One request line the phone sent to the service's port while the service was away. */
export interface RequestLine {
	/** performance.now() when it arrived. */
	at: number;
	method: string;
	path: string;
}

/**
 * Stands in for the stopped service on its port, to count what the phone sends meanwhile: each
 * connection's request line is noted, then the connection is reset, so the phone gets a network
 * error as from a stopped service (there, the connection is refused and nothing can be counted).
 */
export async function listenDark(
	port: number
): Promise<{ lines: RequestLine[]; close(): Promise<void> }> {
	const lines: RequestLine[] = [];
	const open = new Set<Socket>();
	const server = createServer((socket) => {
		open.add(socket);
		socket.on('error', () => {});
		socket.once('close', () => open.delete(socket));
		const timer = setTimeout(() => socket.resetAndDestroy(), 2_000);
		socket.once('data', (chunk: Buffer) => {
			clearTimeout(timer);
			const [method = '?', path = '?'] = chunk.toString('latin1').split('\r\n')[0]!.split(' ');
			lines.push({ at: performance.now(), method, path });
			socket.resetAndDestroy();
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve());
	});
	return {
		lines,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of open) socket.resetAndDestroy();
				server.close(() => resolve());
			})
	};
}

/**
 * The phone's own attempts among `lines`: Firefox sends a GET again at once, up to 10 times,
 * when its connection is reset before an answer (a stopped service refuses instead, which it
 * does not repeat), so the same request line within `windowMs` of the last is the same attempt.
 */
export function attempts(lines: readonly RequestLine[], windowMs = 500): RequestLine[] {
	const last = new Map<string, number>();
	const kept: RequestLine[] = [];
	for (const line of lines) {
		const key = `${line.method} ${line.path}`;
		const before = last.get(key);
		last.set(key, line.at);
		if (before !== undefined && line.at - before < windowMs) continue;
		kept.push(line);
	}
	return kept;
}

/** One reading of the header's connectivity pill. */
export interface PillSample {
	/** ms after the service stopped. */
	at: number;
	text: string | null;
}

export interface OutagePlan {
	durationMs: number;
	/** Each Save & next: when (ms after the stop) and what. */
	saves: readonly { atMs: number; entry: Entry }[];
}

export interface OutageResult {
	outageMs: number;
	/** What the service must hold at the end (the last save of each dog). */
	expected: Expected;
	/** performance.now() when the restarted service listened. */
	listenedAt: number;
	/** ms from then until every result was on the service; null: not within the cap. */
	deliveredMs: number | null;
	pill: PillSample[];
	/** What reached the port while the service was away (only with `record`). */
	dark: RequestLine[];
}

/** Whether the service holds every expected result (its own database: no request). */
export function allOnService(handle: ServiceHandle, expected: Expected): boolean {
	for (const [id, entry] of expected) {
		const now = onService(handle, id);
		if (now.time !== seconds(entry) || now.faults !== entry.faults) return false;
		if (now.refusals !== entry.refusals) return false;
	}
	return true;
}

/**
 * Stops the service, saves at the plan's moments (reading the header's pill in between, every
 * 500 ms), starts it again on the same port and file after `durationMs`, and polls its data every
 * 50 ms until every result is there (or `capMs` passed). With `record`, a stand-in counts what
 * reaches the port meanwhile (listenDark).
 */
export async function runOutage(
	shift: Shift,
	handle: ServiceHandle,
	plan: OutagePlan,
	options: {
		capMs: number;
		record?: boolean;
		/** After the last save, while the service is still away. */
		onStopped?: () => Promise<void>;
		/** Right after the service listens again (the clock is already running). */
		onListening?: () => Promise<void>;
	}
): Promise<OutageResult> {
	const { steward } = shift;
	const port = Number(new URL(handle.url).port);
	const expected: Expected = new Map();
	const pill: PillSample[] = [];

	await handle.stop();
	const stoppedAt = performance.now();
	const dark = options.record ? await listenDark(port) : null;
	const elapsed = () => performance.now() - stoppedAt;
	const sample = async () => {
		pill.push({ at: elapsed(), text: await steward.pill() });
	};
	const until = async (ms: number) => {
		while (elapsed() < ms) {
			await sample();
			await sleep(Math.max(0, Math.min(500, ms - elapsed())));
		}
	};
	for (const { atMs, entry } of plan.saves) {
		await until(atMs);
		const dog = await shift.save(entry);
		expected.set(dog.id, { faults: 0, refusals: 0, ...entry });
		await sample();
	}
	await options.onStopped?.();
	await until(plan.durationMs);
	await sample();
	const outageMs = elapsed();

	await dark?.close();
	await handle.start();
	const listenedAt = performance.now();
	await options.onListening?.();
	let deliveredMs: number | null = null;
	for (;;) {
		if (allOnService(handle, expected)) {
			deliveredMs = performance.now() - listenedAt;
			break;
		}
		if (performance.now() - listenedAt > options.capMs) break;
		await sleep(50);
	}
	return { outageMs, expected, listenedAt, deliveredMs, pill, dark: dark?.lines ?? [] };
}
