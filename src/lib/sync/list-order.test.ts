import { describe, expect, it } from 'vitest';
import { ListOrder, RUNS_LIST_RANK } from './list-order';

const value = (p: number | (() => number)) => (typeof p === 'function' ? p() : p);

describe('ListOrder', () => {
	it('puts the list of runs first, then first pages, then the lists with the fewest pages left', () => {
		const order = new ListOrder(2);
		const [a, b, ...unstarted] = Array.from({ length: 8 }, () => order.list());
		if (!a || !b) throw new Error('no lists');
		const first = value(a.first);
		expect(value(RUNS_LIST_RANK.first)).toBeGreaterThan(first);
		// a: 3 pages, b: 2 pages, 6 lists not started: 3 + 6 pages left, 2 on one slot is not urgent.
		const aNext = a.next({ number: 0, totalPages: 3 });
		const bNext = b.next({ number: 0, totalPages: 2 });
		expect(value(bNext)).toBeLessThan(first);
		expect(value(bNext)).toBeGreaterThan(value(aNext));
		expect(unstarted.map((l) => value(l.first))).toEqual(unstarted.map(() => first));
	});

	it('moves a list ahead of everything but the runs once its pages alone would end the download', () => {
		const order = new ListOrder(2);
		const [long, short] = [order.list(), order.list()];
		const others = Array.from({ length: 6 }, () => order.list());
		const longNext = long.next({ number: 0, totalPages: 5 });
		const shortNext = short.next({ number: 0, totalPages: 2 });
		// 4 + 1 pages left and 6 first pages: 4 pages on one slot are not yet the whole rest ÷ 2.
		expect(value(longNext)).toBeLessThan(value(shortNext));
		// The rest is read meanwhile: the same waiting request now ranks first.
		for (const other of others) other.next({ number: 0, totalPages: 1 });
		expect(value(longNext)).toBeGreaterThan(value(short.first));
		expect(value(longNext)).toBeGreaterThan(value(shortNext));
		expect(value(longNext)).toBeLessThan(value(RUNS_LIST_RANK.first));
	});
});
