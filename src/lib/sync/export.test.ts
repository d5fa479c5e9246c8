import { describe, expect, it } from 'vitest';
import { toCsv, toJson, type ExportRow } from './export';

const row = (over: Partial<ExportRow> = {}): ExportRow => ({
	status: 'pending',
	kind: 'dogRun',
	competition: 'Czech Agility Open',
	run: 'Jumping A3 Large',
	startNo: 7,
	dog: 'Šmudla Border Magic',
	handler: 'Šárka Dvořáková',
	href: 'http://svc/api/v1/dogRuns/12',
	savedAt: '2026-11-22T09:15:00.000Z',
	changes: { time: 38.63, faults: 1 },
	base: { time: null, faults: 0 },
	lastError: null,
	...over
});

describe('export of unsent edits', () => {
	it('writes one CSV line per edit with each changed field in its own column', () => {
		const csv = toCsv([row()]);
		const [header, line] = csv.trimEnd().split('\r\n');
		expect(header).toBe(
			'status,competition,run,startNo,dog,handler,time,faults,refusals,disqualified,absence,trackLength,standardTime,maximalTime,savedAt,href,lastError'
		);
		expect(line).toBe(
			'pending,Czech Agility Open,Jumping A3 Large,7,Šmudla Border Magic,Šárka Dvořáková,38.63,1,,,,,,,2026-11-22T09:15:00.000Z,http://svc/api/v1/dogRuns/12,'
		);
	});

	it('quotes cells with commas, quotes and line breaks', () => {
		const csv = toCsv([row({ dog: 'Rex, "the fast"', lastError: 'time:\nbad' })]);
		expect(csv).toContain('"Rex, ""the fast"""');
		expect(csv).toContain('"time:\nbad"');
	});

	it('keeps every edit in the JSON export', () => {
		const parsed = JSON.parse(toJson([row(), row({ startNo: 8 })])) as { unsent: ExportRow[] };
		expect(parsed.unsent.map((r) => r.startNo)).toEqual([7, 8]);
		expect(parsed.unsent[0]!.changes).toEqual({ time: 38.63, faults: 1 });
	});
});

describe('export of unsent edits as CSV', () => {
	it('writes a name that starts like a formula as text', () => {
		const csv = toCsv([row({ dog: '=HYPERLINK("http://x")', handler: '@me' })]);
		expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
		expect(csv).toContain(",'@me,");
	});
});
