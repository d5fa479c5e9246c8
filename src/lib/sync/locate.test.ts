import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { HalClient, type FetchLike } from '$lib/api/hal-client';
import { CompetitionRunSchema, DogRunSchema, type Competition } from '$lib/api/schemas';
import { db } from '$lib/db/db';
import { daysAway, locate, searchOrder } from './locate';
import { useSmallService } from './test-service';

const service = useSmallService('locate');

/**
 * A client that records every URL it asks for, and every text the service answered: a URL asked
 * for must be the entry point (with its documented parameters) or appear in an earlier answer.
 */
function recordingClient() {
	const asked: string[] = [];
	const answers: string[] = [];
	const fetch: FetchLike = async (input, init) => {
		asked.push(input);
		const response = await globalThis.fetch(input, init);
		const text = await response.clone().text();
		answers.push(text);
		return response;
	};
	const client = new HalClient({ serviceUrl: service.url, fetch });
	const built = () =>
		asked.filter((url, i) => {
			if (url.split('?')[0] === client.entryPoint) {
				const params = [...new URL(url).searchParams.keys()];
				return !params.every((p) => ['dateFrom', 'dateTo', 'state', 'page', 'size'].includes(p));
			}
			const escaped = JSON.stringify(url).slice(1, -1);
			return !answers.slice(0, i).some((text) => text.includes(escaped) || text.includes(url));
		});
	return { client, asked, built };
}

/** The small seed as an independent client reads it: each competition with its runs' ids. */
async function seed(client: HalClient) {
	const competitions = (await client.listCompetitions({ size: 100 })).items;
	const out: { competition: Competition; runs: number[]; dogRuns: number[] }[] = [];
	for (const competition of competitions) {
		const runs: number[] = [];
		const dogRuns: number[] = [];
		const href = competition._links.competitionRuns as { href: string };
		for await (const page of client.pages(href.href, 'competitionRuns', CompetitionRunSchema)) {
			for (const run of page.items) {
				runs.push(run.id);
				const link = run._links.dogRuns as { href: string };
				for await (const p of client.pages(link.href, 'dogRuns', DogRunSchema)) {
					dogRuns.push(...p.items.map((d) => d.id));
				}
			}
		}
		out.push({ competition, runs, dogRuns });
	}
	return out;
}

const TODAY_OF = (c: Competition) => c.dateFrom;

describe('searchOrder', () => {
	const c = (id: number, state: string, dateFrom: string, dateTo: string) => ({
		id,
		state,
		dateFrom,
		dateTo
	});
	it.each([
		{
			name: 'in progress first, whatever its dates',
			list: [
				c(1, 'NEW', '2026-06-10', '2026-06-10'),
				c(2, 'IN_PROGRESS', '2026-05-01', '2026-05-02')
			],
			today: '2026-06-10',
			order: [2, 1]
		},
		{
			name: 'then the nearest today, on either side',
			list: [
				c(1, 'NEW', '2026-07-01', '2026-07-01'),
				c(2, 'NEW', '2026-06-12', '2026-06-13'),
				c(3, 'CLOSED', '2026-06-01', '2026-06-08'),
				c(4, 'NEW', '2026-06-10', '2026-06-11')
			],
			today: '2026-06-10',
			order: [4, 2, 3, 1]
		},
		{
			name: 'the next one before the last one at the same distance',
			list: [c(1, 'CLOSED', '2026-06-05', '2026-06-07'), c(2, 'NEW', '2026-06-13', '2026-06-14')],
			today: '2026-06-10',
			order: [2, 1]
		},
		{
			name: 'ties by id',
			list: [c(9, 'NEW', '2026-06-20', '2026-06-20'), c(3, 'NEW', '2026-06-20', '2026-06-21')],
			today: '2026-06-10',
			order: [3, 9]
		}
	])('$name', ({ list, today, order }) => {
		expect(searchOrder(list, today).map((x) => x.id)).toEqual(order);
	});

	it('counts days across a month and a year', () => {
		expect(daysAway({ dateFrom: '2027-01-02', dateTo: '2027-01-03' }, '2026-12-30')).toBe(3);
		expect(daysAway({ dateFrom: '2026-02-27', dateTo: '2026-02-28' }, '2026-03-02')).toBe(2);
		expect(daysAway({ dateFrom: '2026-03-01', dateTo: '2026-03-05' }, '2026-03-03')).toBe(0);
	});
});

