// The timer bridge: a chronometer on TCP (a scripted fake, or the simulator of
// scripts/timer-sim.ts) or on a serial device (a FIFO here) read by the service and relayed to
// the ring's `timer` event stream; the link only where a timer is configured; reconnection with
// status events; shutdown; the relay latency.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTimerSim, type SimRun, type TimerSim } from '../../scripts/timer-sim.ts';
import type { TimerStatus } from './timer.ts';
import {
	call,
	openSse,
	startSmall,
	useServices,
	type CompetitionJson,
	type CompetitionList,
	type ErrorJson,
	type SseMessage,
	type SseStream,
	type Started
} from '../test-support.ts';

const start = useServices();
const FAST = { reconnectMinMs: 20, reconnectMaxMs: 100, connectTimeoutMs: 1000 };

/** A scripted chronometer: a TCP server the service connects to, that writes what it is told. */
interface FakeChronometer {
	port: number;
	/** Resolves with the next connection (or the current one when already connected). */
	connected(): Promise<Socket>;
	/** Writes to every connected client. */
	write(text: string): void;
	/** Destroys every connection (a pulled cable, a chronometer switched off). */
	drop(): void;
	/** How many connections were accepted so far. */
	accepted(): number;
	close(): Promise<void>;
}

const chronometers: FakeChronometer[] = [];
const sims: TimerSim[] = [];
const streams: SseStream[] = [];
afterEach(async () => {
	for (const s of streams.splice(0)) s.close();
	for (const c of chronometers.splice(0)) await c.close();
	for (const s of sims.splice(0)) await s.close();
});

async function fakeChronometer(port = 0): Promise<FakeChronometer> {
	const sockets = new Set<Socket>();
	let waiting: ((s: Socket) => void)[] = [];
	let accepted = 0;
	const server: Server = createServer((socket) => {
		accepted++;
		socket.setNoDelay(true);
		socket.on('error', () => {});
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		for (const w of waiting) w(socket);
		waiting = [];
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const address = server.address();
	const c: FakeChronometer = {
		port: typeof address === 'object' && address ? address.port : port,
		connected: () => {
			const current = [...sockets][0];
			return current ? Promise.resolve(current) : new Promise((r) => waiting.push(r));
		},
		write: (text) => {
			for (const s of sockets) s.write(text);
		},
		drop: () => {
			for (const s of sockets) s.destroy();
		},
		accepted: () => accepted,
		close: () =>
			new Promise((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve());
			})
	};
	chronometers.push(c);
	return c;
}

type Ring = CompetitionJson['rings'][number] & {
	_links: { timer?: { href: string } };
};

async function allCompetitions(s: Started): Promise<CompetitionJson[]> {
	return (await call<CompetitionList>(`${s.entry}?size=50`)).body._embedded!.competitions;
}

async function inProgress(s: Started): Promise<CompetitionJson> {
	return (await allCompetitions(s)).find((c) => c.state === 'IN_PROGRESS')!;
}

/** Every ring of every competition that links a timer: [competition id, ring id, href]. */
async function timerLinks(s: Started): Promise<[number, number, string][]> {
	const out: [number, number, string][] = [];
	for (const c of await allCompetitions(s)) {
		// The single competition says the same as the list.
		const one = await call<CompetitionJson>(c._links.self.href);
		expect(one.body.rings).toEqual(c.rings);
		for (const r of c.rings as Ring[]) {
			if (r._links.timer) out.push([c.id, r.id, r._links.timer.href]);
		}
	}
	return out;
}

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((r) => setTimeout(r, 5));
	}
}

/** Opens a timer stream; returns it with its first message (the current status). */
async function openTimer(href: string, headers: Record<string, string> = {}) {
	const stream = await openSse(href, headers);
	streams.push(stream);
	expect(stream.status).toBe(200);
	expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
	return stream;
}

const dataOf = <T>(m: SseMessage | null): T => JSON.parse(m!.data) as T;

interface Relayed {
	type: string;
	receivedAt: number;
	[k: string]: unknown;
}

/** Reads events until one named `event` comes; returns it (skips heartbeats). */
async function nextNamed(stream: SseStream, event: string, timeoutMs = 3000): Promise<SseMessage> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const m = await stream.nextEvent(Math.max(1, deadline - Date.now()));
		if (!m) throw new Error(`stream ended before '${event}'`);
		if (m.event === event) return m;
	}
}

