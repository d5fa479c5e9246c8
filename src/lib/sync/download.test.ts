import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '$lib/api/errors';
import { HalClient, type FetchLike } from '$lib/api/hal-client';
import { CompetitionRunSchema, CompetitionSchema, DogRunSchema } from '$lib/api/schemas';
import { db } from '$lib/db/db';
import { downloadCompetition, removeDownload } from './download';
import { useSmallService } from './test-service';

const service = useSmallService('download');

async function inProgressCompetition(client: HalClient) {
	const list = await client.listCompetitions({ state: 'IN_PROGRESS' });
	const competition = list.items[0];
	if (!competition) throw new Error('the seed has no competition in progress');
	return competition;
}

/** Counts what the service holds by walking its links, as an independent client would. */
async function serviceCounts(client: HalClient, competitionHref: string) {
	const { body } = await client.get(competitionHref, CompetitionSchema);
	let runs = 0;
	let dogRuns = 0;
	const runsHref = body._links.competitionRuns;
	if (!runsHref || Array.isArray(runsHref)) throw new Error('no runs link');
	for await (const page of client.pages(runsHref.href, 'competitionRuns', CompetitionRunSchema)) {
		for (const run of page.items) {
			runs++;
			const link = run._links.dogRuns;
			if (!link || Array.isArray(link)) throw new Error('no dogRuns link');
			for await (const p of client.pages(link.href, 'dogRuns', DogRunSchema)) {
				dogRuns += p.items.length;
			}
		}
	}
	return { runs, dogRuns };
}

/** Each run's dog-run list as the service has it: its first page's address and its length. */
async function dogRunLists(client: HalClient, competitionHref: string) {
	const { body } = await client.get(competitionHref, CompetitionSchema);
	const runsHref = body._links.competitionRuns;
	if (!runsHref || Array.isArray(runsHref)) throw new Error('no runs link');
	const lists: { runId: number; href: string; count: number }[] = [];
	for await (const page of client.pages(runsHref.href, 'competitionRuns', CompetitionRunSchema)) {
		for (const run of page.items) {
			const link = run._links.dogRuns;
			if (!link || Array.isArray(link)) throw new Error('no dogRuns link');
			let count = 0;
			for await (const p of client.pages(link.href, 'dogRuns', DogRunSchema))
				count += p.items.length;
			lists.push({ runId: run.id, href: link.href, count });
		}
	}
	return lists;
}

type DogRunList = Awaited<ReturnType<typeof dogRunLists>>[number];

/**
 * The last list, and a list of one page (the service's default size is 20) before it: read in
 * full, and stored, before the last one starts when lists are read one at a time.
 */
function onePageBeforeLast(lists: DogRunList[]): { first: DogRunList; last: DogRunList } {
	const last = lists.at(-1);
	const first = lists.find((l) => l.count > 0 && l.count < 20 && l !== last);
	if (!first || !last) throw new Error('the seed has no run of one page before the last');
	return { first, last };
}

/** Waits until the device holds every dog run of `list`'s run. */
async function untilStored(list: DogRunList): Promise<void> {
	await vi.waitFor(async () => {
		expect(await db.dogRuns.where('runId').equals(list.runId).count()).toBe(list.count);
	});
}

/** How many dog runs the device holds for each run: what a run's screen would list. */
async function storedPerRun(runIds: number[]) {
	return Promise.all(
		runIds.map(async (runId) => ({
			runId,
			stored: await db.dogRuns.where('runId').equals(runId).count()
		}))
	);
}

