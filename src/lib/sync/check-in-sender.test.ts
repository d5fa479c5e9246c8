import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { HalClient } from '$lib/api/hal-client';
import { db } from '$lib/db/db';
import { storedCheckIns } from '$lib/db/check-in-store';
import { markDog } from './check-in';
import { CHECK_IN_RETRY_MS, CheckInSender } from './check-in-sender';

const CID = 1;
const dogRun = (id: number) => ({
	id,
	_links: {
		self: { href: `http://svc/dogRuns/${id}` },
		checkIn: { href: `http://svc/dogRuns/${id}/checkIn` }
	}
});
const t = (s: number) => new Date(Date.UTC(2026, 4, 12, 9, 0, s));

/** The page as the sender sees it: a network switch, a wake-up, an interval, a service. */
function page() {
	const sent: string[] = [];
	const waiting: number[] = [];
	const world = {
		online: true,
		wake: null as (() => void) | null,
		tick: null as (() => void) | null,
		every: 0,
		/** Holds each PUT until released, to take a mark during a round. */
		hold: null as Promise<void> | null
	};
	const client = {
		async send(_m: string, href: string, body: { status: string | null; markedAt: string }) {
			if (world.hold) await world.hold;
			sent.push(href);
			const dogRunId = Number(/dogRuns\/(\d+)/.exec(href)![1]);
			return {
				status: 200,
				body: { dogRunId, competitionId: CID, ...body, _links: { self: { href } } }
			};
		}
	} as unknown as HalClient;
	const sender = new CheckInSender({
		client: async () => client,
		online: () => world.online,
		onWake: (wake) => {
			world.wake = wake;
			return () => (world.wake = null);
		},
		onWaiting: (count) => waiting.push(count),
		clock: {
			setInterval: (fn, ms) => {
				world.tick = fn;
				world.every = ms;
				return 1;
			},
			clearInterval: () => (world.tick = null)
		}
	});
	return { sender, sent, waiting, world };
}

const settle = async (waiting: number[], count: number) =>
	expect.poll(() => waiting.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(count);

beforeEach(async () => {
	await db.delete();
	await db.open();
});

describe('the sender of gate marks', () => {
	it('counts the marks without sending them while offline, and sends them when woken online', async () => {
		await markDog(CID, dogRun(5), 'present', t(1));
		await markDog(CID, dogRun(6), 'not-presented', t(2));
		const { sender, sent, waiting, world } = page();
		world.online = false;
		const stop = sender.start();
		await settle(waiting, 1);
		expect(waiting).toEqual([2]);
		expect(sent).toEqual([]);
		expect(world.every).toBe(CHECK_IN_RETRY_MS);

		world.online = true;
		world.wake?.();
		await settle(waiting, 2);
		expect(waiting.at(-1)).toBe(0);
		expect(sent.sort()).toEqual(['http://svc/dogRuns/5/checkIn', 'http://svc/dogRuns/6/checkIn']);
		expect([...(await storedCheckIns(CID)).values()].some((m) => m.unsent)).toBe(false);

		stop();
		expect(world.wake).toBeNull();
		expect(world.tick).toBeNull();
	});

	it('a mark taken during a round goes in a round of its own right after', async () => {
		await markDog(CID, dogRun(5), 'present', t(1));
		const { sender, sent, waiting, world } = page();
		let release = () => {};
		world.hold = new Promise((resolve) => (release = resolve));
		const first = sender.run();
		await expect.poll(() => world.hold !== null).toBe(true);
		await markDog(CID, dogRun(7), 'present', t(3));
		void sender.run();
		world.hold = null;
		release();
		await first;
		await settle(waiting, 2);
		expect(sent).toEqual(['http://svc/dogRuns/5/checkIn', 'http://svc/dogRuns/7/checkIn']);
		expect(waiting.at(-1)).toBe(0);
	});
});
