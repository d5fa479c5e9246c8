import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, ServiceHandle, test as base } from './fixtures';
import { pdfPages, squeeze } from './support/pdf';
import { inProgress, putJson, walk, type Link } from './support/service-data';

/**
 * Combined results (docs/results.md): the secretary opens a run's results by taps, chooses the
 * other run of the same size and level, and checks the combined ranking against the rule computed
 * here from the service's data, downloads it as CSV and prints it to PDF (A4, the heading on every
 * page). Then offline: a run that is not on the device is said to be so; the rest still works.
 *
 * The realistic seed, so that a run has about a hundred dogs and the print runs over pages.
 */
const test = base.extend({
	handle: async ({}, use) => {
		const handle = await new ServiceHandle({ seed: 'realistic' }).start();
		await use(handle);
		await handle.dispose();
	}
});
test.use({ viewport: { width: 360, height: 640 } });

const SCREENS = 'test-results/screens';

interface Ref {
	id: number;
	name: string;
}
interface Run {
	id: number;
	name: string;
	date: string;
	startTime: string;
	standardTime: number;
	maximalTime: number;
	dogSizeClass: Ref;
	competitionRunLevel: Ref;
	_links: { self: Link; dogRuns: Link };
}
interface DogRun {
	id: number;
	time: number | null;
	faults: number;
	refusals: number;
	disqualified: boolean;
	absence: boolean;
	dog: { id: number; name: string; homeName: string; workbookNo: string };
	competitor: { id: number; firstname: string; lastname: string };
	_links: { self: Link };
}
type Result = Pick<DogRun, 'time' | 'faults' | 'refusals' | 'disqualified' | 'absence'>;

const hundredths = (seconds: number) => Math.floor(seconds * 100 + 1e-6);
const clean = (h: number): Result => ({
	time: h / 100,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false
});

/**
 * The results the test records: one of ten patterns per team, so that the two runs hold clean
 * runs, faults, time faults, ties on penalties decided by time, exact ties on both sums, the
 * disqualified (flag and over the MCT), the absent and dogs not yet run.
 */
function designed(i: number, run: 'A' | 'B', r: Run, common: boolean): Result {
	const sct = hundredths(r.standardTime);
	const k = (i * 7) % 13; // spreads the times a little
	const m = Math.floor(i / 10) * 7; // the same for the two teams of a tie
	switch (common ? i % 10 : 0) {
		case 0:
			return clean(sct - 300 - k * 11);
		case 1:
			return { ...clean(sct - 350), faults: 1 };
		case 2:
			return { ...clean(sct + 237), refusals: 1 };
		case 3:
			return run === 'A' ? { ...clean(sct - 100), disqualified: true } : clean(sct - 900);
		case 4:
			return run === 'B' ? { ...clean(0), time: null, absence: true } : clean(sct - 111);
		case 5: // with case 6: the same penalties (0) and the same sum of times
			return clean(sct - m - (run === 'A' ? 500 : 300));
		case 6:
			return clean(sct - m - 400);
		case 7:
			return { ...clean(sct - 111), faults: 2 };
		case 8:
			return run === 'B' ? clean(Math.ceil(r.maximalTime * 100) + 50) : clean(sct - 222);
		default:
			// Every other one of these has not run the second run yet.
			return run === 'B' && i % 20 === 9 ? { ...clean(0), time: null } : clean(sct - 10 * k);
	}
}

type Outcome =
	{ kind: 'absent' | 'dis' | 'pending' } | { kind: 'ok'; penalties: number; time: number };

/** One dog run by the FCI rules (agility-rules.md), in thousandths; written apart from the app. */
function outcome(d: DogRun, r: Run): Outcome {
	const ms = (s: number) => Math.round(s * 1000);
	if (d.absence) return { kind: 'absent' };
	if (d.disqualified || d.refusals >= 3) return { kind: 'dis' };
	if (d.time !== null && ms(d.time) > ms(r.maximalTime)) return { kind: 'dis' };
	if (d.time === null) return { kind: 'pending' };
	const timeFaults = Math.max(0, ms(d.time) - ms(r.standardTime));
	return { kind: 'ok', penalties: 5000 * (d.faults + d.refusals) + timeFaults, time: ms(d.time) };
}

const en2 = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const plain2 = (thousandths: number) => (thousandths / 1000).toFixed(2);
const dogName = (d: DogRun) => `${d.dog.name} ${d.dog.homeName}`.trim();
const handlerName = (d: DogRun) => `${d.competitor.firstname} ${d.competitor.lastname}`.trim();