describe('downloadCompetition', () => {
	it('stores every run and dog run of the competition, in start order, and reports progress', async () => {
		const client = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(client);
		const expected = await serviceCounts(client, competition._links.self.href);
		const seen: number[] = [];

		const result = await downloadCompetition(client, competition._links.self.href, {
			onProgress: (p) => seen.push(p.dogRunsStored)
		});

		expect(result).toEqual({
			runsTotal: expected.runs,
			runsDone: expected.runs,
			dogRunsStored: expected.dogRuns
		});
		expect(await db.runs.where('competitionId').equals(competition.id).count()).toBe(expected.runs);
		expect(await db.dogRuns.where('competitionId').equals(competition.id).count()).toBe(
			expected.dogRuns
		);
		expect(seen.at(-1)).toBe(expected.dogRuns);
		expect(seen).toEqual([...seen].sort((a, b) => a - b));
		const download = await db.downloads.get(competition.id);
		expect(download?.state).toBe('complete');
		expect(download?.completedAt).toBeTypeOf('number');

		// start order: the order of the service's own list of each run
		const run = (await db.runs.where('competitionId').equals(competition.id).first())!;
		const stored = await db.dogRuns
			.where('[runId+order]')
			.between([run.id, 0], [run.id, 1e9])
			.toArray();
		const dogRunsLink = run.data._links.dogRuns;
		if (!dogRunsLink || Array.isArray(dogRunsLink)) throw new Error('no dogRuns link');
		const fromService: number[] = [];
		for await (const page of client.pages(dogRunsLink.href, 'dogRuns', DogRunSchema)) {
			fromService.push(...page.items.map((d) => d.id));
		}
		expect(stored.map((d) => d.id)).toEqual(fromService);
	});

	it('reads the next page of runs before the dog-run lists of the runs it found', async () => {
		const requested: string[] = [];
		// Two runs a page (the link is followed as given; the service pages as asked).
		const paging: FetchLike = async (input, init) => {
			const url = /\/runs$/.test(input) ? `${input}?size=2` : input;
			requested.push(new URL(url).pathname + new URL(url).search);
			return fetch(url, init);
		};
		const client = new HalClient({ serviceUrl: service.url, fetch: paging });
		const competition = await inProgressCompetition(new HalClient({ serviceUrl: service.url }));
		const result = await downloadCompetition(client, competition._links.self.href, {
			concurrency: 1
		});
		expect(result.runsTotal).toBeGreaterThan(4);
		const runPages = requested.filter((path) => /\/runs(\?|$)/.test(path));
		expect(runPages).toHaveLength(Math.ceil(result.runsTotal / 2));
		// The one slot reads the runs page after page, the dog-run lists of the runs found wait.
		expect(requested.slice(1, 1 + runPages.length)).toEqual(runPages);
		expect(requested.slice(1 + runPages.length).every((path) => path.includes('/dogRuns'))).toBe(
			true
		);
	});

	it('downloads twice without duplicating anything', async () => {
		const client = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(client);
		const first = await downloadCompetition(client, competition._links.self.href);
		const second = await downloadCompetition(client, competition._links.self.href);
		expect(second).toEqual(first);
		expect(await db.dogRuns.count()).toBe(first.dogRunsStored);
	});

	it('drops what the competition no longer has when downloaded again, and nothing else', async () => {
		const client = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(client);
		const first = await downloadCompetition(client, competition._links.self.href);
		const [run] = await db.runs.where('competitionId').equals(competition.id).toArray();
		const [dogRun] = await db.dogRuns.where('competitionId').equals(competition.id).toArray();
		if (!run || !dogRun) throw new Error('nothing stored');
		// Gone from the service since: a run and a dog run; and another competition's copy.
		await db.runs.bulkPut([
			{ ...run, id: 90_001 },
			{ ...run, id: 90_002, competitionId: 777 }
		]);
		await db.dogRuns.bulkPut([
			{ ...dogRun, id: 90_001 },
			{ ...dogRun, id: 90_002, competitionId: 777 }
		]);
		await db.dogRuns.update(dogRun.id, { order: 9999 });

		expect(await downloadCompetition(client, competition._links.self.href)).toEqual(first);
		expect(await db.runs.where('competitionId').equals(competition.id).count()).toBe(
			first.runsTotal
		);
		expect(await db.dogRuns.where('competitionId').equals(competition.id).count()).toBe(
			first.dogRunsStored
		);
		expect(await db.runs.get(90_001)).toBeUndefined();
		expect(await db.dogRuns.get(90_001)).toBeUndefined();
		expect(await db.runs.get(90_002)).toBeDefined();
		expect(await db.dogRuns.get(90_002)).toBeDefined();
		expect((await db.dogRuns.get(dogRun.id))?.order).toBe(dogRun.order);
	});

	it('keeps the previous copy intact when a download fails halfway, and says what failed', async () => {
		const good = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(good);
		const first = await downloadCompetition(good, competition._links.self.href);
		const before = await db.dogRuns.toArray();

		let dogRunPages = 0;
		const failing: FetchLike = async (input, init) => {
			if (input.includes('/dogRuns') && ++dogRunPages > 3) {
				return new Response('<html>Bad gateway</html>', {
					status: 502,
					headers: { 'Content-Type': 'text/html' }
				});
			}
			return fetch(input, init);
		};
		const bad = new HalClient({ serviceUrl: service.url, fetch: failing });
		const attempt = downloadCompetition(bad, competition._links.self.href);
		await expect(attempt).rejects.toMatchObject({ code: 'http', status: 502 });

		expect(await db.dogRuns.toArray()).toEqual(before);
		const download = await db.downloads.get(competition.id);
		expect(download).toMatchObject({ state: 'failed', error: { code: 'http', status: 502 } });
		expect(download?.completedAt).toBeTypeOf('number');

		// trying again restarts cleanly
		const again = await downloadCompetition(good, competition._links.self.href);
		expect(again).toEqual(first);
		expect((await db.downloads.get(competition.id))?.state).toBe('complete');
	});

	it('asks again after the backoff when the service answers busy (503, 429), instead of failing', async () => {
		const good = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(good);
		const expected = await serviceCounts(good, competition._links.self.href);
		const busy = new Map<string, number>();
		let answeredBusy = 0;
		// The competition, the runs' list and one dog-run list: busy once (twice for the list of runs).
		const struggling: FetchLike = async (input, init) => {
			const times = busy.get(input) ?? 0;
			const first = input === competition._links.self.href || /\/runs(\?|$)/.test(input);
			const limit = /\/runs(\?|$)/.test(input)
				? 2
				: first
					? 1
					: input.includes('/dogRuns') && answeredBusy < 4
						? 1
						: 0;
			if (times < limit) {
				busy.set(input, times + 1);
				answeredBusy++;
				return new Response(JSON.stringify({ status: 503, message: 'busy' }), {
					status: times % 2 ? 429 : 503,
					headers: { 'Content-Type': 'application/hal+json', 'Retry-After': '1' }
				});
			}
			return fetch(input, init);
		};
		const waits: number[] = [];
		const client = new HalClient({ serviceUrl: service.url, fetch: struggling });
		const result = await downloadCompetition(client, competition._links.self.href, {
			busyDelayMs: () => {
				waits.push(1);
				return 5;
			}
		});
		expect(result).toMatchObject({ runsTotal: expected.runs, dogRunsStored: expected.dogRuns });
		expect(answeredBusy).toBeGreaterThanOrEqual(4);
		expect(waits).toHaveLength(answeredBusy);
		expect((await db.downloads.get(competition.id))?.state).toBe('complete');
	});

	it('gives up after three busy answers in a row, and says so', async () => {
		const good = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(good);
		let asked = 0;
		const alwaysBusy: FetchLike = async (input, init) => {
			if (!input.includes('/dogRuns')) return fetch(input, init);
			asked++;
			return new Response('{}', {
				status: 503,
				headers: { 'Content-Type': 'application/hal+json' }
			});
		};
		const client = new HalClient({ serviceUrl: service.url, fetch: alwaysBusy });
		const attempt = downloadCompetition(client, competition._links.self.href, {
			busyDelayMs: () => 1,
			concurrency: 1
		});
		await expect(attempt).rejects.toMatchObject({ code: 'http', status: 503 });
		expect(asked).toBe(3);
		expect(await db.downloads.get(competition.id)).toMatchObject({
			state: 'failed',
			error: { code: 'http', status: 503 }
		});
	});

	it('stops when cancelled and stores nothing of the cancelled attempt', async () => {
		const client = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(client);
		const controller = new AbortController();
		const attempt = downloadCompetition(client, competition._links.self.href, {
			signal: controller.signal,
			onProgress: (p) => {
				if (p.dogRunsStored > 0) controller.abort();
			}
		});
		await expect(attempt).rejects.toBeInstanceOf(ApiError);
		expect(await db.dogRuns.count()).toBe(0);
		expect((await db.downloads.get(competition.id))?.state).toBe('cancelled');
	});

	it('stores each run whole as soon as its list is read, while the other lists are still read', async () => {
		const plain = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(plain);
		const lists = await dogRunLists(plain, competition._links.self.href);
		const { first, last } = onePageBeforeLast(lists);
		const expected = new Map(lists.map((l) => [l.runId, l.count]));
		const seen: { runId: number; stored: number }[][] = [];
		// Every dog-run list asked for: what the screens could see then (each run none or whole).
		const watching: FetchLike = async (input, init) => {
			if (input.includes('/dogRuns')) {
				if (input === last.href) {
					// One request at a time: the first run's list ended long before the last one starts.
					await untilStored(first);
				}
				seen.push(await storedPerRun([...expected.keys()]));
			}
			return fetch(input, init);
		};
		const client = new HalClient({ serviceUrl: service.url, fetch: watching });
		await downloadCompetition(client, competition._links.self.href, { concurrency: 1 });

		expect(seen.flat().some((r) => r.stored > 0)).toBe(true);
		for (const { runId, stored } of seen.flat()) expect([0, expected.get(runId)]).toContain(stored);
		expect(await db.dogRuns.count()).toBe(lists.reduce((sum, l) => sum + l.count, 0));
		expect((await db.downloads.get(competition.id))?.state).toBe('complete');
	});

	it('puts back the runs it had stored when it fails later, unless something newer was written since', async () => {
		const good = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(good);
		await downloadCompetition(good, competition._links.self.href);
		const lists = await dogRunLists(good, competition._links.self.href);
		const { first: stored, last } = onePageBeforeLast(lists);
		const before = await db.dogRuns.toArray();
		const runsBefore = await db.runs.toArray();
		const newer = before.find((row) => row.runId === stored.runId);
		if (!newer) throw new Error('no dog run stored in that run');

		const failing: FetchLike = async (input, init) => {
			if (input === last.href) {
				// That run is stored again by then; a replay stores a PUT's answer meanwhile.
				await vi.waitFor(async () => {
					expect((await db.dogRuns.get(newer.id))?.fetchedAt).not.toBe(newer.fetchedAt);
				});
				await db.dogRuns.put({ ...newer, data: { ...newer.data, faults: 7 }, fetchedAt: 1 });
				return new Response('<html>Bad gateway</html>', {
					status: 502,
					headers: { 'Content-Type': 'text/html' }
				});
			}
			return fetch(input, init);
		};
		const bad = new HalClient({ serviceUrl: service.url, fetch: failing });
		const attempt = downloadCompetition(bad, competition._links.self.href, { concurrency: 1 });
		await expect(attempt).rejects.toMatchObject({ code: 'http', status: 502 });

		const after = await db.dogRuns.toArray();
		expect(after.find((row) => row.id === newer.id)).toMatchObject({
			fetchedAt: 1,
			data: { faults: 7 }
		});
		expect(after.filter((row) => row.id !== newer.id)).toEqual(
			before.filter((row) => row.id !== newer.id)
		);
		expect(await db.runs.toArray()).toEqual(runsBefore);
	});

	it('stores the competition before its first run, so a run on screen has its competition', async () => {
		const plain = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(plain);
		const lists = await dogRunLists(plain, competition._links.self.href);
		const { first, last } = onePageBeforeLast(lists);
		// A fresh device: nothing of the competition stored yet.
		await Promise.all([db.competitions.clear(), db.runs.clear(), db.dogRuns.clear()]);
		await db.downloads.clear();
		let whenFirstRunStored: string | undefined | null = null;
		const watching: FetchLike = async (input, init) => {
			if (input === last.href) {
				await untilStored(first);
				whenFirstRunStored = (await db.competitions.get(competition.id))?.data.name;
			}
			return fetch(input, init);
		};
		const client = new HalClient({ serviceUrl: service.url, fetch: watching });
		await downloadCompetition(client, competition._links.self.href, { concurrency: 1 });
		expect(whenFirstRunStored).toBe(competition.name);
	});

	it('puts back the competition it had stored when it fails later', async () => {
		const good = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(good);
		await downloadCompetition(good, competition._links.self.href);
		const lists = await dogRunLists(good, competition._links.self.href);
		const last = lists.at(-1);
		if (!last) throw new Error('no run');
		const stored = await db.competitions.get(competition.id);
		if (!stored) throw new Error('competition not stored');
		const previous = { ...stored, data: { ...stored.data, name: 'The copy before' }, fetchedAt: 5 };
		await db.competitions.put(previous);
		const failing: FetchLike = async (input, init) =>
			input === last.href
				? new Response('<html>Bad gateway</html>', {
						status: 502,
						headers: { 'Content-Type': 'text/html' }
					})
				: fetch(input, init);
		const bad = new HalClient({ serviceUrl: service.url, fetch: failing });
		const attempt = downloadCompetition(bad, competition._links.self.href, { concurrency: 1 });
		await expect(attempt).rejects.toMatchObject({ code: 'http', status: 502 });
		expect(await db.competitions.get(competition.id)).toEqual(previous);
	});

	it('refuses to remove a competition that still has unsent edits', async () => {
		const client = new HalClient({ serviceUrl: service.url });
		const competition = await inProgressCompetition(client);
		await downloadCompetition(client, competition._links.self.href);
		const dogRun = (await db.dogRuns.where('competitionId').equals(competition.id).first())!;
		await db.outbox.put({
			key: `dogRun:${dogRun.id}`,
			kind: 'dogRun',
			resourceId: dogRun.id,
			runId: dogRun.runId,
			competitionId: competition.id,
			href: dogRun.href,
			changes: { faults: 1 },
			base: { faults: 0 },
			status: 'pending',
			revision: 1,
			createdAt: 0,
			updatedAt: 0,
			attempts: 0,
			nextAttemptAt: 0,
			lastError: null,
			conflicts: null
		});
		expect(await removeDownload(competition.id)).toBe('has-unsent');
		expect(await db.dogRuns.where('competitionId').equals(competition.id).count()).toBeGreaterThan(
			0
		);

		await db.outbox.clear();
		expect(await removeDownload(competition.id)).toBe('removed');
		expect(await db.dogRuns.where('competitionId').equals(competition.id).count()).toBe(0);
		expect(await db.downloads.get(competition.id)).toBeUndefined();
	});
});
