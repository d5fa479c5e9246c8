// Conditional reads: ETags on every GET of /api (single resources and list pages) that change
// whenever the representation changes, If-None-Match → 304, and If-Match on PUT.
import { describe, expect, it } from 'vitest';
import {
	call,
	put,
	useServices,
	type CompetitionJson,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type RunJson,
	type Started
} from './test-support.ts';

const start = useServices();

interface Scene {
	competition: CompetitionJson;
	/** A run with dogs still to run, two of its unfinished dog runs, and the ring's next dogs. */
	run: RunJson;
	dog: DogRunJson;
	sibling: DogRunJson;
	nextHref: string;
}

async function scene(s: Started): Promise<Scene> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const competition = list.body._embedded!.competitions[0]!;
	for (const ring of competition.rings) {
		const next = await call<DogRunList>(ring._links.nextDogRuns.href);
		const first = next.body._embedded?.dogRuns[0];
		if (!first) continue;
		const dogs = await call<DogRunList>(`${first.competitionRun._links.dogRuns.href}?size=500`);
		const open = dogs.body._embedded!.dogRuns.filter(
			(d) => d.time === null && !d.disqualified && !d.absence
		);
		if (open.length < 2) continue;
		return {
			competition,
			run: first.competitionRun,
			dog: open[0]!,
			sibling: open[1]!,
			nextHref: ring._links.nextDogRuns.href
		};
	}
	throw new Error('no run with two unfinished dog runs');
}

const etagOf = (a: { res: Response }): string | null => a.res.headers.get('etag');

