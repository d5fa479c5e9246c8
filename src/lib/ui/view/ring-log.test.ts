import { afterEach, describe, expect, it } from 'vitest';
import type { SyncLogRow } from '$lib/db/db';
import { i18n, t } from '$lib/i18n/i18n.svelte';
import { syncLogDetailText } from './error-text';
import { fieldText, groupLog, ringLog, type LogSubject, type LogWords } from './ring-log';

const words = (): LogWords => ({
	locale: i18n.locale,
	t,
	detail: syncLogDetailText,
	timeZone: 'UTC'
});

/** 2026-05-01 at hh:mm UTC. */
const at = (hh: number, mm: number, ss = 0) => Date.UTC(2026, 4, 1, hh, mm, ss);

let id = 1;
function row(
	key: string,
	action: SyncLogRow['action'],
	more: Partial<SyncLogRow> = {}
): SyncLogRow {
	const [kind, resourceId] = key.split(':') as ['dogRun' | 'run', string];
	return {
		id: id++,
		at: at(10, 42),
		key,
		kind,
		resourceId: Number(resourceId),
		action,
		status: null,
		detail: null,
		fields: null,
		...more
	};
}

const subjects = new Map<string, LogSubject>([
	['dogRun:1253', { kind: 'dogRun', startNo: 14, name: 'Jessie' }],
	['dogRun:7', { kind: 'dogRun', startNo: 3, name: 'Šárka' }],
	['run:5', { kind: 'run', name: 'Agility A3 Large' }]
]);

/** A line as one string, the way the screen shows it. */
const text = (line: ReturnType<typeof ringLog>[number]) =>
	[line.time, line.subject, line.fields && `· ${line.fields}`, line.mark, line.outcome, line.detail]
		.filter(Boolean)
		.join(' ');

afterEach(async () => {
	await i18n.set('en');
});

describe('groupLog', () => {
	it('collapses retries of one entry in a row into one line at the newest', () => {
		const rows = [
			row('dogRun:1', 'retry'),
			row('dogRun:2', 'retry'),
			row('dogRun:1', 'retry'),
			row('dogRun:1', 'retry'),
			row('dogRun:2', 'sent')
		];
		expect(groupLog(rows).map((g) => [g.row.key, g.row.action, g.count])).toEqual([
			['dogRun:1', 'retry', 3],
			['dogRun:2', 'retry', 1],
			['dogRun:2', 'sent', 1]
		]);
	});

	it('keeps retries apart when something else happened to the entry between them', () => {
		const rows = [
			row('dogRun:1', 'retry'),
			row('dogRun:1', 'retry'),
			row('dogRun:1', 'sent'),
			row('dogRun:1', 'retry')
		];
		expect(groupLog(rows).map((g) => [g.row.action, g.count])).toEqual([
			['retry', 2],
			['sent', 1],
			['retry', 1]
		]);
	});

	it('keys a collapsed line by its oldest row, so it keeps its place as retries add up', () => {
		const older = row('dogRun:1', 'retry');
		const newer = row('dogRun:1', 'retry');
		const newest = row('dogRun:1', 'retry');
		expect(groupLog([newer, older])[0]!.oldestId).toBe(older.id);
		expect(groupLog([newest, newer, older])[0]!.oldestId).toBe(older.id);
	});
});

describe('ringLog', () => {
	it('reads like a ring log: time, start number, dog, values, mark and outcome', () => {
		const lines = ringLog(
			[row('dogRun:1253', 'sent', { status: 200, fields: { time: 38.63 } })],
			subjects,
			words()
		);
		expect(text(lines[0]!)).toBe('10:42 No. 14 Jessie · time 38.63 ✓ sent');
		expect(lines[0]!.tone).toBe('ok');
	});

	it('writes numbers the locale’s way and flags as words, in the order of entry', async () => {
		await i18n.set('cs');
		const lines = ringLog(
			[
				row('dogRun:7', 'already-applied', {
					fields: { refusals: 1, faults: 2, time: 41.5, disqualified: false }
				}),
				row('dogRun:1253', 'sent', { fields: { absence: true } })
			],
			subjects,
			words()
		);
		expect(text(lines[0]!)).toBe(
			'10:42 Č. 3 Šárka · čas 41,50 · chyby 2 · odmítnutí 1 · bez diskvalifikace ✓ už tam bylo'
		);
		expect(lines[1]!.fields).toBe('nenastoupil');
	});

	it('says when a lone retry is due, and collapses a series into one line', () => {
		const lines = ringLog(
			[
				row('dogRun:1253', 'retry', {
					at: at(10, 44),
					nextAttemptAt: at(10, 45),
					fields: { time: 38.63 }
				}),
				...[43, 42, 41, 40].map((mm) =>
					row('dogRun:1253', 'retry', { at: at(10, mm), nextAttemptAt: at(10, mm + 1) })
				),
				row('dogRun:7', 'retry', { at: at(10, 39), nextAttemptAt: at(10, 41) })
			],
			subjects,
			words()
		);
		expect(lines.map(text)).toEqual([
			'10:44 No. 14 Jessie · time 38.63 ↻ retried 5×, next at 10:45',
			'10:39 No. 3 Šárka ↻ retrying at 10:41'
		]);
	});

	it('gives a refusal with the service’s message, as text', () => {
		const lines = ringLog(
			[
				row('dogRun:1253', 'failed', {
					status: 400,
					detail: 'Time <b>must</b> be positive',
					error: { code: 'http', status: 400, serverMessage: 'Time <b>must</b> be positive' },
					fields: { time: 0 }
				})
			],
			subjects,
			words()
		);
		expect(text(lines[0]!)).toBe(
			'10:42 No. 14 Jessie · time 0.00 ✗ refused Time <b>must</b> be positive'
		);
		expect(lines[0]!.tone).toBe('bad');
	});

	it('shows a conflict with my values and the service’s', () => {
		const lines = ringLog(
			[
				row('dogRun:1253', 'conflict', {
					fields: { time: { base: null, mine: 38.63, theirs: 39.1 } }
				})
			],
			subjects,
			words()
		);
		expect(text(lines[0]!)).toBe(
			'10:42 No. 14 Jessie · time 38.63 ⚠ conflict the service has time 39.10'
		);
	});

	it('names the course of a run, the choice of a resolution and a discard', () => {
		const lines = ringLog(
			[
				row('run:5', 'sent', { fields: { standardTime: 65, trackLength: 219 } }),
				row('dogRun:1253', 'resolved', { fields: { time: 'mine', faults: 'theirs' } }),
				row('dogRun:1253', 'discarded', { fields: { faults: 1 } })
			],
			subjects,
			words()
		);
		expect(lines.map(text)).toEqual([
			'10:42 Course of Agility A3 Large · track length 219 m · standard time 65.00 s ✓ sent',
			'10:42 No. 14 Jessie · Time: yours kept · Faults: service’s kept ✓ resolved',
			'10:42 No. 14 Jessie · faults 1 – discarded'
		]);
	});

	it('names what is no longer stored by its id', () => {
		const lines = ringLog(
			[row('dogRun:99', 'sent', { fields: { time: null } }), row('run:8', 'already-applied')],
			new Map(),
			words()
		);
		expect(lines.map(text)).toEqual([
			'10:42 Dog run #99 · no time ✓ sent',
			'10:42 Course of #8 ✓ already there'
		]);
	});
});

describe('fieldText', () => {
	it('keeps a value it does not know as it came', () => {
		expect(fieldText('colour', 'red', words())).toBe('colour red');
	});
});
