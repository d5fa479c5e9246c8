// Check-in at the gate (docs/service.md, "Check-in"): a gate phone's mark is kept where it is the
// latest, whichever order the marks of two gate phones arrive in; it is logged with its change and
// pushed to the open streams; a steward marks only its rings' dogs.
import { describe, expect, it } from 'vitest';
import type { ServiceOptions } from '../app.ts';
import {
	call,
	joinedEvent,
	openSse,
	put,
	useServices,
	type DogRunJson,
	type DogRunList,
	type ErrorJson
} from '../test-support.ts';

const start = useServices();

interface CheckInJson {
	dogRunId: number;
	competitionId: number;
	status: string | null;
	markedAt: string | null;
	_links: { self: { href: string }; dogRun: { href: string } };
}

async function event(extra: ServiceOptions = {}) {
	const { s, join, device: gate, competition } = await joinedEvent(start, 'steward', extra);
	const ring = competition.rings[0]!;
	const next = await call<DogRunList>(ring._links.nextDogRuns.href, { headers: gate });
	const dogs = next.body._embedded!.dogRuns;
	const links = competition._links as Record<string, { href: string }>;
	return { s, join, gate, competition, ring, dogs, checkIns: links.checkIns!.href };
}

const at = (iso: string) => `2026-05-12T${iso}Z`;
const hrefOf = (d: DogRunJson) => (d._links as Record<string, { href: string }>).checkIn!.href;

describe('check-in at the gate', () => {
	it('links each dog run to its mark, keeps a mark and lists the competition’s', async () => {
		const e = await event();
		const dog = e.dogs[0]!;
		const empty = await call<CheckInJson>(hrefOf(dog), { headers: e.gate });
		expect(empty.body).toMatchObject({ dogRunId: dog.id, status: null, markedAt: null });
		const marked = await put<CheckInJson>(
			hrefOf(dog),
			{ status: 'present', markedAt: at('09:00:00.000') },
			e.gate
		);
		expect(marked.status).toBe(200);
		expect(marked.body).toMatchObject({ status: 'present', markedAt: at('09:00:00.000') });
		const listed = await call<{ checkIns: CheckInJson[] }>(e.checkIns, { headers: e.gate });
		expect(listed.body.checkIns.map((c) => [c.dogRunId, c.status])).toEqual([[dog.id, 'present']]);
		const log = (await e.s.svc.readPutLog()).at(-1)!;
		expect(log).toMatchObject({ status: 200, resourceKind: 'checkIn', resourceId: dog.id });
		expect(log.responseSummary).toContain(`marked dog run ${dog.id} present`);
	});

	it('merges two gate phones’ offline marks to the latest, in either order of arrival', async () => {
		const e = await event();
		const [a, b] = [e.dogs[0]!, e.dogs[1]!];
		const early = { status: 'not-presented', markedAt: at('09:00:00.000') };
		const late = { status: 'present', markedAt: at('09:05:00.000') };
		// Dog a: the later mark first, the earlier one after; dog b: the other order.
		await put(hrefOf(a), late, e.gate);
		const kept = await put<CheckInJson>(hrefOf(a), early, e.gate);
		expect(kept.status).toBe(200);
		expect(kept.body).toMatchObject(late);
		expect((await e.s.svc.readPutLog()).at(-1)!.responseSummary).toContain('kept the later mark');
		await put(hrefOf(b), early, e.gate);
		await put(hrefOf(b), late, e.gate);
		const listed = await call<{ checkIns: CheckInJson[] }>(e.checkIns, { headers: e.gate });
		expect(listed.body.checkIns.map((c) => c.status)).toEqual(['present', 'present']);
		// At the same instant, the mark that says more wins, whichever came first.
		const same = at('09:10:00.000');
		await put(hrefOf(a), { status: 'present', markedAt: same }, e.gate);
		await put(hrefOf(a), { status: null, markedAt: same }, e.gate);
		expect((await call<CheckInJson>(hrefOf(a), { headers: e.gate })).body.status).toBe('present');
		// Taken back later: null.
		await put(hrefOf(a), { status: null, markedAt: at('09:11:00.000') }, e.gate);
		expect((await call<CheckInJson>(hrefOf(a), { headers: e.gate })).body.status).toBeNull();
	});

	it('takes a mark from a clock that runs ahead as made now', async () => {
		const e = await event();
		const before = new Date().toISOString();
		const ahead = await put<CheckInJson>(
			hrefOf(e.dogs[0]!),
			{ status: 'present', markedAt: '2099-01-01T00:00:00.000Z' },
			e.gate
		);
		expect(ahead.body.markedAt! >= before).toBe(true);
		expect(ahead.body.markedAt! <= new Date().toISOString()).toBe(true);
	});

	it('refuses a viewer, a steward of another ring and a malformed mark, naming why', async () => {
		const e = await event();
		const dog = e.dogs[0]!;
		const mark = { status: 'present', markedAt: at('09:00:00.000') };
		const viewer = await e.join('viewer');
		const refused = await put<ErrorJson & { code: string }>(hrefOf(dog), mark, viewer);
		expect([refused.status, refused.body.code]).toEqual([403, 'read-only']);
		const other = e.competition.rings.find((r) => r.id !== e.ring.id)!;
		const elsewhere = await e.join('steward', [other.id]);
		const wrongRing = await put<ErrorJson & { code: string }>(hrefOf(dog), mark, elsewhere);
		expect([wrongRing.status, wrongRing.body.code]).toEqual([403, 'ring-not-assigned']);
		for (const [body, words] of [
			[{ status: 'late', markedAt: mark.markedAt }, 'status must be one of present, not-presented'],
			[{ status: 'present', markedAt: 'nine o’clock' }, 'markedAt must be a UTC time'],
			[{ status: 'present' }, 'markedAt must be a UTC time'],
			[{ ...mark, note: 'x' }, "Unknown field 'note'"]
		] as const) {
			const bad = await put<ErrorJson>(hrefOf(dog), body, e.gate);
			expect(bad.status).toBe(400);
			expect(bad.body.message).toContain(words);
		}
		const missing = await put(hrefOf(dog).replace(/dogRuns\/\d+/, 'dogRuns/999999'), mark, e.gate);
		expect(missing.status).toBe(404);
		const listed = await call<{ checkIns: CheckInJson[] }>(e.checkIns, { headers: e.gate });
		expect(listed.body.checkIns).toEqual([]);
	});

	it('pushes a mark that changed something to the competition’s streams, and nothing for one kept out', async () => {
		const e = await event();
		const viewer = await e.join('viewer');
		const changes = (e.competition._links as Record<string, { href: string }>).changes!.href;
		const stream = await openSse(changes, viewer);
		try {
			expect((await stream.nextEvent())?.event).toBe('ready');
			const dog = e.dogs[0]!;
			await put(hrefOf(dog), { status: 'present', markedAt: at('09:05:00.000') }, e.gate);
			const heard = await stream.nextEvent();
			expect(heard?.event).toBe('checkIn');
			expect(JSON.parse(heard!.data)).toMatchObject({ dogRunId: dog.id, status: 'present' });
			await put(hrefOf(dog), { status: 'not-presented', markedAt: at('09:00:00.000') }, e.gate);
			await put(
				hrefOf(e.dogs[1]!),
				{ status: 'not-presented', markedAt: at('09:06:00.000') },
				e.gate
			);
			const next = await stream.nextEvent();
			expect(JSON.parse(next!.data)).toMatchObject({ dogRunId: e.dogs[1]!.id });
		} finally {
			stream.close();
		}
	});
});
