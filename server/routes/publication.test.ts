// Public views' settings (docs/service.md, "Public views"): the secretary sets how handlers' names
// show and whether results wait for release; the public (a viewer, an open read) is never sent
// what they hide, in lists, in one dog run or over the push link; the staff see everything.
import { describe, expect, it } from 'vitest';
import type { ServiceOptions } from '../app.ts';
import {
	call,
	joinDevice,
	joinedEvent,
	openSse,
	put,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunList
} from '../test-support.ts';

const start = useServices();

type Headers = Record<string, string>;

interface PublicationJson {
	competitionId: number;
	handlerNames: string;
	results: string;
	releasedRuns: number[];
	updatedAt: string | null;
	_links: { self: { href: string }; competition: { href: string } };
}

/** A service where only joined devices read (or anyone, with `openReads`), and its devices. */
async function event(extra: ServiceOptions = {}) {
	const joined = await joinedEvent(start, 'secretary', { etag: true, ...extra });
	const { s, join, device: secretary, competition } = joined;
	const steward = await join('steward');
	const viewer = await join('viewer');
	const runs = await call<RunList>(competition._links.competitionRuns.href, { headers: secretary });
	const run = runs.body._embedded!.competitionRuns[0]!;
	const publication = (competition._links as Record<string, { href: string }>).publication!.href;
	return { s, secretary, steward, viewer, competition, run, publication };
}

type Event = Awaited<ReturnType<typeof event>>;

const dogRunsOf = async (e: Event, who: Headers) => {
	const res = await call<DogRunList>(e.run._links.dogRuns.href, { headers: who });
	expect(res.status).toBe(200);
	return { dogs: res.body._embedded!.dogRuns, text: res.text, etag: res.res.headers.get('etag') };
};

/** Sets the competition's settings as the secretary (with If-Match of what is there). */
async function publish(e: Event, patch: Record<string, unknown>): Promise<PublicationJson> {
	const now = await call<PublicationJson>(e.publication, { headers: e.secretary });
	const res = await put<PublicationJson>(e.publication, patch, {
		...e.secretary,
		'If-Match': now.res.headers.get('etag')!
	});
	expect(res.status, res.text).toBe(200);
	return res.body;
}

