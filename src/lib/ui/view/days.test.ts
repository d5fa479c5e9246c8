import { describe, expect, it } from 'vitest';
import { localDate, pickDay } from './days';

describe('pickDay', () => {
	const days = ['2025-06-13', '2025-06-14', '2025-06-15'];

	it.each([
		['today, when the competition runs today', days, '2025-06-14', '2025-06-14'],
		['the first day, before the competition', days, '2025-06-01', '2025-06-13'],
		[
			'the nearest day to come, on a rest day',
			['2025-06-13', '2025-06-16'],
			'2025-06-14',
			'2025-06-16'
		],
		['the last day, after the competition', days, '2025-07-01', '2025-06-15'],
		[
			'today, whatever the order of the runs',
			['2025-06-15', '2025-06-14', '2025-06-14'],
			'2025-06-14',
			'2025-06-14'
		],
		['nothing, when there are no runs', [], '2025-06-14', undefined]
	])('opens on %s', (_, list, today, expected) => {
		expect(pickDay(list, today)).toBe(expected);
	});
});

describe('localDate', () => {
	it('is the local calendar date, not the UTC one', () => {
		expect(localDate(new Date(2025, 5, 14, 0, 5))).toBe('2025-06-14');
		expect(localDate(new Date(2025, 0, 1, 23, 59))).toBe('2025-01-01');
	});

	it('is already tomorrow in Prague at half past midnight, while UTC is still on today', () => {
		const tz = process.env.TZ;
		process.env.TZ = 'Europe/Prague';
		try {
			expect(localDate(new Date('2025-06-13T22:30:00Z'))).toBe('2025-06-14');
		} finally {
			if (tz === undefined) delete process.env.TZ;
			else process.env.TZ = tz;
		}
	});
});
