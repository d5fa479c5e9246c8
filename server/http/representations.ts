// The interface's representations of the stored rows (HAL: each resource with its links), as
// the routes answer them; the rows come from the Repository (resources.ts).
import { decimal, type Link } from './hal.ts';
import type { CompetitionRow, DogRunRow, JudgeRow, RingRow, RunRow } from '../store/repository.ts';
import type { CheckInRow } from '../store/check-in-table.ts';
import type { PublicationRow } from '../store/publication-table.ts';

const NO_RINGS: ReadonlySet<number> = new Set();

/**
 * A competition; `changes` adds the link of its changes stream (the push extension), and each
 * ring in `timerRings` links its timer stream (the timer bridge).
 */
export function competitionResource(
	api: string,
	c: CompetitionRow,
	judges: JudgeRow[],
	rings: RingRow[],
	changes = false,
	timerRings: ReadonlySet<number> = NO_RINGS
): Record<string, unknown> {
	const base = `${api}/competitions/${c.id}`;
	const links: Record<string, Link> = {
		self: { href: base },
		competitions: { href: `${api}/competitions` },
		competitionRuns: { href: `${base}/runs` },
		// The event laptop's settings of its public views and its gate's check-ins (extensions:
		// docs/service.md).
		publication: { href: `${base}/publication` },
		checkIns: { href: `${base}/checkIns` }
	};
	if (changes) links.changes = { href: `${base}/changes` };
	return {
		id: c.id,
		name: c.name,
		dateFrom: c.date_from,
		dateTo: c.date_to,
		details: c.details,
		fees: c.fees,
		state: c.state,
		judges: judges.map((j) => ({
			id: j.id,
			firstname: j.firstname,
			lastname: j.lastname,
			country: j.country,
			_links: {
				competitionRuns: { href: `${base}/runs?judgeId=${j.id}{&ringId}`, templated: true }
			}
		})),
		rings: rings.map((r) => {
			const ringLinks: Record<string, Link> = {
				competitionRuns: { href: `${base}/runs?ringId=${r.id}{&judgeId}`, templated: true },
				nextDogRuns: { href: `${base}/nextDogRunsForRing/${r.id}` }
			};
			if (timerRings.has(r.id)) ringLinks.timer = { href: `${base}/rings/${r.id}/timer` };
			return { id: r.id, name: r.name, _links: ringLinks };
		}),
		_links: links
	};
}

export function progressOf(total: number, done: number): number {
	return total === 0 ? 0 : Math.floor((done * 100) / total);
}

export function runResource(api: string, r: RunRow): Record<string, unknown> {
	const self = `${api}/competitionRuns/${r.id}`;
	return {
		id: r.id,
		name: r.name,
		date: r.date,
		startTime: r.start_time,
		standardTime: decimal(r.standard_time_ms),
		maximalTime: decimal(r.maximal_time_ms),
		trackLength: r.track_length,
		progress: progressOf(r.total, r.done),
		dogSizeClass: { id: r.size_id, name: r.size_name },
		competitionRunLevel: { id: r.level_id, name: r.level_name },
		judge: {
			id: r.judge_id,
			firstname: r.judge_firstname,
			lastname: r.judge_lastname,
			country: r.judge_country
		},
		competitionRing: { id: r.ring_id, name: r.ring_name },
		_links: {
			self: { href: self },
			competition: { href: `${api}/competitions/${r.competition_id}` },
			competitionRuns: { href: `${api}/competitions/${r.competition_id}/runs` },
			dogRuns: { href: `${self}/dogRuns` }
		} satisfies Record<string, Link>
	};
}

export function dogRunResource(api: string, d: DogRunRow, run: RunRow): Record<string, unknown> {
	return {
		id: d.id,
		time: d.time_cs === null ? null : d.time_cs / 100,
		refusals: d.refusals,
		faults: d.faults,
		disqualified: d.disqualified === 1,
		absence: d.absence === 1,
		competitionRun: runResource(api, run),
		dog: {
			id: d.dog_id,
			name: d.dog_name,
			homeName: d.home_name,
			workbookNo: d.workbook_no,
			birthday: d.birthday,
			competitionLevel: { id: d.dog_level_id, name: d.dog_level_name },
			dogSizeClass: { id: d.dog_size_id, name: d.dog_size_name }
		},
		competitor: {
			id: d.competitor_id,
			firstname: d.firstname,
			lastname: d.lastname,
			identifier: d.identifier,
			country: d.country
		},
		_links: {
			self: { href: `${api}/dogRuns/${d.id}` },
			competitionRun: { href: `${api}/competitionRuns/${run.id}` },
			competition: { href: `${api}/competitions/${run.competition_id}` },
			// The gate's mark of this dog run (an extension: docs/service.md, "Check-in").
			checkIn: { href: `${api}/dogRuns/${d.id}/checkIn` }
		} satisfies Record<string, Link>
	};
}

/** What public views show of a competition (the event laptop's settings; docs/service.md). */
export function publicationResource(api: string, p: PublicationRow): Record<string, unknown> {
	const competition = `${api}/competitions/${p.competitionId}`;
	return {
		competitionId: p.competitionId,
		handlerNames: p.handlerNames,
		results: p.results,
		releasedRuns: p.releasedRuns,
		updatedAt: p.updatedAt,
		_links: {
			self: { href: `${competition}/publication` },
			competition: { href: competition }
		} satisfies Record<string, Link>
	};
}

/** The gate's mark of dog run `dogRunId` (status and markedAt null: never marked). */
export function checkInResource(
	api: string,
	dogRunId: number,
	competitionId: number,
	row: CheckInRow | null
): Record<string, unknown> {
	return {
		dogRunId,
		competitionId,
		status: row?.status ?? null,
		markedAt: row?.markedAt ?? null,
		_links: {
			self: { href: `${api}/dogRuns/${dogRunId}/checkIn` },
			dogRun: { href: `${api}/dogRuns/${dogRunId}` }
		} satisfies Record<string, Link>
	};
}

/** Every mark of a competition's gates (dog runs never marked are left out). */
export function checkInsResource(
	api: string,
	competitionId: number,
	rows: CheckInRow[]
): Record<string, unknown> {
	const competition = `${api}/competitions/${competitionId}`;
	return {
		competitionId,
		checkIns: rows.map((r) => checkInResource(api, r.dogRunId, competitionId, r)),
		_links: {
			self: { href: `${competition}/checkIns` },
			competition: { href: competition }
		} satisfies Record<string, Link>
	};
}