describe('public views’ settings', () => {
	it('are everything shown until the secretary changes them, linked from the competition', async () => {
		const e = await event();
		const res = await call<PublicationJson>(e.publication, { headers: e.viewer });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			competitionId: e.competition.id,
			handlerNames: 'full',
			results: 'live',
			releasedRuns: [],
			updatedAt: null
		});
		expect(res.body._links.self.href).toBe(e.publication);
	});

	it('hide handlers’ names from a viewer, in every list and dog run, and show them to the staff', async () => {
		const e = await event();
		const before = await dogRunsOf(e, e.viewer);
		const dog = before.dogs[0]!;
		expect(before.text).toContain(dog.competitor.lastname);

		await publish(e, { handlerNames: 'initials' });
		const initials = await dogRunsOf(e, e.viewer);
		const shown = initials.dogs[0]!.competitor;
		expect(shown.firstname).toBe(`${dog.competitor.firstname[0]}.`);
		expect(shown.lastname).toBe(`${dog.competitor.lastname[0]}.`);
		expect(shown.identifier).toBe('');
		expect(initials.text).not.toContain(dog.competitor.lastname);
		expect(initials.etag).not.toBe(before.etag);

		await publish(e, { handlerNames: 'hidden' });
		for (const href of [
			e.run._links.dogRuns.href,
			dog._links.self.href,
			e.competition.rings.find((r) => r.id === e.run.competitionRing.id)!._links.nextDogRuns.href
		]) {
			const res = await call(href, { headers: e.viewer });
			expect(res.status).toBe(200);
			expect(res.text).not.toContain(dog.competitor.lastname);
			expect(res.text).not.toContain(dog.competitor.identifier);
		}
		const one = await call<DogRunJson>(dog._links.self.href, { headers: e.viewer });
		expect(one.body.competitor).toMatchObject({ firstname: '', lastname: '', identifier: '' });
		expect(one.body.dog.name).toBe(dog.dog.name);

		for (const staff of [e.secretary, e.steward]) {
			const full = await call<DogRunJson>(dog._links.self.href, { headers: staff });
			expect(full.body.competitor).toEqual(dog.competitor);
		}
	});

	it('hide them from a reader without a credential where reads are open, not in open mode', async () => {
		const e = await event({ openReads: true });
		const dog = (await dogRunsOf(e, e.secretary)).dogs[0]!;
		await publish(e, { handlerNames: 'hidden' });
		const anonymous = await call(e.run._links.dogRuns.href);
		expect(anonymous.status).toBe(200);
		expect(anonymous.text).not.toContain(dog.competitor.lastname);

		const open = await start({ etag: true });
		const list = await call<CompetitionList>(`${open.entry}?state=IN_PROGRESS`);
		const c = list.body._embedded!.competitions[0]!;
		const href = (c._links as Record<string, { href: string }>).publication!.href;
		expect((await put(href, { handlerNames: 'hidden' })).status).toBe(200);
		const runs = await call<RunList>(c._links.competitionRuns.href);
		const dogs = await call<DogRunList>(
			runs.body._embedded!.competitionRuns[0]!._links.dogRuns.href
		);
		// Open mode (loopback, development): every caller is the secretary.
		expect(dogs.body._embedded!.dogRuns[0]!.competitor.lastname).not.toBe('');
	});

	it('keep a run’s results from the public until it is released: the order and “done” only', async () => {
		const e = await event();
		// The ring's next two dogs of one run: the first gets a result, the second waits.
		const ring = e.competition.rings.find((r) => r.id === e.run.competitionRing.id)!;
		const next = await call<DogRunList>(ring._links.nextDogRuns.href, { headers: e.secretary });
		const first = next.body._embedded!.dogRuns[0]!;
		const second = next.body._embedded!.dogRuns.find(
			(d) => d.id !== first.id && d.competitionRun.id === first.competitionRun.id
		)!;
		const runDogs = first._links.competitionRun.href + '/dogRuns';
		const tag = (await call(first._links.self.href, { headers: e.secretary })).res.headers.get(
			'etag'
		)!;
		expect(
			(
				await put(
					first._links.self.href,
					{ time: 38.12, faults: 5 },
					{ ...e.secretary, 'If-Match': tag }
				)
			).status
		).toBe(200);
		await publish(e, { results: 'released' });
		const staffList = await call<DogRunList>(runDogs, { headers: e.secretary });
		const withheld = await call<DogRunList>(runDogs, { headers: e.viewer });
		type Public = DogRunJson & { withheld?: unknown };
		const dogs = withheld.body._embedded!.dogRuns;
		const a = dogs.find((d) => d.id === first.id) as Public;
		const b = dogs.find((d) => d.id === second.id) as Public;
		// The order is public.
		expect(dogs.map((d) => d.id)).toEqual(staffList.body._embedded!.dogRuns.map((d) => d.id));
		expect(a).toMatchObject({
			time: null,
			faults: 0,
			refusals: 0,
			disqualified: false,
			absence: false
		});
		expect(a.withheld).toEqual({ done: true });
		expect(b.id).toBe(second.id);
		expect(b.withheld).toEqual({ done: false });
		expect(withheld.text).not.toContain('38.12');
		// The staff see the result; the run's progress is public (the order and "done").
		const staff = await call<DogRunJson>(first._links.self.href, { headers: e.steward });
		expect(staff.body.time).toBe(38.12);

		await publish(e, { releasedRuns: [first.competitionRun.id] });
		const released = await call<DogRunJson & { withheld?: unknown }>(first._links.self.href, {
			headers: e.viewer
		});
		expect(released.body.time).toBe(38.12);
		expect(released.body.faults).toBe(5);
		expect(released.body.withheld).toBeUndefined();
	});

	it('are changed by the secretary only, with If-Match, and checked field by field', async () => {
		const e = await event();
		const now = await call(e.publication, { headers: e.secretary });
		const tag = now.res.headers.get('etag')!;
		for (const who of [e.steward, e.viewer]) {
			const refused = await put<ErrorJson & { code: string }>(
				e.publication,
				{ handlerNames: 'hidden' },
				{
					...who,
					'If-Match': tag
				}
			);
			expect(refused.status).toBe(403);
			expect(refused.body.code).toBe('secretary-only');
		}
		const bad = await put<ErrorJson>(e.publication, { handlerNames: 'nicknames' }, e.secretary);
		expect(bad.status).toBe(400);
		expect(bad.body.message).toContain('handlerNames must be one of full, initials, hidden');
		const unknown = await put<ErrorJson>(e.publication, { names: 'hidden' }, e.secretary);
		expect(unknown.status).toBe(400);
		expect(unknown.body.message).toContain("Unknown field 'names'");
		const runs = await put<ErrorJson>(e.publication, { releasedRuns: [1, 'two'] }, e.secretary);
		expect(runs.status).toBe(400);

		const first = await put<PublicationJson>(
			e.publication,
			{ handlerNames: 'initials' },
			{
				...e.secretary,
				'If-Match': tag
			}
		);
		expect(first.status).toBe(200);
		expect(first.body.updatedAt).not.toBeNull();
		// Another secretary's screen still has the old tag: a conflict, not an overwrite.
		const stale = await put(
			e.publication,
			{ handlerNames: 'full' },
			{ ...e.secretary, 'If-Match': tag }
		);
		expect(stale.status).toBe(412);
		const kept = await call<PublicationJson>(e.publication, { headers: e.viewer });
		expect(kept.body.handlerNames).toBe('initials');
		const missing = await put(
			e.publication.replace(/competitions\/\d+/, 'competitions/999999'),
			{ handlerNames: 'full' },
			e.secretary
		);
		expect(missing.status).toBe(404);
	});

	it('reach open streams at once, and the public’s stream carries dog runs as the public GET answers them', async () => {
		const e = await event();
		const changes = (e.competition._links as Record<string, { href: string }>).changes!.href;
		const publicStream = await openSse(changes, e.viewer);
		const staffStream = await openSse(changes, e.steward);
		try {
			expect((await publicStream.nextEvent())?.event).toBe('ready');
			expect((await staffStream.nextEvent())?.event).toBe('ready');
			await publish(e, { handlerNames: 'hidden' });
			for (const stream of [publicStream, staffStream]) {
				const heard = await stream.nextEvent();
				expect(heard?.event).toBe('publication');
				expect(JSON.parse(heard!.data)).toMatchObject({ handlerNames: 'hidden' });
			}

			const dog = (await dogRunsOf(e, e.secretary)).dogs[0]!;
			const tag = (await call(dog._links.self.href, { headers: e.steward })).res.headers.get(
				'etag'
			)!;
			await put(dog._links.self.href, { time: 40.5 }, { ...e.steward, 'If-Match': tag });
			const toPublic = await publicStream.nextEvent();
			const toStaff = await staffStream.nextEvent();
			expect(toPublic?.event).toBe('dogRun');
			expect(toPublic!.data).not.toContain(dog.competitor.lastname);
			expect(JSON.parse(toStaff!.data)).toMatchObject({ competitor: dog.competitor });
			// Byte for byte the viewer's GET (course times keep their digits).
			const get = await call(dog._links.self.href, { headers: e.viewer });
			expect(toPublic!.data).toBe(get.text);
			expect(JSON.parse(toPublic!.data).time).toBe(40.5);
		} finally {
			publicStream.close();
			staffStream.close();
		}
	});

	it('apply to a service started again: the public’s stream starts from the stored settings', async () => {
		const first = await event();
		await publish(first, { handlerNames: 'hidden' });
		await first.s.svc.close();
		const again = await start({ auth: 'required', etag: true, dbFile: first.s.dbFile });
		const viewer = await joinDevice(again, 'viewer');
		const secretary = await joinDevice(again, 'secretary');
		const base = (href: string) => href.replace(/^http:\/\/[^/]+\//, again.svc.url);
		const changes = base(
			(first.competition._links as Record<string, { href: string }>).changes!.href
		);
		const stream = await openSse(changes, viewer);
		try {
			expect((await stream.nextEvent())?.event).toBe('ready');
			const dog = (
				await call<DogRunList>(base(first.run._links.dogRuns.href), { headers: secretary })
			).body._embedded!.dogRuns[0]!;
			await put(base(dog._links.self.href), { faults: 10 }, secretary);
			const heard = await stream.nextEvent();
			expect(heard?.event).toBe('dogRun');
			expect(heard!.data).not.toContain(dog.competitor.lastname);
		} finally {
			stream.close();
		}
	});
});
