import { describe, expect, it } from 'vitest';
import { MIN_WAKE_MS, RECHECK_MS, ReplayScheduler, type Trigger } from './scheduler';

/** A clock whose time moves only when the test says, firing the timers that come due. */
class FakeClock {
	time = 0;
	#timers = new Map<number, { at: number; fn: () => void }>();
	#next = 1;

	now = (): number => this.time;
	setTimeout = (fn: () => void, ms: number): unknown => {
		const id = this.#next++;
		this.#timers.set(id, { at: this.time + ms, fn });
		return id;
	};
	clearTimeout = (handle: unknown): void => {
		this.#timers.delete(handle as number);
	};

	get pending(): number[] {
		return [...this.#timers.values()].map((t) => t.at).sort((a, b) => a - b);
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

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

function setUp(online = true) {
	const clock = new FakeClock();
	const calls: string[] = [];
	const errors: unknown[] = [];
	let failNext: unknown = null;
	const world = {
		online,
		/** The outbox's listener while the scheduler is started (its `watchOutbox`). */
		outbox: null as ((state: { unsent: number; dueAt: number | null }) => void) | null
	};
	const scheduler = new ReplayScheduler({
		replay: async () => {
			calls.push(`replay@${clock.time}`);
			if (failNext) {
				const e = failNext;
				failNext = null;
				throw e;
			}
		},
		makeDue: async (which) => void calls.push(`due:${which}`),
		registerBackgroundSync: async () => void calls.push('register'),
		online: () => world.online,
		watchOutbox: (next) => {
			world.outbox = next;
			return () => (world.outbox = null);
		},
		onError: (e) => errors.push(e),
		clock
	});
	return {
		clock,
		calls,
		errors,
		world,
		scheduler,
		failOnce: (e: unknown) => (failNext = e)
	};
}

describe('ReplayScheduler', () => {
	it('started, hears the outbox itself: a save makes it replay with nobody calling it', async () => {
		const { calls, scheduler, world, clock } = setUp();
		expect(world.outbox).toBeNull();
		scheduler.start();
		world.outbox?.({ unsent: 0, dueAt: null });
		clock.time = 5_000;
		// The steward saved: the outbox's commit is the only news.
		world.outbox?.({ unsent: 1, dueAt: 5_000 });
		await flush();
		expect(calls).toEqual(['replay@5000']);
		scheduler.stop();
		expect(world.outbox).toBeNull();
	});

	it('resumes at start what a closed app left unsent, and only then', async () => {
		const empty = setUp();
		empty.scheduler.outboxChanged({ unsent: 0, dueAt: null });
		await flush();
		expect(empty.calls).toEqual([]);

		const left = setUp();
		left.scheduler.outboxChanged({ unsent: 2, dueAt: 0 });
		left.scheduler.outboxChanged({ unsent: 2, dueAt: 0 });
		await flush();
		expect(left.calls).toEqual(['replay@0']);
	});

	it('wakes when the earliest waiting entry is due, not before, and once', async () => {
		const { clock, calls, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 1, dueAt: 240_000 });
		await clock.advance(239_999);
		expect(calls).toEqual([]);
		await clock.advance(1);
		expect(calls).toEqual(['replay@240000']);
		// A later change moves the wake-up; the old one does not fire as well.
		scheduler.outboxChanged({ unsent: 1, dueAt: 300_000 });
		scheduler.outboxChanged({ unsent: 1, dueAt: 310_000 });
		await clock.advance(80_000);
		expect(calls).toEqual(['replay@240000', 'replay@310000']);
	});

	it.each<Trigger>(['save', 'visible', 'timer', 'start'])(
		'%s replays due entries only: it never makes an entry due early',
		async (trigger) => {
			const { calls, scheduler } = setUp();
			scheduler.outboxChanged({ unsent: 1, dueAt: 240_000 });
			await flush();
			calls.length = 0;
			await scheduler.trigger(trigger);
			expect(calls).toEqual(['replay@0']);
		}
	);

	it('"Sync now" makes everything due; coming online only what waited for a network', async () => {
		const { calls, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 1, dueAt: 240_000 });
		await scheduler.trigger('sync-now');
		await scheduler.trigger('online');
		expect(calls).toEqual(['due:all', 'replay@0', 'due:unreachable', 'replay@0']);
	});

	it('the service answering again makes due only what waited for it, and replays at once', async () => {
		const { calls, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 3, dueAt: 240_000 });
		await scheduler.trigger('reachable');
		expect(calls).toEqual(['due:unreachable', 'replay@0']);
	});

	it('the service answering with nothing unsent loads and tries nothing', async () => {
		const { calls, scheduler } = setUp();
		await scheduler.trigger('reachable');
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		await scheduler.trigger('reachable');
		await scheduler.trigger('online');
		expect(calls).toEqual([]);
	});

	it('the service answering before the outbox was read: what waited for it goes at the first read', async () => {
		const { calls, scheduler } = setUp();
		await scheduler.trigger('reachable');
		scheduler.outboxChanged({ unsent: 2, dueAt: 240_000 });
		await flush();
		expect(calls).toEqual(['due:unreachable', 'replay@0']);
	});

	it('the service answering again while the browser says offline tries nothing', async () => {
		const { calls, scheduler } = setUp(false);
		scheduler.outboxChanged({ unsent: 1, dueAt: 240_000 });
		await scheduler.trigger('reachable');
		expect(calls).toEqual([]);
	});

	it('offline: nothing is tried but "Sync now"; the timer looks again later', async () => {
		const { clock, calls, scheduler, world } = setUp(false);
		scheduler.outboxChanged({ unsent: 1, dueAt: 1_000 });
		await scheduler.trigger('save');
		await scheduler.trigger('visible');
		await clock.advance(1_000);
		expect(calls).toEqual([]);
		expect(clock.pending).toEqual([1_000 + RECHECK_MS]);
		await scheduler.trigger('sync-now');
		expect(calls).toEqual(['due:all', 'replay@1000']);
		world.online = true;
		await clock.advance(RECHECK_MS);
		expect(calls).toEqual(['due:all', 'replay@1000', `replay@${1_000 + RECHECK_MS}`]);
	});

	it('visible with nothing unsent does nothing', async () => {
		const { calls, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		await scheduler.trigger('visible');
		await scheduler.trigger('start');
		expect(calls).toEqual([]);
	});

	it('a save is announced by the outbox alone: one replay at once, no second wake-up for it', async () => {
		const { clock, calls, scheduler } = setUp();
		clock.time = 10_000;
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 1, dueAt: 10_000 });
		await flush();
		expect(calls).toEqual(['replay@10000']);
		// The replay changes nothing (another tab holds the lock): one look again much later, and
		// the same state reported again starts nothing.
		scheduler.outboxChanged({ unsent: 1, dueAt: 10_000 });
		await flush();
		expect(calls).toEqual(['replay@10000']);
		expect(clock.pending).toEqual([10_000 + MIN_WAKE_MS]);
		await clock.advance(MIN_WAKE_MS);
		expect(calls).toEqual(['replay@10000', `replay@${10_000 + MIN_WAKE_MS}`]);
		expect(clock.pending).toEqual([10_000 + MIN_WAKE_MS + RECHECK_MS]);
	});