interface Expected {
	dog: string;
	handler: string;
	book: string;
	status: 'ranked' | 'eliminated' | 'absent' | 'missing' | 'pending';
	rank: number | null;
	penalties: number | null;
	time: number | null;
	parts: (Outcome | null)[];
	parts_time: (number | null)[];
}

/** The combined list by the rule of docs/results.md, from the service's data. */
function combine(runs: readonly Run[], lists: readonly DogRun[][]): Expected[] {
	const teams = new Map<string, DogRun[]>();
	for (const list of lists) {
		for (const d of list) teams.set(`${d.dog.id}/${d.competitor.id}`, [d]);
	}
	const lines = [...teams].map(([key, [first]]): Expected & { key: string; name: string } => {
		const own = lists.map((list) => list.find((d) => `${d.dog.id}/${d.competitor.id}` === key));
		const parts = own.map((d, r) => (d ? outcome(d, runs[r]!) : null));
		const status = parts.some((p) => p?.kind === 'dis')
			? 'eliminated'
			: parts.some((p) => p?.kind === 'absent')
				? 'absent'
				: parts.some((p) => p === null)
					? 'missing'
					: parts.some((p) => p?.kind === 'pending')
						? 'pending'
						: 'ranked';
		const sum = (f: (p: { penalties: number; time: number }) => number) =>
			status === 'ranked'
				? parts.reduce((s, p) => s + f(p as { penalties: number; time: number }), 0)
				: null;
		return {
			key,
			name: `${dogName(first!)} ${handlerName(first!)}`,
			dog: dogName(first!),
			handler: handlerName(first!),
			book: first!.dog.workbookNo,
			status,
			rank: null,
			penalties: sum((p) => p.penalties),
			time: sum((p) => p.time),
			parts,
			parts_time: own.map((d) => d?.time ?? null)
		};
	});
	const order = ['ranked', 'eliminated', 'absent', 'missing', 'pending'];
	const collator = new Intl.Collator('en');
	lines.sort(
		(a, b) =>
			order.indexOf(a.status) - order.indexOf(b.status) ||
			(a.penalties ?? 0) - (b.penalties ?? 0) ||
			(a.time ?? 0) - (b.time ?? 0) ||
			collator.compare(a.name, b.name) ||
			(a.key < b.key ? -1 : 1)
	);
	for (const line of lines) {
		if (line.status !== 'ranked') continue;
		const better = lines.filter(
			(o) =>
				o.status === 'ranked' &&
				(o.penalties! < line.penalties! || (o.penalties === line.penalties && o.time! < line.time!))
		);
		line.rank = better.length + 1;
	}
	return lines;
}

