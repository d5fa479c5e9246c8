import { describe, expect, it } from 'vitest';
import type { DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import {
	combineCandidates,
	combinedResults,
	parseRunIds,
	teamKey,
	toggleRunId
} from './combined-view';

function run(
	id: number,
	over: { date?: string; startTime?: string; size?: number; level?: number; sct?: number } = {}
): RunRow {
	const { date = '2026-11-21', startTime = '08:00:00', size = 4, level = 3, sct = 50 } = over;
	return {
		id,
		competitionId: 1,
		href: `http://svc/api/v1/competitionRuns/${id}`,
		date,
		startTime,
		ringId: 1,
		judgeId: 1,
		fetchedAt: 0,
		data: {
			id,
			name: `Run ${id}`,
			date,
			startTime,
			standardTime: sct,
			maximalTime: sct * 1.5,
			trackLength: 200,
			dogSizeClass: { id: size, name: `Size ${size}` },
			competitionRunLevel: { id: level, name: `A${level}` }
		}
	} as unknown as RunRow;
}

function dogRun(
	id: number,
	runId: number,
	order: number,
	who: { dog: number; handler: number; name?: string },
	time: number | null,
	faults = 0
): DogRunRow {
	return {
		id,
		runId,
		competitionId: 1,
		order,
		href: `http://svc/api/v1/dogRuns/${id}`,
		fetchedAt: 0,
		data: {
			id,
			time,
			faults,
			refusals: 0,
			disqualified: false,
			absence: false,
			dog: {
				id: who.dog,
				name: who.name ?? `Dog${who.dog}`,
				homeName: '',
				workbookNo: `B${who.dog}`,
				dogSizeClass: { id: 4, name: 'Large' },
				competitionLevel: { id: 3, name: 'A3' }
			} as unknown as DogRunRow['data']['dog'],
			competitor: {
				id: who.handler,
				firstname: 'H',
				lastname: `${who.handler}`
			} as DogRunRow['data']['competitor'],
			_links: { self: { href: `http://svc/api/v1/dogRuns/${id}` } }
		}
	} as unknown as DogRunRow;
}

function unsent(key: string, changes: Record<string, unknown>): OutboxEntry {
	const [kind, id] = key.split(':');
	return {
		key,
		kind,
		resourceId: Number(id),
		runId: 2,
		competitionId: 1,
		href: '',
		changes,
		base: {},
		status: 'pending',
		revision: 1,
		createdAt: 0,
		updatedAt: 0,
		attempts: 0,
		nextAttemptAt: 0,
		lastError: null,
		conflicts: null
	} as OutboxEntry;
}

describe('combinedResults', () => {
	const a = run(1, { sct: 50 });
	const j = run(2, { sct: 40 });
	const aDogs = [
		dogRun(11, 1, 0, { dog: 1, handler: 1 }, 45, 1), // 5
		dogRun(12, 1, 1, { dog: 2, handler: 2 }, 48), // 0
		dogRun(13, 1, 2, { dog: 3, handler: 3 }, 40) // 0, another handler in the jumping
	];
	const jDogs = [
		dogRun(21, 2, 0, { dog: 2, handler: 2 }, null), // not yet run on the server
		dogRun(22, 2, 1, { dog: 1, handler: 1 }, 35),
		dogRun(23, 2, 2, { dog: 3, handler: 4 }, 30)
	];

	it('matches dog and handler across runs, with the unsent edits laid over', () => {
		const table = combinedResults([
			{ run: a, dogRuns: aDogs, entries: new Map() },
			{
				run: j,
				dogRuns: jDogs,
				entries: new Map([['dogRun:21', unsent('dogRun:21', { time: 39.5 })]])
			}
		]);
		expect(table.lines.map((l) => [l.team, l.status, l.rank, l.penalties, l.time])).toEqual([
			['2/2', 'ranked', 1, 0, 87.5],
			['1/1', 'ranked', 2, 5, 80],
			['3/3', 'missing', null, null, null],
			['3/4', 'missing', null, null, null]
		]);
		expect(table.lines[0]?.item).toMatchObject({ dog: 'Dog2', handler: 'H 2', book: 'B2' });
		expect(table.lines[0]?.parts.map((p) => p.entry?.item.row.id)).toEqual([12, 21]);
	});

	it('scores each run with its course, an unsent course edit included', () => {
		// The jumping's SCT lowered to 34 s on this phone: dog 1's 35 s costs 1 time fault.
		const table = combinedResults([
			{ run: a, dogRuns: aDogs, entries: new Map() },
			{
				run: j,
				dogRuns: jDogs,
				entries: new Map([['run:2', unsent('run:2', { standardTime: 34 })]])
			}
		]);
		const dog1 = table.lines.find((l) => l.team === '1/1');
		expect(dog1?.penalties).toBe(6);
		expect(table.lines.find((l) => l.team === '2/2')?.status).toBe('pending');
	});

	it('keys a team by dog id and competitor id', () => {
		expect(teamKey(aDogs[0] as DogRunRow)).toBe('1/1');
		expect(teamKey(jDogs[2] as DogRunRow)).toBe('3/4');
	});
});

describe('combineCandidates', () => {
	it('offers the same size and level first, then the others, each in the order of the day', () => {
		const mine = run(1, { size: 4, level: 3 });
		const runs = [
			mine,
			run(5, { size: 4, level: 3, date: '2026-11-22' }),
			run(2, { size: 4, level: 3, startTime: '13:00:00' }),
			run(3, { size: 1, level: 3 }),
			run(4, { size: 4, level: 2, startTime: '07:00:00' }),
			{ ...run(6, { size: 4, level: 3 }), competitionId: 2 }
		];
		const { same, others } = combineCandidates(mine, runs);
		expect(same.map((r) => r.id)).toEqual([2, 5]);
		expect(others.map((r) => r.id)).toEqual([4, 3]);
	});
});

describe('the with parameter', () => {
	it.each([
		[null, []],
		['', []],
		['12', [12]],
		['12,15, 3', [12, 15, 3]],
		['12,12,x,-1,0,1.5,,7', [12, 7]],
		['99999999999999999999', []]
	] as const)('%o → %o', (value, ids) => {
		expect(parseRunIds(value)).toEqual(ids);
	});

	it('adds a run or takes it out', () => {
		expect(toggleRunId([12], 15)).toEqual([12, 15]);
		expect(toggleRunId([12, 15], 12)).toEqual([15]);
	});
});