/** A service with a timer on the fake chronometer, connected, and its ring's stream open. */
async function bridged(timer?: string) {
	const chrono = await fakeChronometer();
	const s = await start({
		timer: timer ?? `tcp:127.0.0.1:${chrono.port}`,
		timerOptions: FAST
	});
	await chrono.connected();
	await until(() => s.svc.timerStatus()[0]?.connected === true);
	const [[, , href]] = (await timerLinks(s)) as [[number, number, string]];
	const stream = await openTimer(href);
	const status = dataOf<TimerStatus>(await stream.nextEvent());
	expect(status).toMatchObject({ connected: true, source: 'tcp' });
	return { chrono, s, href, stream };
}

describe('the timer link', () => {
	it('is on no ring, and the stream path answers 404, without a timer', async () => {
		const s = await start();
		expect(await timerLinks(s)).toEqual([]);
		const c = await inProgress(s);
		const a = await call<ErrorJson>(`${c._links.self.href}/rings/${c.rings[0]!.id}/timer`);
		expect(a.status).toBe(404);
		expect(a.body).toMatchObject({ status: 404, error: 'Not Found' });
		expect(s.svc.timerStatus()).toEqual([]);
	});

	it('is on the first ring of the competition in progress by default, and only there', async () => {
		const chrono = await fakeChronometer();
		const s = await start({ timer: `tcp:127.0.0.1:${chrono.port}`, timerOptions: FAST });
		const c = await inProgress(s);
		const first = c.rings[0]!;
		expect(c.rings.length).toBeGreaterThan(1);
		expect(await timerLinks(s)).toEqual([
			[c.id, first.id, `${c._links.self.href}/rings/${first.id}/timer`]
		]);
		// The ring's other links are unchanged; timer comes last.
		expect(Object.keys((c.rings[0] as Ring)._links)).toEqual([
			'competitionRuns',
			'nextDogRuns',
			'timer'
		]);
		// Another ring of the competition, a ring of another competition, bad ids.
		const other = c.rings[1]!;
		expect((await call(`${c._links.self.href}/rings/${other.id}/timer`)).status).toBe(404);
		const elsewhere = (await allCompetitions(s)).find((x) => x.id !== c.id && x.rings.length)!;
		expect((await call(`${elsewhere._links.self.href}/rings/${first.id}/timer`)).status).toBe(404);
		expect((await call(`${c._links.self.href}/rings/x/timer`)).status).toBe(400);
		expect((await call(`${s.entry}/99999/rings/${first.id}/timer`)).status).toBe(404);
	});

	it('is on the ring given with ring=, and the CLI form parses the same', async () => {
		const chrono = await fakeChronometer();
		const probe = await startSmall();
		const c = await inProgress(probe);
		await probe.svc.close();
		const second = c.rings[1]!.id;
		const s = await start({
			timer: [`ring=${second},tcp:127.0.0.1:${chrono.port}`],
			timerOptions: FAST
		});
		expect(await timerLinks(s)).toEqual([
			[c.id, second, `${s.entry}/${c.id}/rings/${second}/timer`]
		]);
		expect(s.svc.timerStatus()).toMatchObject([
			{ competitionId: c.id, ringId: second, spec: { kind: 'tcp', port: chrono.port } }
		]);
	});

	it('refuses settings that cannot work, before listening', async () => {
		await expect(start({ timer: 'tcp:nohost' })).rejects.toThrow(/tcp:<host>:<port>/);
		await expect(start({ timer: 'udp:1.2.3.4:5' })).rejects.toThrow(/expected tcp/);
		await expect(start({ timer: 'serial:/dev/ttyUSB0@fast' })).rejects.toThrow(/serial:/);
		await expect(start({ timer: 'ring=abc,tcp:127.0.0.1:7700' })).rejects.toThrow(/ring=/);
		await expect(start({ timer: 'ring=99999,tcp:127.0.0.1:7700' })).rejects.toThrow(
			/no ring 99999/
		);
		await expect(start({ timer: ['tcp:127.0.0.1:7700', 'tcp:127.0.0.1:7701'] })).rejects.toThrow(
			/already has a timer/
		);
		await expect(
			start({ timer: 'tcp:127.0.0.1:7700', timerOptions: { reconnectMinMs: 0 } })
		).rejects.toThrow(/reconnectMinMs/);
		await expect(
			start({ upstream: 'http://127.0.0.1:9/', timer: 'tcp:127.0.0.1:7700' })
		).rejects.toThrow(/proxy mode/);
	});
});