describe('locate', () => {
	it('finds a competition in the entry point’s list by its id, building no URI', async () => {
		const { client, built } = recordingClient();
		const [, , third] = await seed(client);
		const wanted = third!.competition;

		const found = await locate(client, { kind: 'competition', id: wanted.id });

		expect(found).toEqual({ found: 'competition', competition: wanted });
		expect(built()).toEqual([]);
	});

	it('finds a run in the runs of the competitions in progress first, then the nearest', async () => {
		const probe = recordingClient();
		const [first, second, third] = await seed(probe.client);
		const { client, asked, built } = recordingClient();
		const run = second!.runs.at(-1)!;

		const found = await locate(
			client,
			{ kind: 'run', id: run },
			{ today: TODAY_OF(first!.competition) }
		);

		expect(found).toMatchObject({
			found: 'competition',
			competition: { id: second!.competition.id }
		});
		const runsOf = (c: Competition) => (c._links.competitionRuns as { href: string }).href;
		const runLists = asked.filter((url) =>
			[first, second, third].some((s) => url.startsWith(runsOf(s!.competition)))
		);
		// The competition in progress was looked through first; the third never.
		expect(runLists[0]!.startsWith(runsOf(first!.competition))).toBe(true);
		expect(runLists.some((url) => url.startsWith(runsOf(third!.competition)))).toBe(false);
		expect(built()).toEqual([]);
		// A run's search stores nothing: the screen downloads the competition it found.
		expect(await db.runs.count()).toBe(0);
	});

	it('finds a dog run by reading the competitions in full, and keeps the one that has it', async () => {
		const probe = recordingClient();
		const [first, , third] = await seed(probe.client);
		const { client, built } = recordingClient();
		const dogRun = third!.dogRuns[0]!;
		const steps: string[] = [];

		const found = await locate(
			client,
			{ kind: 'dogRun', id: dogRun },
			{
				today: TODAY_OF(first!.competition),
				onProgress: (p) => {
					if (p.step === 'competition' && p.read === undefined) steps.push(`${p.at}/${p.of}`);
				}
			}
		);

		expect(found).toMatchObject({ found: 'kept', competition: { id: third!.competition.id } });
		expect(steps).toEqual(['1/3', '2/3', '3/3']);
		expect(built()).toEqual([]);
		// Kept as a download of that competition, and nothing of those looked through before.
		expect(await db.downloads.get(third!.competition.id)).toMatchObject({ state: 'complete' });
		expect((await db.dogRuns.get(dogRun))?.competitionId).toBe(third!.competition.id);
		expect(await db.dogRuns.count()).toBe(third!.dogRuns.length);
		expect(await db.runs.count()).toBe(third!.runs.length);
		expect(await db.downloads.count()).toBe(1);
	});

	it('stops at its bound and says how far it looked', async () => {
		const probe = recordingClient();
		const [first, , third] = await seed(probe.client);
		const { client } = recordingClient();

		const found = await locate(
			client,
			{ kind: 'dogRun', id: third!.dogRuns[0]! },
			{ today: TODAY_OF(first!.competition), bounds: { dogRunCompetitions: 2 } }
		);

		expect(found).toEqual({ found: false, looked: 2, listed: 3, bounded: true });
		expect(await db.dogRuns.count()).toBe(0);
		expect(await db.downloads.count()).toBe(0);
	});

	it('says what is not on the service at all, after looking everywhere within the bound', async () => {
		const { client } = recordingClient();
		expect(await locate(client, { kind: 'run', id: 999_999 })).toEqual({
			found: false,
			looked: 3,
			listed: 3,
			bounded: false
		});
		expect(await locate(client, { kind: 'competition', id: 999_999 })).toEqual({
			found: false,
			looked: 3,
			listed: 3,
			bounded: false
		});
	});

	it('reads no more pages of the list than its bound, and says the list went on', async () => {
		const { client, asked } = recordingClient();
		const found = await locate(
			client,
			{ kind: 'competition', id: 999_999 },
			{ bounds: { pageSize: 1, listPages: 2 } }
		);
		// The first page lists those in progress (one), the second the whole list's first: the same.
		expect(found).toEqual({ found: false, looked: 1, listed: 1, bounded: true });
		expect(asked.filter((url) => url.startsWith(client.entryPoint))).toHaveLength(2);
	});

	it('stops when cancelled', async () => {
		const { client } = recordingClient();
		const controller = new AbortController();
		const search = locate(
			client,
			{ kind: 'dogRun', id: 999_999 },
			{
				signal: controller.signal,
				onProgress: (p) => {
					if (p.step === 'competition') controller.abort();
				}
			}
		);
		await expect(search).rejects.toThrow();
		expect(await db.dogRuns.count()).toBe(0);
	});
});
