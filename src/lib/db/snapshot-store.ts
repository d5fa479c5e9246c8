import type { Competition, CompetitionRun, DogRun } from '$lib/api/schemas';
import { db, type DogRunRow, type DogRunSnapshot, type RunRow } from './db';

/** Drops the competition run a dog run embeds: it is stored once, in `runs`. */
export function dogRunSnapshot(dogRun: DogRun): DogRunSnapshot {
	const { competitionRun: _embedded, ...rest } = dogRun;
	return rest;
}

export function runRow(run: CompetitionRun, competitionId: number, now: number): RunRow {
	return {
		id: run.id,
		competitionId,
		href: run._links.self.href,
		date: run.date,
		startTime: run.startTime,
		ringId: run.competitionRing.id,
		judgeId: run.judge.id,
		data: run,
		fetchedAt: now
	};
}

export function dogRunRow(
	dogRun: DogRun,
	runId: number,
	competitionId: number,
	order: number,
	now: number
): DogRunRow {
	return {
		id: dogRun.id,
		runId,
		competitionId,
		order,
		href: dogRun._links.self.href,
		data: dogRunSnapshot(dogRun),
		fetchedAt: now
	};
}

/**
 * Replaces the stored snapshot of one dog run with what the server just sent, keeping its place in
 * the start order. Returns false when the dog run is not stored (not downloaded): nothing to update.
 * Only snapshots change here: unsent edits live in the outbox and stay laid over them.
 */
export async function putDogRunSnapshot(dogRun: DogRun, now = Date.now()): Promise<boolean> {
	return db.transaction('rw', db.dogRuns, db.runs, async () => {
		const existing = await db.dogRuns.get(dogRun.id);
		if (!existing) return false;
		await db.dogRuns.put({
			...existing,
			href: dogRun._links.self.href,
			data: dogRunSnapshot(dogRun),
			fetchedAt: now
		});
		// The embedded run carries the fresh progress of the run.
		const run = await db.runs.get(existing.runId);
		if (run) {
			await db.runs.put({
				...run,
				data: { ...run.data, ...dogRun.competitionRun, _links: run.data._links },
				fetchedAt: now
			});
		}
		return true;
	});
}

/** Replaces the stored snapshot of one competition run (course parameters, progress). */
export async function putRunSnapshot(run: CompetitionRun, now = Date.now()): Promise<boolean> {
	return db.transaction('rw', db.runs, async () => {
		const existing = await db.runs.get(run.id);
		if (!existing) return false;
		await db.runs.put(runRow(run, existing.competitionId, now));
		return true;
	});
}

/** Stores a competition's own resource (name, dates, rings, judges). */
export async function putCompetition(competition: Competition, now = Date.now()): Promise<void> {
	await db.competitions.put({
		id: competition.id,
		href: competition._links.self.href,
		data: competition,
		fetchedAt: now
	});
}