describe('the timer stream', () => {
	it('relays each event of the chronometer with the time the service received it', async () => {
		const { chrono, stream } = await bridged();
		const before = Date.now();
		chrono.write('OK\r\nSTART 100000\r\n');
		const ready = dataOf<Relayed>(await nextNamed(stream, 'timing'));
		const startEvent = dataOf<Relayed>(await nextNamed(stream, 'timing'));
		expect(ready.type).toBe('ready');
		expect(startEvent.type).toBe('start');
		expect(ready.receivedAt).toBeGreaterThanOrEqual(before);
		expect(ready.receivedAt).toBeLessThanOrEqual(Date.now());
		chrono.write('STOP 138637\r\n');
		const stop = await nextNamed(stream, 'timing');
		expect(stop.id).toMatch(/^[a-z0-9]+-3$/);
		// 38.637 s: hundredths, truncated.
		expect(dataOf<Relayed>(stop)).toMatchObject({ type: 'stop', elapsed: 3863 });
	});

	it('joins a line split across TCP packets, and sends nothing before its end', async () => {
		const { chrono, stream } = await bridged();
		chrono.write('START 5000\n');
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing')).type).toBe('start');
		for (const part of ['ST', 'OP 4', '5', '12', '3']) {
			chrono.write(part);
			await new Promise((r) => setTimeout(r, 30));
		}
		await expect(stream.nextEvent(150)).rejects.toThrow(/no event-stream message/);
		chrono.write('\n');
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing'))).toMatchObject({
			type: 'stop',
			elapsed: 4012
		});
	});

	it('says when the chronometer drops, reconnects, and relays again', async () => {
		const { chrono, s, stream } = await bridged();
		const accepted = chrono.accepted();
		chrono.drop();
		const down = dataOf<TimerStatus>(await nextNamed(stream, 'status'));
		expect(down).toMatchObject({ connected: false, source: 'tcp' });
		expect(down.detail).toMatch(/retrying in \d+ ms/);
		const up = dataOf<TimerStatus>(await nextNamed(stream, 'status'));
		expect(up).toMatchObject({ connected: true, source: 'tcp' });
		expect(chrono.accepted()).toBe(accepted + 1);
		await chrono.connected();
		chrono.write('OK\n');
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing')).type).toBe('ready');
		expect(s.svc.timerStatus()[0]).toMatchObject({ connected: true });
	});

	it('keeps trying while the chronometer is off, and connects when it comes up', async () => {
		const probe = await fakeChronometer();
		const port = probe.port;
		await probe.close();
		chronometers.splice(chronometers.indexOf(probe), 1);
		const s = await start({ timer: `tcp:127.0.0.1:${port}`, timerOptions: FAST });
		const [[, , href]] = (await timerLinks(s)) as [[number, number, string]];
		const stream = await openTimer(href);
		const first = dataOf<TimerStatus>(await stream.nextEvent());
		expect(first.connected).toBe(false);
		await until(() => /ECONNREFUSED|retrying/.test(s.svc.timerStatus()[0]!.detail));
		const chrono = await fakeChronometer(port);
		await chrono.connected();
		expect(dataOf<TimerStatus>(await nextNamed(stream, 'status')).connected).toBe(true);
	});

	it('reports half a line as cut when the connection drops, and starts clean', async () => {
		const { chrono, stream } = await bridged();
		chrono.write('START 1000\nSTOP 4');
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing')).type).toBe('start');
		await new Promise((r) => setTimeout(r, 30));
		chrono.drop();
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing'))).toMatchObject({
			type: 'garbage',
			line: 'STOP 4',
			reason: 'cut'
		});
		expect(dataOf<TimerStatus>(await nextNamed(stream, 'status')).connected).toBe(false);
		expect(dataOf<TimerStatus>(await nextNamed(stream, 'status')).connected).toBe(true);
		await chrono.connected();
		// "4" + "0000\n" would be a wrong time: the half line is gone, this is a fresh one.
		chrono.write('0000\nOK\n');
		const next = dataOf<Relayed>(await nextNamed(stream, 'timing'));
		expect(next.type).not.toBe('stop');
	});

	it('replays the events after Last-Event-ID to a stream that reconnects', async () => {
		const { chrono, href, stream } = await bridged();
		chrono.write('OK\n');
		const seen = await nextNamed(stream, 'timing');
		stream.close();
		chrono.write('START 1000\nSTOP 31000\n');
		await new Promise((r) => setTimeout(r, 100));
		const again = await openTimer(href, { 'Last-Event-ID': seen.id! });
		const replayed = [await again.nextEvent(), await again.nextEvent(), await again.nextEvent()];
		expect(replayed.map((m) => m!.event)).toEqual(['timing', 'timing', 'status']);
		expect(replayed.map((m) => JSON.parse(m!.data).type)).toEqual(['start', 'stop', undefined]);
		// The status carries the last id: reconnecting after it misses nothing.
		expect(replayed[2]!.id).toMatch(/^[a-z0-9]+-3$/);
		// An id of another process (a restarted service): nothing replayed.
		const other = await openTimer(href, { 'Last-Event-ID': 'zzz-1' });
		expect((await other.nextEvent())!.event).toBe('status');
	});

	it('serves every phone of the ring the same events, and HEAD the headers only', async () => {
		const { chrono, href, stream } = await bridged();
		const second = await openTimer(href);
		await second.nextEvent();
		chrono.write('DOWN 15\n');
		const a = dataOf<Relayed>(await nextNamed(stream, 'timing'));
		const b = dataOf<Relayed>(await nextNamed(second, 'timing'));
		expect(a).toEqual(b);
		expect(a.type).toBe('countdown');
		const head = await fetch(href, { method: 'HEAD' });
		expect(head.status).toBe(200);
		expect(await head.text()).toBe('');
	});

	it('stops everything when the service closes: streams end, the chronometer is let go', async () => {
		const chrono = await fakeChronometer();
		const s = await startSmall({ timer: `tcp:127.0.0.1:${chrono.port}`, timerOptions: FAST });
		await chrono.connected();
		const [[, , href]] = (await timerLinks(s)) as [[number, number, string]];
		const stream = await openTimer(href);
		await stream.nextEvent();
		const socket = await chrono.connected();
		const socketClosed = new Promise((r) => socket.once('close', r));
		const t0 = Date.now();
		await s.svc.close();
		expect(Date.now() - t0).toBeLessThan(1500);
		expect(await stream.next()).toBeNull();
		await socketClosed;
		const accepted = chrono.accepted();
		await new Promise((r) => setTimeout(r, 300));
		expect(chrono.accepted()).toBe(accepted);
	});

	it('relays within a short time: p50 and p95 over 200 events', async () => {
		const { chrono, stream } = await bridged();
		const cycle = (i: number): string[] => {
			const t = 10_000 + i * 100_000;
			return ['OK', `START ${t}`, `INT ${t + 15_000}`, `STOP ${t + 38_637}`, 'RESET'];
		};
		const lines = Array.from({ length: 40 }, (_, i) => cycle(i)).flat();
		expect(lines).toHaveLength(200);
		const sent: number[] = [];
		const got: number[] = [];
		const reading = (async () => {
			while (got.length < lines.length) {
				const m = await stream.nextEvent(5000);
				if (m?.event === 'timing') got.push(performance.now());
			}
		})();
		for (const line of lines) {
			sent.push(performance.now());
			chrono.write(`${line}\r\n`);
			await new Promise((r) => setTimeout(r, 5));
		}
		await reading;
		const ms = got.map((t, i) => t - sent[i]!).sort((a, b) => a - b);
		const pick = (q: number): number => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
		const p50 = pick(0.5);
		const p95 = pick(0.95);
		console.log(
			`timer relay latency over ${ms.length} events: p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, max ${ms[ms.length - 1]!.toFixed(2)} ms`
		);
		expect(p95).toBeLessThan(200);
	});
});

