import 'fake-indexeddb/auto';
import * as v from 'valibot';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { competitionJson, competitionRunJson, dogRunJson } from '$lib/api/test-support';
import { CompetitionRunSchema, CompetitionSchema, DogRunSchema } from '$lib/api/schemas';
import { db } from '$lib/db/db';
import { dogRunRow, putCompetition, runRow } from '$lib/db/snapshot-store';
import { RunSheet } from './run-sheet.svelte';

beforeEach(async () => {
	await db.delete();
	await db.open();
});

const cleanups: Array<() => void> = [];
afterEach(() => {
	while (cleanups.length) cleanups.pop()!();
});

it('never shows a stored run without its dogs while a download stores both (a sheet printed then said "No dog runs")', async () => {
	let sheet!: RunSheet;
	const seen: string[] = [];
	cleanups.push(
		$effect.root(() => {
			sheet = new RunSheet(() => 7);
			$effect(() => {
				if (sheet.loaded)
					seen.push(`${sheet.run.current ? 'run' : 'none'}/${sheet.dogRuns.current.length}`);
			});
		})
	);
	await expect.poll(() => sheet.loaded).toBe(true);
	expect(sheet.missing).toBe(true);

	// As the download keeps a competition: the run and its dogs in one transaction.
	const run = v.parse(CompetitionRunSchema, competitionRunJson(7));
	const rows = Array.from({ length: 3 }, (_, i) =>
		dogRunRow(v.parse(DogRunSchema, dogRunJson(700 + i, 7)), 7, 1, i, 0)
	);
	await db.transaction('rw', [db.runs, db.dogRuns], async () => {
		await db.runs.put(runRow(run, 1, 0));
		await db.dogRuns.bulkPut(rows);
	});
	await expect.poll(() => sheet.dogRuns.current.length).toBe(3);
	expect(sheet.run.current?.id).toBe(7);
	expect(seen.filter((s) => s.startsWith('run/0'))).toEqual([]);
	expect(seen.at(-1)).toBe('run/3');
});

it('is not loaded until the competition is read too (a sheet printed from a cold address lacked its competition name)', async () => {
	const run = v.parse(CompetitionRunSchema, competitionRunJson(7));
	await putCompetition(v.parse(CompetitionSchema, competitionJson(1)));
	await db.runs.put(runRow(run, 1, 0));
	await db.dogRuns.put(dogRunRow(v.parse(DogRunSchema, dogRunJson(700, 7)), 7, 1, 0, 0));

	let sheet!: RunSheet;
	const seen: string[] = [];
	cleanups.push(
		$effect.root(() => {
			sheet = new RunSheet(() => 7);
			$effect(() => {
				if (sheet.loaded)
					seen.push(
						`${sheet.run.current ? 'run' : 'none'}/${sheet.competition.current?.id ?? '-'}`
					);
			});
		})
	);
	await expect.poll(() => sheet.loaded).toBe(true);
	await expect.poll(() => sheet.competition.current?.id).toBe(1);
	expect(seen).not.toContain('run/-');
	expect(seen.at(-1)).toBe('run/1');
});

it('is loaded with no competition when its competition is not stored (the sheet still prints)', async () => {
	const run = v.parse(CompetitionRunSchema, competitionRunJson(7));
	await db.runs.put(runRow(run, 1, 0));
	let sheet!: RunSheet;
	cleanups.push(
		$effect.root(() => {
			sheet = new RunSheet(() => 7);
		})
	);
	await expect.poll(() => sheet.loaded).toBe(true);
	expect(sheet.run.current?.id).toBe(7);
	expect(sheet.competition.current).toBeUndefined();
});
