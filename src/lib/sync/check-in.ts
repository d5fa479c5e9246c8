/**
 * Check-in at the gate ($lib/contract/check-in): this device's marks are stored at once and sent
 * when the service can be reached, each to the dog run's `checkIn` link; the service's marks are
 * read by following the competition's `checkIns` link (a service without it has no check-in) and
 * merged, the latest mark winning, so two gate phones that marked offline agree once both sent.
 */
import type { HalClient } from '$lib/api/hal-client';
import { ApiError } from '$lib/api/errors';
import { findLink } from '$lib/api/links';
import {
	CheckInSchema,
	CheckInsSchema,
	type CheckInJson,
	type Competition,
	type DogRun
} from '$lib/api/schemas';
import type { CheckInStatus } from '$lib/contract/check-in';
import {
	acknowledgeMark,
	markHere,
	refuseMark,
	storedCheckIns,
	storeServiceMarks
} from '$lib/db/check-in-store';
import { dogRun as storedDogRun } from '$lib/db/queries';

const hrefOf = (links: Parameters<typeof findLink>[0], rel: string): string | undefined => {
	const link = findLink(links, rel);
	return link && !link.templated ? link.href : undefined;
};

/** The `checkIn` link of a dog run as stored on the device now; null: none. */
async function checkInHrefOf(dogRunId: number): Promise<string | null> {
	const row = await storedDogRun(dogRunId);
	return (row && hrefOf(row.data._links, 'checkIn')) ?? null;
}

/** Whether the service has check-in for the competition. */
export const hasCheckIn = (competition: Competition): boolean =>
	hrefOf(competition._links, 'checkIns') !== undefined;

/** The mark as the service answered it, as the store keeps it. */
const serviceMark = (c: CheckInJson) => ({
	dogRunId: c.dogRunId,
	status: c.status,
	markedAt: c.markedAt,
	href: c._links.self.href
});

/**
 * Stores the service's marks of a competition (its list, or one pushed). False when the device
 * kept marks of its own over some of them (not yet sent, or later): its copy is then not the
 * list's, and a list read again must not be taken as unchanged from it.
 */
export async function storeCheckIns(
	competitionId: number,
	found: readonly CheckInJson[]
): Promise<boolean> {
	return (await storeServiceMarks(competitionId, found.map(serviceMark))) === 0;
}

/** Reads and stores the competition's marks; false where the service has no check-in. */
export async function fetchCheckIns(client: HalClient, competition: Competition): Promise<boolean> {
	const href = hrefOf(competition._links, 'checkIns');
	if (!href) return false;
	const { body } = await client.get(href, CheckInsSchema);
	await storeCheckIns(competition.id, body.checkIns);
	return true;
}

/** This device marks a dog (stored at once; `sendCheckIns` sends it). */
export function markDog(
	competitionId: number,
	dogRun: Pick<DogRun, 'id' | '_links'>,
	status: CheckInStatus | null,
	now = new Date()
): Promise<void> {
	return markHere(
		competitionId,
		dogRun.id,
		hrefOf(dogRun._links, 'checkIn') ?? null,
		status,
		now.toISOString()
	);
}

/** Answers that refuse the mark itself: sending it again changes nothing (401 waits for a join). */
const REFUSALS = new Set([400, 403, 404, 409, 413, 422]);

/**
 * Sends this device's marks not yet taken, one by one; the answers (the winner, which may be
 * another gate phone's later mark) are stored. A refusal of the mark (400, 403, 404, …) is kept
 * with the service's words and not sent again; anything else (no network, the service away) leaves the mark to send later
 * and stops this round. Returns how many are still to send.
 */
export async function sendCheckIns(client: HalClient, competitionId: number): Promise<number> {
	const marks = [...(await storedCheckIns(competitionId)).values()].filter(
		(m) => m.unsent && !m.refused
	);
	let left = marks.length;
	for (const mark of marks) {
		// A dog run stored before the service linked its mark: its copy as read since.
		const href = mark.href ?? (await checkInHrefOf(mark.dogRunId));
		if (href === null) continue;
		try {
			const { body } = await client.send(
				'PUT',
				href,
				{ status: mark.status, markedAt: mark.markedAt },
				CheckInSchema
			);
			if (body) await acknowledgeMark(competitionId, mark.markedAt, serviceMark(body));
			left--;
		} catch (e) {
			// Not an answer of the service's (storage, a bug): the caller hears of it.
			if (!(e instanceof ApiError)) throw e;
			const status = e.status;
			if (status !== undefined && REFUSALS.has(status)) {
				const words = e.serverMessage ?? `HTTP ${status}`;
				await refuseMark(competitionId, mark.dogRunId, mark.markedAt, words);
				left--;
				continue;
			}
			break;
		}
	}
	return left;
}
