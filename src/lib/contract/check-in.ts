/**
 * Check-in at the gate (issue 33, part 4): the gate steward marks each dog present or not
 * presented before its run. The event laptop's own state, never published upstream. One rule for
 * the gate phones and the service: a mark is a register whose latest mark wins, by the time the
 * gate phone took it, so two gate phones that marked offline merge to the same answer in any
 * order. Pure, imports nothing.
 */

export const CHECK_IN_STATUSES = ['present', 'not-presented'] as const;
/** Present at the gate, or not presented; null: the mark was taken back. */
export type CheckInStatus = (typeof CHECK_IN_STATUSES)[number];

/** One dog run's mark as the gate phones and the service exchange it. */
export interface CheckInMark {
	status: CheckInStatus | null;
	/** When the gate phone took it: ISO 8601 with milliseconds, UTC. */
	markedAt: string;
}

/**
 * Whether `next` wins over `current`: a later mark; at the same instant, the one that says more
 * (present over not presented over none), so that every order of arrival gives one answer.
 */
export function wins(next: CheckInMark, current: CheckInMark | null | undefined): boolean {
	return !current || markKey(next) > markKey(current);
}

const rank = (s: CheckInStatus | null): number =>
	s === 'present' ? 2 : s === 'not-presented' ? 1 : 0;

/**
 * The order of marks as one text (the time, then the rank at the same instant): the service
 * compares it in SQL, so that a conditional write keeps the winner whatever commits last.
 */
export const markKey = (m: CheckInMark): string => `${m.markedAt}|${rank(m.status)}`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A mark a PUT carries, checked: `markedAt` later than the service's clock is taken as now (a
 * phone whose clock runs ahead must not win over every later mark). A message naming the field
 * when it is not valid.
 */
export function checkMarkBody(
	body: Record<string, unknown>,
	now: Date
): { ok: true; mark: CheckInMark } | { ok: false; message: string } {
	for (const key of Object.keys(body)) {
		if (key !== 'status' && key !== 'markedAt') {
			return { ok: false, message: `Unknown field '${key}'; send status and markedAt` };
		}
	}
	const { status, markedAt } = body;
	if (status !== null && !CHECK_IN_STATUSES.includes(status as CheckInStatus)) {
		return { ok: false, message: `status must be one of ${CHECK_IN_STATUSES.join(', ')}, or null` };
	}
	// Only the one spelling of a real instant: "2026-02-30…" or "T24:00…" would compare as text
	// out of their order.
	if (
		typeof markedAt !== 'string' ||
		!ISO.test(markedAt) ||
		Number.isNaN(Date.parse(markedAt)) ||
		new Date(markedAt).toISOString() !== markedAt
	) {
		return {
			ok: false,
			message: 'markedAt must be a UTC time as 2026-05-12T09:41:07.125Z'
		};
	}
	const capped = markedAt > now.toISOString() ? now.toISOString() : markedAt;
	return { ok: true, mark: { status: status as CheckInStatus | null, markedAt: capped } };
}