	it('an entry made due before a replay started waits for the timer (that replay had it)', async () => {
		const { clock, calls, scheduler } = setUp();
		clock.time = 10_000;
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 1, dueAt: 60_000 });
		await scheduler.trigger('reachable');
		expect(calls).toEqual(['due:unreachable', 'replay@10000']);
		// makeDue's change arrives after the replay started: no second replay for it.
		scheduler.outboxChanged({ unsent: 1, dueAt: 10_000 });
		await flush();
		expect(calls).toEqual(['due:unreachable', 'replay@10000']);
	});

	it('registers Background Sync only when hidden with something unsent', async () => {
		const { calls, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.hidden();
		await scheduler.trigger('save');
		expect(calls).toEqual(['replay@0']);
		scheduler.outboxChanged({ unsent: 1, dueAt: 60_000 });
		scheduler.hidden();
		await flush();
		expect(calls).toEqual(['replay@0', 'register']);
	});

	it('reports a replay that fails to run, and goes on', async () => {
		const { calls, errors, failOnce, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 1, dueAt: 60_000 });
		const boom = new Error('storage broke');
		failOnce(boom);
		await scheduler.trigger('save');
		await scheduler.trigger('save');
		expect(errors).toEqual([boom]);
		expect(calls).toEqual(['replay@0', 'replay@0']);
	});

	it('stops: no timer, no replay', async () => {
		const { clock, calls, scheduler } = setUp();
		scheduler.outboxChanged({ unsent: 0, dueAt: null });
		scheduler.outboxChanged({ unsent: 1, dueAt: 1_000 });
		scheduler.stop();
		await clock.advance(5_000);
		await scheduler.trigger('save');
		expect(calls).toEqual([]);
		expect(clock.pending).toEqual([]);
	});
});