describe('the simulator through the bridge', () => {
	it('relays simulated runs: each STOP with the run’s time, FAIL and missing stops as sent', async () => {
		// The phone's stream is open before the simulator comes up (the bridge keeps trying), so
		// that it sees every line from the first.
		const probe = await fakeChronometer();
		const port = probe.port;
		await probe.close();
		chronometers.splice(chronometers.indexOf(probe), 1);
		const s = await start({ timer: `tcp:127.0.0.1:${port}`, timerOptions: FAST });
		const [[, , href]] = (await timerLinks(s)) as [[number, number, string]];
		const stream = await openTimer(href);
		expect(dataOf<TimerStatus>(await stream.nextEvent()).connected).toBe(false);
		const runs: SimRun[] = [];
		const lines: string[] = [];
		const sim = await startTimerSim({
			port,
			seed: 7,
			pace: 400,
			runs: 8,
			waitForClient: true,
			onRun: (r) => runs.push(r),
			onLine: (l) => lines.push(l)
		});
		sims.push(sim);
		expect(dataOf<TimerStatus>(await nextNamed(stream, 'status')).connected).toBe(true);
		const events: Relayed[] = [];
		let ended = false;
		void sim.done.then(() => (ended = true));
		while (!ended || events.filter((e) => e.type === 'reset').length < runs.length) {
			const m = await stream.nextEvent(5000);
			if (m?.event === 'timing') events.push(dataOf<Relayed>(m));
		}
		// Each run's STOP shows its elapsed time, in order; FAIL where the run failed.
		const stops = events.filter((e) => e.type === 'stop').map((e) => e.elapsed);
		expect(stops).toEqual(runs.filter((r) => r.outcome === 'stop').map((r) => r.elapsedCs));
		expect(events.filter((e) => e.type === 'fail')).toHaveLength(
			lines.filter((l) => l === 'FAIL').length
		);
		expect(events).toHaveLength(lines.length);
		// This seed has every outcome.
		expect(new Set(runs.map((r) => r.outcome))).toEqual(new Set(['stop', 'fail', 'no-stop']));
		expect(events.filter((e) => e.type === 'garbage')).toEqual([]);
	});

	it('is seeded: the same seed gives the same runs', async () => {
		const lines = async (seed: number): Promise<string[]> => {
			const out: string[] = [];
			const sim = await startTimerSim({
				port: 0,
				seed,
				pace: 5000,
				runs: 3,
				onLine: (l) => out.push(l)
			});
			sims.push(sim);
			await sim.done;
			return out;
		};
		const a = await lines(7);
		expect(a).toEqual(await lines(7));
		expect(a).not.toEqual(await lines(8));
		expect(a[0]).toBe('OK');
		expect(a.filter((l) => l === 'RESET')).toHaveLength(3);
	});
});

