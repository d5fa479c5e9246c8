import { describe, expect, it } from 'vitest';
import { checkMarkBody, wins, type CheckInMark } from './check-in';

const m = (status: CheckInMark['status'], markedAt: string): CheckInMark => ({ status, markedAt });

describe('the latest mark wins', () => {
	const t1 = '2026-05-12T09:00:00.000Z';
	const t2 = '2026-05-12T09:00:00.001Z';
	it.each([
		[m('present', t2), m('not-presented', t1), true],
		[m('not-presented', t1), m('present', t2), false],
		[m(null, t2), m('present', t1), true],
		// The same instant: the mark that says more.
		[m('present', t1), m('not-presented', t1), true],
		[m('not-presented', t1), m(null, t1), true],
		[m(null, t1), m('present', t1), false],
		[m('present', t1), m('present', t1), false],
		[m('present', t1), null, true]
	])('%j over %j: %s', (next, current, expected) => expect(wins(next, current)).toBe(expected));

	it('gives every order of arrival the same answer', () => {
		const marks = [m('present', t1), m('not-presented', t2), m(null, t1), m('present', t2)];
		const orders = [marks, [...marks].reverse(), [marks[2]!, marks[0]!, marks[3]!, marks[1]!]];
		const results = orders.map((order) =>
			order.reduce<CheckInMark | null>((kept, next) => (wins(next, kept) ? next : kept), null)
		);
		expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
		expect(results[0]).toEqual(m('present', t2));
	});
});

describe('a mark sent to the service', () => {
	const now = new Date('2026-05-12T10:00:00.000Z');
	it('is taken as sent, or as now from a clock that runs ahead', () => {
		expect(checkMarkBody({ status: 'present', markedAt: '2026-05-12T09:00:00.000Z' }, now)).toEqual(
			{
				ok: true,
				mark: m('present', '2026-05-12T09:00:00.000Z')
			}
		);
		expect(checkMarkBody({ status: null, markedAt: '2027-01-01T00:00:00.000Z' }, now)).toEqual({
			ok: true,
			mark: m(null, now.toISOString())
		});
	});
	it.each([
		[{ status: 'here', markedAt: '2026-05-12T09:00:00.000Z' }, 'status must be one of'],
		[{ status: 'present', markedAt: '2026-05-12 09:00' }, 'markedAt must be a UTC time'],
		[{ status: 'present', markedAt: '2026-13-45T09:00:00.000Z' }, 'markedAt must be a UTC time'],
		[{ status: 'present', markedAt: '2026-02-30T09:00:00.000Z' }, 'markedAt must be a UTC time'],
		[{ status: 'present', markedAt: '2026-05-12T24:00:00.000Z' }, 'markedAt must be a UTC time'],
		[{ markedAt: '2026-05-12T09:00:00.000Z' }, 'status must be one of'],
		[{ status: 'present', markedAt: '2026-05-12T09:00:00.000Z', x: 1 }, "Unknown field 'x'"]
	])('refuses %j', (body, words) => {
		const checked = checkMarkBody(body, now);
		expect(checked.ok).toBe(false);
		if (!checked.ok) expect(checked.message).toContain(words);
	});
});