test('combined results of two runs: chosen by taps, ranked by the rule, as CSV and on A4; offline from the stored copy', async ({
	page,
	context,
	handle
}) => {
	test.setTimeout(180_000);

	// What the service holds, read as an independent client would (links only): the two first
	// runs of one size and level, of about a hundred dogs each.
	const competition = await inProgress(handle.url);
	const runs = await walk<Run>(competition._links.competitionRuns.href, 'competitionRuns');
	const classes = new Map<string, Run[]>();
	for (const r of runs) {
		const key = `${r.dogSizeClass.id}/${r.competitionRunLevel.id}`;
		classes.set(key, [...(classes.get(key) ?? []), r]);
	}
	let pair: [Run, Run] | null = null;
	let lists: [DogRun[], DogRun[]] = [[], []];
	for (const same of classes.values()) {
		if (same.length < 2 || same.some((r) => r.name.includes('part'))) continue;
		const [a, b] = same as [Run, Run];
		const [la, lb] = await Promise.all(
			[a, b].map((r) => walk<DogRun>(r._links.dogRuns.href, 'dogRuns'))
		);
		if (la!.length >= 80 && la!.length <= 150 && lb!.length >= 80) {
			pair = [a, b];
			lists = [la!, lb!];
			break;
		}
	}
	if (!pair) throw new Error('no size and level with two runs of 80 to 150 dogs in the seed');
	const [runA, runB] = pair;
	const other = runs.find(
		(r) =>
			r.dogSizeClass.id !== runA.dogSizeClass.id ||
			r.competitionRunLevel.id !== runA.competitionRunLevel.id
	)!;

	// The results, recorded through the service (as other phones would have).
	const keyOf = (d: DogRun) => `${d.dog.id}/${d.competitor.id}`;
	const inB = new Set(lists[1].map(keyOf));
	const commonOrder = lists[0].filter((d) => inB.has(keyOf(d))).map(keyOf);
	const index = (d: DogRun, i: number) => {
		const c = commonOrder.indexOf(keyOf(d));
		return c >= 0 ? { i: c, common: true } : { i, common: false };
	};
	for (const [which, run, list] of [
		['A', runA, lists[0]],
		['B', runB, lists[1]]
	] as const) {
		for (const [i, d] of list.entries()) {
			const at = index(d, i);
			expect(await putJson(d._links.self.href, designed(at.i, which, run, at.common))).toBe(200);
		}
	}
	const stored = await Promise.all(
		[runA, runB].map((r) => walk<DogRun>(r._links.dogRuns.href, 'dogRuns'))
	);
	const expected = combine([runA, runB], stored);
	const statuses = new Set(expected.map((e) => e.status));
	// The data exercises the rule: every kind of line, and ranks shared.
	for (const s of ['ranked', 'eliminated', 'absent', 'pending']) expect(statuses).toContain(s);
	const ranks = expected.flatMap((e) => (e.rank === null ? [] : [e.rank]));
	expect(new Set(ranks).size).toBeLessThan(ranks.length);

	// The app, opened once; then taps only: competition, the run's day, the run, its results.
	await page.goto('/');
	await page.getByRole('link', { name: competition.name }).click();
	await page.locator(`[data-testid="day"][data-date="${runA.date}"]`).click();
	await page.getByTestId('run').filter({ hasText: runA.name }).first().click();
	await expect(page.getByRole('heading', { name: runA.name })).toBeVisible();
	await page.getByTestId('run-outputs').getByRole('link', { name: 'Results' }).click();
	await expect(page.getByRole('heading', { name: `Results: ${runA.name}` })).toBeVisible();

	// Combine: the other run of the same size and level is offered first.
	await page.getByText('Combine with other runs').click();
	const sameClass = page.getByTestId('combine-run').filter({ hasText: runB.name });
	await expect(page.getByTestId('combine-run').first()).toHaveAttribute(
		'data-run-id',
		String(runB.id)
	);
	await page.screenshot({ path: `${SCREENS}/combined-360-1-choose.png` });
	await sameClass.click();
	await expect(sameClass).toHaveAttribute('aria-pressed', 'true');
	await expect(page).toHaveURL(new RegExp(`/runs/${runA.id}/results\\?with=${runB.id}$`));

	// The combined list: provisional, incomplete while dogs wait, in the order of the rule.
	const heading = `Combined results: ${runA.name} + ${runB.name}`;
	await expect(page.getByRole('heading', { name: heading })).toBeVisible();
	// (The first: the second is the printed heading's.)
	const status = page.getByTestId('combined-status').first();
	const settled = expected.filter((e) => e.status !== 'pending').length;
	await expect(status).toContainText('Provisional');
	await expect(status).toContainText(`${settled} of ${expected.length} teams are settled`);
	await expect(page.getByTestId('combined-line')).toHaveCount(expected.length);
	const shown = await page
		.getByTestId('combined-line')
		.evaluateAll((cards) =>
			cards.map((card) =>
				['.rank', '.dog', '.handler', '.sum'].map((s) =>
					(card.querySelector(s)?.textContent ?? '').replace(/\s+/g, ' ').trim()
				)
			)
		);
	expect(shown).toEqual(
		expected.map((e) => [
			e.rank === null ? '' : `${e.rank}.`,
			e.dog,
			e.handler,
			e.penalties === null
				? ''
				: `${en2.format(e.penalties / 1000)} ${en2.format(e.time! / 1000)} s`
		])
	);
	// (Below the app bar, which stays on screen.)
	const top = (selector: string) =>
		page
			.locator(selector)
			.first()
			.evaluate((e) => scrollTo(0, e.getBoundingClientRect().top + scrollY - 100));
	await top('h1');
	await page.screenshot({ path: `${SCREENS}/combined-360-2-heading.png` });
	await top('[data-testid="combined-line"]');
	await page.screenshot({ path: `${SCREENS}/combined-360-3-list.png` });
	await top('.cards h2');
	await page.screenshot({ path: `${SCREENS}/combined-360-4-unranked.png` });

	// The CSV: the same lines, with each run's penalties and time.
	const [download] = await Promise.all([
		page.waitForEvent('download'),
		page.getByRole('button', { name: 'Download CSV' }).click()
	]);
	expect(download.suggestedFilename()).toBe(`${runA.name} + ${runB.name}-combined.csv`);
	const csv = readFileSync(await download.path(), 'utf8');
	expect(csv.startsWith('\uFEFF')).toBe(true);
	const cell = (p: Outcome | null, time: number | null): [string, string] => {
		if (p === null) return ['not entered', ''];
		const t = time === null ? '' : time.toFixed(2);
		if (p.kind === 'ok') return [plain2(p.penalties), t];
		if (p.kind === 'dis') return ['DIS', t];
		if (p.kind === 'absent') return ['Absent', ''];
		return ['', t];
	};
	const note = {
		ranked: '',
		eliminated: 'Disqualified in a run',
		absent: 'Absent from a run',
		missing: 'Not in every run',
		pending: 'Not complete yet'
	};
	expect(csv.slice(1).split('\r\n')).toEqual([
		[
			'Rank',
			'Dog',
			'Handler',
			'Book',
			`${runA.name}: penalties`,
			`${runA.name}: time (s)`,
			`${runB.name}: penalties`,
			`${runB.name}: time (s)`,
			'Penalties in all',
			'Time in all (s)',
			'Note'
		].join(';'),
		...expected.map((e) =>
			[
				e.rank ?? '',
				e.dog,
				e.handler,
				e.book,
				...cell(e.parts[0]!, e.parts_time[0]!),
				...cell(e.parts[1]!, e.parts_time[1]!),
				e.penalties === null ? '' : plain2(e.penalties),
				e.time === null ? '' : plain2(e.time),
				note[e.status]
			].join(';')
		),
		''
	]);

	// On A4: the app's chrome left out, the heading on every page.
	const pdf = await page.pdf({ preferCSSPageSize: true, printBackground: true });
	const pages = pdfPages(pdf);
	expect(pages.length).toBeGreaterThan(1);
	for (const [n, text] of pages.entries()) {
		expect(squeeze(text), `page ${n + 1}`).toContain(squeeze(heading));
		expect(squeeze(text), `page ${n + 1}`).toContain(squeeze(competition.name));
		expect(text, `page ${n + 1}`).toContain('PROVISIONAL');
		expect(text, `page ${n + 1}`).not.toContain('Combine with other runs');
	}
	const all = squeeze(pages.join(''));
	for (const e of expected) expect(all).toContain(squeeze(e.dog));
	mkdirSync(SCREENS, { recursive: true });
	writeFileSync(`${SCREENS}/combined-a4.pdf`, pdf);

	// Offline: a run whose dogs are not on the device is said to be so, and nothing is ranked
	// without it; taken out again, the list comes back from the stored copy.
	await context.setOffline(true);
	await page.getByText('Other runs of this competition').click();
	const otherChoice = page.getByTestId('combine-run').filter({ hasText: other.name }).first();
	await otherChoice.click();
	await expect(page.getByTestId('combine-problem')).toHaveText(
		`“${other.name}” is not on this device. Open it while online, or make the competition available offline.`
	);
	await expect(page.getByTestId('combined-line')).toHaveCount(0);
	await expect(page.getByRole('button', { name: 'Download CSV' })).toBeDisabled();
	await expect(otherChoice).toContainText('Not on this device');
	await otherChoice.evaluate((e) => e.scrollIntoView({ block: 'center' }));
	await page.screenshot({ path: `${SCREENS}/combined-360-5-not-stored.png` });
	await otherChoice.click();
	await expect(page.getByTestId('combine-problem')).toHaveCount(0);
	await expect(page.getByTestId('combined-line')).toHaveCount(expected.length);

	// In Czech: the same list, in Czech words.
	await page.getByRole('link', { name: 'Settings' }).click();
	await page.getByLabel('Language').selectOption('cs');
	await page.goBack();
	const nadpis = `Souhrnné výsledky: ${runA.name} + ${runB.name}`;
	await expect(page.getByRole('heading', { name: nadpis })).toBeVisible();
	await expect(page.getByTestId('combined-status').first()).toContainText(
		`Uzavřeno ${settled} z ${expected.length} týmů`
	);
	await expect(page.getByTestId('combined-line')).toHaveCount(expected.length);
	await top('h1');
	await page.screenshot({ path: `${SCREENS}/combined-360-6-cs.png` });

	// "This run only" goes back to the run's own results.
	await page.getByTestId('this-run-only').click();
	await expect(page).toHaveURL(new RegExp(`/runs/${runA.id}/results$`));
	await expect(page.getByRole('heading', { name: `Výsledky: ${runA.name}` })).toBeVisible();
});
