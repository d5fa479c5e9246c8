import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { HalClient } from '$lib/api/hal-client';
import { ApiError } from '$lib/api/errors';
import { db } from '$lib/db/db';
import { storedCheckIns } from '$lib/db/check-in-store';
import { markDog, sendCheckIns, storeCheckIns } from './check-in';

const CID = 1;
const dogRun = (id: number) => ({
	id,
	_links: {
		self: { href: `http://svc/dogRuns/${id}` },
		checkIn: { href: `http://svc/dogRuns/${id}/checkIn` }
	}
});
const answer = (dogRunId: number, status: string | null, markedAt: string) => ({
	dogRunId,
	competitionId: CID,
	status,
	markedAt,
	_links: { self: { href: `http://svc/dogRuns/${dogRunId}/checkIn` } }
});

/** A service that keeps the latest mark, or answers as `fail` says. */
function service(fail?: (href: string) => unknown) {
	const kept = new Map<number, { status: string | null; markedAt: string }>();
	const sent: string[] = [];
	const client = {
		async send(_m: string, href: string, body: { status: string | null; markedAt: string }) {
			sent.push(href);
			const problem = fail?.(href);
			if (problem) throw problem;
			const id = Number(/dogRuns\/(\d+)/.exec(href)![1]);
			const now = kept.get(id);
			if (!now || now.markedAt < body.markedAt) kept.set(id, body);
			const k = kept.get(id)!;
			return { status: 200, body: answer(id, k.status, k.markedAt) };
		}
	} as unknown as HalClient;
	return { client, kept, sent };
}

const t = (s: number) => new Date(Date.UTC(2026, 4, 12, 9, 0, s));

beforeEach(async () => {
	await db.delete();
	await db.open();
});

describe('gate marks on the device', () => {
	it('are kept while the service cannot be reached, and sent once it can', async () => {
		await markDog(CID, dogRun(5), 'present', t(1));
		await markDog(CID, dogRun(6), 'not-presented', t(2));
		const away = service(() => new ApiError('network'));
		expect(await sendCheckIns(away.client, CID)).toBe(2);
		expect([...(await storedCheckIns(CID)).values()].every((m) => m.unsent)).toBe(true);
		const back = service();
		expect(await sendCheckIns(back.client, CID)).toBe(0);
		const stored = await storedCheckIns(CID);
		expect(stored.get(5)).toMatchObject({ status: 'present', unsent: false });
		expect(stored.get(6)).toMatchObject({ status: 'not-presented', unsent: false });
		expect(await sendCheckIns(back.client, CID)).toBe(0);
		expect(back.sent).toHaveLength(2);
	});

	it('give way to another gate phone’s later mark, and win over its earlier one', async () => {
		await markDog(CID, dogRun(5), 'present', t(10));
		await markDog(CID, dogRun(6), 'present', t(10));
		// The other gate phone's marks arrive first: a later one of dog 5, an earlier one of 6.
		await storeCheckIns(CID, [
			answer(5, 'not-presented', t(20).toISOString()),
			answer(6, 'not-presented', t(1).toISOString())
		] as never);
		const stored = await storedCheckIns(CID);
		expect(stored.get(5)).toMatchObject({ status: 'not-presented', unsent: false });
		expect(stored.get(6)).toMatchObject({ status: 'present', unsent: true });
	});

	it('keep a mark the service refuses, with its words, and do not send it again', async () => {
		await markDog(CID, dogRun(5), 'present', t(1));
		const refusing = service(
			() =>
				new ApiError('http', {
					status: 403,
					serverMessage: 'This device is a ring steward for Ring 2'
				})
		);
		expect(await sendCheckIns(refusing.client, CID)).toBe(0);
		expect((await storedCheckIns(CID)).get(5)).toMatchObject({
			unsent: true,
			refused: 'This device is a ring steward for Ring 2'
		});
		await sendCheckIns(refusing.client, CID);
		expect(refusing.sent).toHaveLength(1);
	});

	it('keep a newer mark taken while an older one was on its way', async () => {
		await markDog(CID, dogRun(5), 'present', t(1));
		const slow = service();
		const send = slow.client.send.bind(slow.client);
		(slow.client as unknown as { send: typeof send }).send = async (...args) => {
			await markDog(CID, dogRun(5), null, t(2));
			return send(...args);
		};
		await sendCheckIns(slow.client, CID);
		expect((await storedCheckIns(CID)).get(5)).toMatchObject({ status: null, unsent: true });
	});
});

describe('the service’s marks arriving out of order', () => {
	it('a list read before a later mark landed does not undo it (pushed meanwhile)', async () => {
		// The other gate phone's later mark came over the push link...
		await storeCheckIns(CID, [answer(5, 'not-presented', t(20).toISOString())] as never);
		// ...and then the answer of a list read before it landed.
		await storeCheckIns(CID, [answer(5, 'present', t(10).toISOString())] as never);
		expect((await storedCheckIns(CID)).get(5)).toMatchObject({
			status: 'not-presented',
			unsent: false
		});
	});

	it('the answer to this phone’s mark, older than a mark pushed meanwhile, does not undo that one', async () => {
		await markDog(CID, dogRun(5), 'present', t(10));
		// This phone's PUT won at the service; before its answer is stored, the other phone's
		// later mark wins there and comes over the push link.
		const racing = service();
		const send = racing.client.send.bind(racing.client);
		(racing.client as unknown as { send: typeof send }).send = async (...args) => {
			const answered = await send(...args);
			await storeCheckIns(CID, [answer(5, 'not-presented', t(20).toISOString())] as never);
			return answered;
		};
		expect(await sendCheckIns(racing.client, CID)).toBe(0);
		expect((await storedCheckIns(CID)).get(5)).toMatchObject({
			status: 'not-presented',
			unsent: false
		});
	});
});

describe('gate marks and a clock that runs ahead', () => {
	it('are sent once: the service’s answer at its own time settles the mark', async () => {
		const ahead = new Date(Date.UTC(2026, 4, 12, 9, 10, 0));
		await markDog(CID, dogRun(5), 'present', ahead);
		const capped = t(30).toISOString();
		const sent: string[] = [];
		const client = {
			async send(_m: string, href: string) {
				sent.push(href);
				return { status: 200, body: answer(5, 'present', capped) };
			}
		} as unknown as HalClient;
		expect(await sendCheckIns(client, CID)).toBe(0);
		expect((await storedCheckIns(CID)).get(5)).toMatchObject({ markedAt: capped, unsent: false });
		expect(await sendCheckIns(client, CID)).toBe(0);
		expect(sent).toHaveLength(1);
	});

	it('take the link from the dog run as read since, for a mark taken before the link was known', async () => {
		await markDog(
			CID,
			{ id: 5, _links: { self: { href: 'http://svc/dogRuns/5' } } },
			'present',
			t(1)
		);
		const svc = service();
		expect(await sendCheckIns(svc.client, CID)).toBe(1);
		expect(svc.sent).toEqual([]);
		await db.dogRuns.put({
			id: 5,
			runId: 11,
			competitionId: CID,
			order: 0,
			href: 'http://svc/dogRuns/5',
			fetchedAt: 0,
			data: {
				...dogRun(5),
				time: null,
				faults: 0,
				refusals: 0,
				disqualified: false,
				absence: false
			} as never
		});
		expect(await sendCheckIns(svc.client, CID)).toBe(0);
		expect(svc.sent).toEqual(['http://svc/dogRuns/5/checkIn']);
	});
});
