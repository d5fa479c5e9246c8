import { describe, expect, it } from 'vitest';
import type { DogRunRow, OutboxEntry, RunRow } from '$lib/db/db';
import { entrantOf, groupRuns, runResults, runView } from './run-view';

function dogRun(id: number, order: number, time: number | null, faults = 0): DogRunRow {
	return {
		id,
		runId: 1,
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
			dog: {} as DogRunRow['data']['dog'],
			competitor: {} as DogRunRow['data']['competitor'],
			_links: { self: { href: `http://svc/api/v1/dogRuns/${id}` } }
		}
	};
}

function pending(id: number, changes: Record<string, unknown>): OutboxEntry {
	return {
		key: `dogRun:${id}`,
		kind: 'dogRun',
		resourceId: id,
		runId: 1,
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
	};
}

describe('runView', () => {
	const rows = [dogRun(1, 0, 40), dogRun(2, 1, 38), dogRun(3, 2, null)];
	const course = { trackLength: 200, standardTime: 39, maximalTime: 60 };

	it('lays unsent edits over the server snapshot and ranks the result', () => {
		const entries = new Map([['dogRun:3', pending(3, { time: 35.5 })]]);
		const view = runView(rows, entries, course);
		expect(view.map((v) => v.result.time)).toEqual([40, 38, 35.5]);
		expect(view.map((v) => v.sync)).toEqual([null, null, 'pending']);
		expect(view.map((v) => v.ranked.rank)).toEqual([3, 2, 1]);
		expect(view[0]!.ranked.score.total).toBe(1);
	});

	it('re-scores every dog when the standard time changes', () => {
		const slower = runView(rows, new Map(), { ...course, standardTime: 41 });
		expect(slower.map((v) => v.ranked.score.total)).toEqual([0, 0, 0]);
		expect(slower.map((v) => v.ranked.score.status)).toEqual(['finished', 'finished', 'pending']);
	});
});

describe('groupRuns', () => {
	it('groups by day, then ring, keeping the order within each', () => {
		const run = (id: number, date: string, ring: string) =>
			({ id, date, data: { competitionRing: { name: ring } } }) as unknown as RunRow;
		const groups = groupRuns([
			run(1, '2026-11-21', 'Ring 1'),
			run(2, '2026-11-21', 'Ring 2'),
			run(3, '2026-11-21', 'Ring 1'),
			run(4, '2026-11-22', 'Ring 1')
		]);
		expect(
			groups.map((g) => [g.date, g.rings.map(([name, runs]) => [name, runs.map((r) => r.id)])])
		).toEqual([
			[
				'2026-11-21',
				[
					['Ring 1', [1, 3]],
					['Ring 2', [2]]
				]
			],
			['2026-11-22', [['Ring 1', [4]]]]
		]);
	});
});

describe('runResults', () => {
	const named = (id: number, order: number, time: number | null, extra: object = {}): DogRunRow => {
		const row = dogRun(id, order, time);
		row.data.dog = {
			id,
			name: `Dog ${id}`,
			homeName: 'z Lesa',
			workbookNo: `VK ${id}`,
			birthday: '2020-01-01',
			competitionLevel: { id: 3, name: 'A3' },
			dogSizeClass: { id: 1, name: 'Large' },
			...extra
		};
		row.data.competitor = {
			id,
			firstname: 'Šárka',
			lastname: 'Dvořáková',
			identifier: '',
			country: 'CZ'
		};
		return row;
	};
	const course = { trackLength: 200, standardTime: 39, maximalTime: 60 };

	it('orders by rank with unsent edits laid over, numbering starts from the start order', () => {
		const rows = [named(1, 0, 40), named(2, 1, null), named(3, 2, null)];
		const entries = new Map([['dogRun:3', pending(3, { time: 35.5 })]]);
		const table = runResults(rows, entries, course);
		expect(table.lines.map((l) => [l.startNo, l.rank, l.item.row.id])).toEqual([
			[3, 1, 3],
			[1, 2, 1],
			[2, null, 2]
		]);
		expect(table.lines[0]!.item.dog).toBe('Dog 3 z Lesa');
		expect(table.complete).toBe(false);
	});

	it('names the entrant, with a breed only when the service sends one', () => {
		expect(entrantOf(named(1, 0, null))).toEqual({
			dog: 'Dog 1 z Lesa',
			handler: 'Šárka Dvořáková',
			book: 'VK 1',
			size: 'Large',
			level: 'A3',
			breed: null
		});
		expect(entrantOf(named(1, 0, null, { breed: 'Border Collie' })).breed).toBe('Border Collie');
		expect(entrantOf(named(1, 0, null, { breed: { id: 1, name: 'Sheltie' } })).breed).toBe(
			'Sheltie'
		);
		expect(entrantOf(named(1, 0, null, { breed: 7 })).breed).toBeNull();
	});
});
