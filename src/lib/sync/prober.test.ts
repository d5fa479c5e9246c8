import { describe, expect, it } from 'vitest';
import { Prober } from './prober';
import { PROBE_JITTER, PROBE_MS, Reachability } from './reachability';

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

class FakeClock {
	time = 1_000_000;
	#timers = new Map<number, { at: number; fn: () => void }>();
	#next = 1;
	now = (): number => this.time;
	setTimeout = (fn: () => void, ms: number): unknown => {
		const id = this.#next++;
		this.#timers.set(id, { at: this.time + ms, fn });
		return id;
	};
	clearTimeout = (handle: unknown): void => void this.#timers.delete(handle as number);
	get armed(): number {
		return this.#timers.size;
	}
	async advance(ms: number): Promise<void> {
		const end = this.time + ms;
		for (;;) {
			const due = [...this.#timers.entries()]
				.filter(([, t]) => t.at <= end)
				.sort((a, b) => a[1].at - b[1].at)[0];
			if (!due) break;
			this.#timers.delete(due[0]);
			this.time = due[1].at;
			due[1].fn();
			await flush();
		}
		this.time = end;
	}
}

/** A service the test switches between 'down', 'busy' (503) and 'up'; the probe reports to r. */
function setUp(random = () => 0.5) {
	const clock = new FakeClock();
	const reachability = new Reachability();
	const world = { service: 'down' as 'down' | 'busy' | 'up' };
	const probes: number[] = [];
	const prober = new Prober({
		reachability,
		clock,
		random,
		probe: async () => {
			probes.push(clock.time);
			const t = clock.time;
			if (world.service === 'down') reachability.observe({ startedAt: t, at: t, code: 'network' });
			else
				reachability.observe({ startedAt: t, at: t, status: world.service === 'up' ? 304 : 503 });
		}
	});
	return { clock, reachability, world, probes, prober };
}

describe('Prober', () => {
	it('probes nothing while nothing needs the service, whatever its state', async () => {
		const { clock, reachability, probes } = setUp();
		reachability.observe({ startedAt: clock.time, at: clock.time, code: 'network' });
		await clock.advance(10 * 60_000);
		expect(probes).toEqual([]);
	});

	it('probes about every PROBE_MS while results wait and the service cannot be reached, and stops when it answers', async () => {
		const { clock, reachability, world, probes, prober } = setUp();
		const start = clock.time;
		reachability.observe({ startedAt: start, at: start, code: 'network' });
		prober.setWanted(true);
		await clock.advance(60_000);
		const gaps = probes.map((t, i) => t - (probes[i - 1] ?? start));
		expect(gaps.length).toBe(12);
		for (const gap of gaps) {
			expect(gap).toBeGreaterThanOrEqual(PROBE_MS * (1 - PROBE_JITTER));
			expect(gap).toBeLessThanOrEqual(PROBE_MS * (1 + PROBE_JITTER));
		}
		world.service = 'up';
		await clock.advance(PROBE_MS * (1 + PROBE_JITTER));
		expect(reachability.healthy).toBe(true);
		const count = probes.length;
		await clock.advance(10 * 60_000);
		expect(probes.length).toBe(count);
		expect(clock.armed).toBe(0);
	});

	it('check(): probes at once while the service answers (a request hangs), not again before the gap, never offline', async () => {
		const { clock, reachability, world, probes, prober } = setUp();
		world.service = 'up';
		reachability.observe({ startedAt: clock.time, at: clock.time, status: 200 });
		expect(reachability.healthy).toBe(true);
		prober.check();
		await clock.advance(0);
		expect(probes).toEqual([clock.time]);
		// Healthy: nothing more is armed, and the probe's answer kept it so.
		await clock.advance(60_000);
		expect(probes.length).toBe(1);
		reachability.setOnline(false);
		prober.check();
		await clock.advance(0);
		expect(probes.length).toBe(1);
	});

	it('probes at its context’s own interval (the mirror’s 2 s) when given one', async () => {
		const clock = new FakeClock();
		const reachability = new Reachability({ probeMs: 2_000 });
		const probes: number[] = [];
		const prober = new Prober({
			reachability,
			clock,
			random: () => 0.5,
			probe: async () => {
				probes.push(clock.time);
				reachability.observe({ startedAt: clock.time, at: clock.time, code: 'network' });
			}
		});
		reachability.observe({ startedAt: clock.time, at: clock.time, code: 'network' });
		prober.setWanted(true);
		await clock.advance(10_000);
		expect(probes.length).toBe(5);
	});

	it('stops when nothing waits any more, and while the device is offline', async () => {
		const { clock, reachability, probes, prober } = setUp();
		reachability.observe({ startedAt: clock.time, at: clock.time, code: 'network' });
		prober.setWanted(true);
		await clock.advance(PROBE_MS * 2);
		prober.setWanted(false);
		const n = probes.length;
		await clock.advance(60_000);
		expect(probes.length).toBe(n);
		prober.setWanted(true);
		reachability.setOnline(false);
		await clock.advance(60_000);
		expect(probes.length).toBe(n);
		reachability.setOnline(true);
		await clock.advance(PROBE_MS * 2);
		expect(probes.length).toBeGreaterThan(n);
	});

	it('backs off against a busy service: on average at most one probe per 10 s after the first minute', async () => {
		let seed = 7;
		// A seeded random source: the jitter differs per probe, the test reruns the same.
		const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
		const { clock, reachability, world, probes, prober } = setUp(random);
		world.service = 'busy';
		const start = clock.time;
		reachability.observe({ startedAt: start, at: start, status: 503 });
		prober.setWanted(true);
		await clock.advance(10 * 60_000);
		const late = probes.filter((t) => t - start > 60_000).length;
		expect(late).toBeLessThanOrEqual(54);
		expect(late).toBeGreaterThan(0);
	});

	it('now() probes at once, but never twice within the shortest wait', async () => {
		const { clock, reachability, probes, prober } = setUp();
		prober.now();
		await flush();
		expect(probes).toHaveLength(1);
		expect(reachability.view.state).toBe('unreachable');
		prober.now();
		await flush();
		expect(probes).toHaveLength(1);
		await clock.advance(PROBE_MS);
		prober.now();
		await flush();
		expect(probes).toHaveLength(2);
	});

	it('now() does nothing while the service answers', async () => {
		const { clock, reachability, probes, prober } = setUp();
		reachability.observe({ startedAt: clock.time, at: clock.time, status: 200 });
		prober.now();
		await flush();
		expect(probes).toEqual([]);
	});
});