describe.skipIf(process.platform === 'win32')('a serial timer', () => {
	it('reads the device file (here a FIFO) and relays its lines', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'ringside-serial-'));
		const device = join(dir, 'ttyFAKE0');
		execFileSync('mkfifo', [device]);
		const s = await start({ timer: `serial:${device}@9600`, timerOptions: FAST });
		await until(() => s.svc.timerStatus()[0]?.connected === true);
		expect(s.svc.timerStatus()[0]).toMatchObject({
			source: 'serial',
			spec: { kind: 'serial', baud: 9600 }
		});
		const [[, , href]] = (await timerLinks(s)) as [[number, number, string]];
		const stream = await openTimer(href);
		expect(dataOf<TimerStatus>(await stream.nextEvent())).toMatchObject({
			connected: true,
			source: 'serial'
		});
		const fd = openSync(device, 'w');
		try {
			writeSync(fd, 'START 2000\r\nST');
			await new Promise((r) => setTimeout(r, 30));
			writeSync(fd, 'OP 47990\r\n');
		} finally {
			closeSync(fd);
		}
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing')).type).toBe('start');
		expect(dataOf<Relayed>(await nextNamed(stream, 'timing'))).toMatchObject({
			type: 'stop',
			elapsed: 4599
		});
	});

	it('retries a device that is not there, and says why', async () => {
		const s = await start({ timer: 'serial:/dev/ringside-no-such-tty@9600', timerOptions: FAST });
		await until(() => /ENOENT/.test(s.svc.timerStatus()[0]!.detail));
		expect(s.svc.timerStatus()[0]).toMatchObject({ connected: false });
	});
});
