/**
 * The gate's marks as this device has them ($lib/contract/check-in), per competition, in the
 * settings table: the service's, merged with this device's own marks not yet sent. Every change
 * is one read-modify-write transaction, so a mark taken while an answer is stored is not lost.
 */
import { wins, type CheckInMark, type CheckInStatus } from '$lib/contract/check-in';
import { db } from './db';

export const checkInsKey = (competitionId: number): string => `checkIns:${competitionId}`;

export interface StoredCheckIn extends CheckInMark {
	dogRunId: number;
	/** Where the mark is sent (the dog run's `checkIn` link); null: not known here. */
	href: string | null;
	/** This device's mark, not yet taken by the service. */
	unsent: boolean;
	/** The service refused this device's mark, in its words (it is not sent again). */
	refused?: string;
}

type Marks = Record<string, StoredCheckIn>;

async function update(competitionId: number, change: (marks: Marks) => void): Promise<void> {
	const key = checkInsKey(competitionId);
	await db.transaction('rw', db.settings, async () => {
		const marks = ((await db.settings.get(key))?.value as Marks | undefined) ?? {};
		change(marks);
		await db.settings.put({ key, value: marks });
	});
}

/** The marks of a competition, by dog run. */
export async function storedCheckIns(competitionId: number): Promise<Map<number, StoredCheckIn>> {
	const marks = ((await db.settings.get(checkInsKey(competitionId)))?.value as Marks) ?? {};
	return new Map(Object.values(marks).map((m) => [m.dogRunId, m]));
}

/** This device's mark, kept until the service takes it. */
export function markHere(
	competitionId: number,
	dogRunId: number,
	href: string | null,
	status: CheckInStatus | null,
	markedAt: string
): Promise<void> {
	return update(competitionId, (marks) => {
		marks[dogRunId] = { dogRunId, href, status, markedAt, unsent: true };
	});
}

/**
 * Marks as the service has them: each replaces this device's copy unless that copy wins over it:
 * a mark of this device's own, not yet sent (it is sent next and wins there too), or a later mark
 * of the service's already here (a list read before that mark landed, stored after it came over
 * the push link, must not undo it; the service keeps the latest, so its marks only move forward).
 * Resolves to how many of them were not taken for that reason.
 */
export function storeServiceMarks(
	competitionId: number,
	found: readonly {
		dogRunId: number;
		status: CheckInStatus | null;
		markedAt: string | null;
		href: string;
	}[]
): Promise<number> {
	let kept = 0;
	return update(competitionId, (marks) => {
		kept = 0;
		for (const s of found) {
			if (s.markedAt === null) continue;
			const mine = marks[s.dogRunId];
			const theirs = { status: s.status, markedAt: s.markedAt };
			if (mine && !mine.refused && wins(mine, theirs)) {
				kept++;
				continue;
			}
			marks[s.dogRunId] = { dogRunId: s.dogRunId, href: s.href, ...theirs, unsent: false };
		}
	}).then(() => kept);
}

/** The service refused this device's mark `markedAt` (unless a newer one was taken since). */
export function refuseMark(
	competitionId: number,
	dogRunId: number,
	markedAt: string,
	message: string
): Promise<void> {
	return update(competitionId, (marks) => {
		const mine = marks[dogRunId];
		if (mine?.unsent && mine.markedAt === markedAt) marks[dogRunId] = { ...mine, refused: message };
	});
}

/**
 * The service took this device's mark `sentAt` and answered with what it then had: the mark is
 * sent, whatever the answer's time (the service takes a time ahead of its clock as its now), unless
 * a mark that wins over the answer came here meanwhile: a newer one taken here (sent next, or it
 * gives way to a later answer), or a later one of the service's, pushed before the answer landed.
 */
export function acknowledgeMark(
	competitionId: number,
	sentAt: string,
	answer: { dogRunId: number; status: CheckInStatus | null; markedAt: string | null; href: string }
): Promise<void> {
	return update(competitionId, (marks) => {
		const mine = marks[answer.dogRunId];
		if (answer.markedAt === null) return;
		const theirs = { status: answer.status, markedAt: answer.markedAt };
		if (mine && mine.markedAt !== sentAt && !mine.refused && wins(mine, theirs)) return;
		marks[answer.dogRunId] = {
			dogRunId: answer.dogRunId,
			href: answer.href,
			...theirs,
			unsent: false
		};
	});
}

/** Forgets a mark the service refused (the steward read why): the service's, if any, shows again. */
export function dropRefused(competitionId: number, dogRunId: number): Promise<void> {
	return update(competitionId, (marks) => {
		if (marks[dogRunId]?.refused) delete marks[dogRunId];
	});
}

/** The competitions with marks of this device that wait to be sent. */
export async function competitionsWithUnsent(): Promise<number[]> {
	const rows = await db.settings.where('key').startsWith('checkIns:').toArray();
	return rows
		.filter((r) =>
			Object.values((r.value as Marks | undefined) ?? {}).some((m) => m.unsent && !m.refused)
		)
		.map((r) => Number(r.key.slice('checkIns:'.length)));
}
