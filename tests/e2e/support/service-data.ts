import { expect, type Page } from '@playwright/test';

/** Reads the service as an independent client would: from the entry point, by links only. */

export interface Link {
	href: string;
}
interface ListJson<T> {
	_embedded?: Record<string, T[]>;
	_links: { next?: Link };
}
export interface CompetitionJson {
	id: number;
	name: string;
	state: string;
	rings: { id: number; name: string }[];
	_links: { self: Link; competitionRuns: Link };
}
export interface RunJson {
	id: number;
	name: string;
	date: string;
	competitionRing: { id: number; name: string };
	trackLength: number;
	standardTime: number;
	maximalTime: number;
	progress: number;
	_links: { self: Link; dogRuns: Link };
}
export interface DogRunJson {
	id: number;
	time: number | null;
	faults: number;
	refusals: number;
	disqualified: boolean;
	absence: boolean;
	dog: { id: number; name: string };
	competitor: { firstname: string; lastname: string };
	_links: { self: Link };
}

/** Headers of the test's own reads (a device credential, against a service that needs one). */
export type ReadHeaders = Record<string, string>;

export async function getJson<T>(url: string, headers: ReadHeaders = {}): Promise<T> {
	const answer = await fetch(url, { headers });
	expect(answer.ok, `GET ${url}`).toBe(true);
	return (await answer.json()) as T;
}

export async function putJson(url: string, body: object): Promise<number> {
	const answer = await fetch(url, {
		method: 'PUT',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body)
	});
	return answer.status;
}

/** Walks a list by its `next` links, as any client must. */
export async function walk<T>(
	href: string,
	collection: string,
	headers: ReadHeaders = {}
): Promise<T[]> {
	const items: T[] = [];
	let next: string | undefined = href;
	while (next) {
		const page: ListJson<T> = await getJson<ListJson<T>>(next, headers);
		items.push(...(page._embedded?.[collection] ?? []));
		next = page._links.next?.href;
	}
	return items;
}

export async function inProgress(
	serviceUrl: string,
	headers: ReadHeaders = {}
): Promise<CompetitionJson> {
	const list = await walk<CompetitionJson>(
		new URL('/api/v1/competitions', serviceUrl).href,
		'competitions',
		headers
	);
	const competition = list.find((c) => c.state === 'IN_PROGRESS');
	if (!competition) throw new Error('no competition in progress');
	return competition;
}

export interface Queue {
	competition: Awaited<ReturnType<typeof inProgress>>;
	ringId: number;
	/** The ring's dogs without a result, in ring order, with their run and start number. */
	waiting: { dog: DogRunJson; run: RunJson; startNo: number }[];
}

/** The ring's queue as the service has it (links only): its runs in order, the dogs to come. */
export async function ringQueue(serviceUrl: string, headers: ReadHeaders = {}): Promise<Queue> {
	const competition = await inProgress(serviceUrl, headers);
	const ringId = competition.rings[0]!.id;
	const runs = (
		await walk<RunJson & { startTime: string }>(
			competition._links.competitionRuns.href,
			'competitionRuns',
			headers
		)
	)
		.filter((r) => r.competitionRing.id === ringId)
		.sort(
			(a, b) =>
				a.date.localeCompare(b.date) || a.startTime.localeCompare(b.startTime) || a.id - b.id
		);
	const waiting: Queue['waiting'] = [];
	for (const run of runs) {
		const dogs = await walk<DogRunJson>(run._links.dogRuns.href, 'dogRuns', headers);
		dogs.forEach((dog, i) => {
			if (dog.time === null && !dog.disqualified && !dog.absence) {
				waiting.push({ dog, run, startNo: i + 1 });
			}
		});
	}
	return { competition, ringId, waiting };
}

/** A run of the competition where no dog has a result yet, with its dog runs in start order. */
export async function unrecordedRun(
	serviceUrl: string,
	atLeast = 6,
	headers: ReadHeaders = {}
): Promise<{ competition: CompetitionJson; run: RunJson; dogRuns: DogRunJson[] }> {
	const competition = await inProgress(serviceUrl, headers);
	const runs = await walk<RunJson>(
		competition._links.competitionRuns.href,
		'competitionRuns',
		headers
	);
	for (const run of runs) {
		const dogRuns = await walk<DogRunJson>(run._links.dogRuns.href, 'dogRuns', headers);
		const untouched = dogRuns.every(
			(d) => d.time === null && !d.disqualified && !d.absence && d.faults === 0
		);
		if (untouched && dogRuns.length >= atLeast) return { competition, run, dogRuns };
	}
	throw new Error('no run without results in the seed');
}

export async function makeAvailableOffline(
	page: Page,
	name: string,
	{ appKept = true }: { appKept?: boolean } = {}
): Promise<void> {
	const card = page.getByTestId('competition').filter({ hasText: name });
	await card.getByRole('button', { name: 'Make available offline' }).click();
	// "✓ Available offline": the data stored, and the app itself kept (its worker in charge);
	// where no worker can be (`appKept: false`), the data alone.
	const badge = card.getByTestId('offline-badge');
	if (appKept) await expect(badge).toHaveAttribute('data-kept', 'true', { timeout: 30_000 });
	else await expect(badge).toBeVisible({ timeout: 30_000 });
	await expect(card.getByTestId('download-progress')).toHaveCount(0);
}

export interface Result {
	time?: string;
	faults?: number;
	refusals?: number;
}

/** Records a result on the capture screen of one dog run, as a steward would. */
export async function record(page: Page, dogRunId: number, result: Result): Promise<void> {
	await page.goto(`/dog-runs/${dogRunId}`);
	const time = page.getByTestId('time-input');
	await expect(time).toBeEditable();
	if (result.time !== undefined) await time.fill(result.time);
	for (const field of ['faults', 'refusals'] as const) {
		const wanted = result[field];
		if (wanted === undefined) continue;
		const label = field === 'faults' ? 'Faults' : 'Refusals';
		const shown = page.getByTestId(`${field}-value`);
		while (Number(await shown.textContent()) < wanted) {
			await page.getByRole('button', { name: `One more ${label}` }).click();
		}
		while (Number(await shown.textContent()) > wanted) {
			await page.getByRole('button', { name: `One less ${label}` }).click();
		}
	}
	await page.getByTestId('save').click();
	await expect(page.getByTestId('flash')).toContainText(/Saved on device|Nothing changed/);
}