describe('ETags (etag option on)', () => {
	it('tags single resources and answers 304 to a matching If-None-Match', async () => {
		const s = await start({ etag: true });
		const { dog, run } = await scene(s);
		for (const href of [dog._links.self.href, run._links.self.href]) {
			const a = await call(href);
			const tag = etagOf(a);
			expect(tag).toMatch(/^"(dogRun|competitionRun)-\d+-\d+"$/);
			const b = await call(href, { headers: { 'If-None-Match': tag! } });
			expect(b.status).toBe(304);
			expect(b.text).toBe('');
			expect(etagOf(b)).toBe(tag);
			expect(b.res.headers.get('cache-control')).toContain('no-store');
			// `*`, a list of tags, and the weak form all match (weak comparison, RFC 9110 13.1.2)
			for (const inm of ['*', `"nope", ${tag!}`, `W/${tag!}`, `"a",W/${tag!} , "b"`]) {
				expect((await call(href, { headers: { 'If-None-Match': inm } })).status).toBe(304);
			}
			const other = await call(href, { headers: { 'If-None-Match': '"nope", W/"other"' } });
			expect(other.status).toBe(200);
			expect(other.text).toBe(a.text);
			expect(etagOf(other)).toBe(tag);
			const head = await fetch(href, { method: 'HEAD', headers: { 'If-None-Match': tag! } });
			expect(head.status).toBe(304);
		}
	});

	it('tags every list page and answers 304 to a matching If-None-Match', async () => {
		const s = await start({ etag: true });
		const { competition, run, nextHref } = await scene(s);
		const hrefs = [
			s.entry,
			`${s.entry}?state=IN_PROGRESS&page=0&size=5`,
			competition._links.self.href,
			competition._links.competitionRuns.href,
			run._links.dogRuns.href,
			`${run._links.dogRuns.href}?page=1&size=3`,
			nextHref
		];
		const tags = new Set<string>();
		for (const href of hrefs) {
			const a = await call(href);
			expect(a.status).toBe(200);
			const tag = etagOf(a);
			expect(tag).toMatch(/^"[^"]+"$/);
			tags.add(tag!);
			const b = await call(href, { headers: { 'If-None-Match': tag! } });
			expect(b.status).toBe(304);
			expect(b.text).toBe('');
			expect(etagOf(b)).toBe(tag);
		}
		expect(tags.size).toBe(hrefs.length);
	});

	it('changes the tags of everything that shows a change (a run’s progress, embedded runs, lists)', async () => {
		const s = await start({ etag: true });
		const { run, dog, sibling, nextHref } = await scene(s);
		const hrefs = [
			run._links.self.href,
			sibling._links.self.href, // embeds the run, whose progress changes
			run._links.dogRuns.href,
			nextHref,
			run._links.competitionRuns.href
		];
		const before = await Promise.all(hrefs.map((h) => call(h)));
		const written = await put<DogRunJson>(dog._links.self.href, { time: 38.63 });
		expect(written.status).toBe(200);
		expect(written.body.competitionRun.progress).toBeGreaterThan(run.progress);
		for (const [i, href] of hrefs.entries()) {
			const tag = etagOf(before[i]!)!;
			const again = await call(href, { headers: { 'If-None-Match': tag } });
			expect(again.status, href).toBe(200);
			expect(etagOf(again), href).not.toBe(tag);
			expect(again.text).not.toBe(before[i]!.text);
		}
		// The progress goes back down (time removed): the run's tag changes again.
		const r1 = await call<RunJson>(run._links.self.href);
		await put(dog._links.self.href, { time: null });
		const r2 = await call<RunJson>(run._links.self.href);
		expect(r2.body.progress).toBeLessThan(r1.body.progress);
		expect(etagOf(r2)).not.toBe(etagOf(r1));
	});

	it('answers the PUT with the tag a GET then gives', async () => {
		const s = await start({ etag: true });
		const { run, dog } = await scene(s);
		const a = await put(dog._links.self.href, { faults: 2 });
		expect(etagOf(a)).toBe(etagOf(await call(dog._links.self.href)));
		const b = await put(run._links.self.href, { trackLength: 175 });
		expect(etagOf(b)).toBe(etagOf(await call(run._links.self.href)));
	});

	it('keeps If-Match about the resource’s own fields: a sibling’s result is no conflict', async () => {
		const s = await start({ etag: true });
		const { dog, sibling } = await scene(s);
		const tag = etagOf(await call(dog._links.self.href))!;
		// Another steward records the next dog: this dog's representation (embedded progress) changes …
		await put(sibling._links.self.href, { time: 41.2 });
		expect(etagOf(await call(dog._links.self.href))).not.toBe(tag);
		// … but its own fields did not, so the conditional PUT still applies.
		const ok = await put(dog._links.self.href, { time: 39.5 }, { 'If-Match': tag });
		expect(ok.status).toBe(200);
		// Its own fields changed since `tag`: 412.
		const stale = await put(dog._links.self.href, { time: 39.6 }, { 'If-Match': tag });
		expect(stale.status).toBe(412);
		const current = etagOf(await call(dog._links.self.href))!;
		expect((await put(dog._links.self.href, { faults: 1 }, { 'If-Match': current })).status).toBe(
			200
		);
		expect((await put(dog._links.self.href, { faults: 2 }, { 'If-Match': '"x"' })).status).toBe(
			412
		);
	});

	it('answers 412 to an empty If-Match (it names no version) and changes nothing', async () => {
		const s = await start({ etag: true });
		const { dog } = await scene(s);
		for (const empty of ['', ' ']) {
			const a = await put(dog._links.self.href, { faults: 7 }, { 'If-Match': empty });
			expect(a.status).toBe(412);
		}
		expect((await call<DogRunJson>(dog._links.self.href)).body.faults).toBe(dog.faults);
	});

	it('gives the same tag through every address of the service (links differ, the tag does not)', async () => {
		const s = await start({ etag: true, allowHosts: ['ring.example.org'], auth: 'open' });
		const { dog } = await scene(s);
		const a = await call(dog._links.self.href);
		const b = await call(dog._links.self.href, {
			headers: { 'X-Forwarded-Host': 'ring.example.org', 'X-Forwarded-Prefix': '/results' }
		});
		expect(b.text).toContain('http://ring.example.org/results/api/v1/dogRuns/');
		expect(b.text).not.toBe(a.text);
		expect(etagOf(b)).toBe(etagOf(a));
	});

	it('does not tag error answers', async () => {
		const s = await start({ etag: true });
		const a = await call(`${s.entry}/999999`);
		expect(a.status).toBe(404);
		expect(etagOf(a)).toBeNull();
		const b = await call(`${s.entry}/999999`, { headers: { 'If-None-Match': '*' } });
		expect(b.status).toBe(404);
	});
});

describe('ETags off (the default, as the interface shows none)', () => {
	it('sends no ETag on any GET and ignores If-None-Match', async () => {
		const s = await start();
		const { run, dog } = await scene(s);
		for (const href of [
			s.entry,
			run._links.dogRuns.href,
			run._links.self.href,
			dog._links.self.href
		]) {
			const a = await call(href, { headers: { 'If-None-Match': '*' } });
			expect(a.status).toBe(200);
			expect(etagOf(a)).toBeNull();
		}
	});
});
