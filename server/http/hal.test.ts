// Unit tests of the serialisation and validation helpers.
import { describe, expect, it } from 'vitest';
import {
	API_BASE,
	decimal,
	formatThousandths,
	normalisePrefix,
	pagedEnvelope,
	renderBase,
	stringifyHal
} from './hal.ts';
import { isCalendarDate, parsePage, validateDogRunPatch } from '../validation.ts';
import { call, startSmall } from '../test-support.ts';

describe('decimal serialisation', () => {
	it.each([
		[65000, '65.00'],
		[52500, '52.50'],
		[43333, '43.333'],
		[43330, '43.33'],
		[5, '0.005'],
		[999999, '999.999']
	])('%i thousandths → %s', (ms, text) => {
		expect(formatThousandths(ms)).toBe(text);
		expect(stringifyHal({ a: decimal(ms), b: 'x' })).toBe(`{"a":${text},"b":"x"}`);
	});
});

describe('templates', () => {
	it('hold no text of this process: the base is one mark, the same everywhere, that no data can forge', () => {
		const value = {
			name: 'A \u0001 in data, and @@api00000000@@ too',
			_links: { self: { href: `${API_BASE}/dogRuns/7` } }
		};
		const template = stringifyHal(value);
		expect(template).not.toContain(API_BASE);
		expect(template).toBe(
			'{"name":"A \\u0001 in data, and @@api00000000@@ too","_links":{"self":{"href":"\u0001/dogRuns/7"}}}'
		);
		const text = renderBase(template, 'https://r.example.org/api/v1');
		expect(JSON.parse(text)).toEqual({
			name: value.name,
			_links: { self: { href: 'https://r.example.org/api/v1/dogRuns/7' } }
		});
	});
});

describe('helpers', () => {
	it('normalises prefixes', () => {
		expect(normalisePrefix(undefined)).toBe('');
		expect(normalisePrefix('/')).toBe('');
		expect(normalisePrefix('results/')).toBe('/results');
		expect(normalisePrefix('/a/b')).toBe('/a/b');
	});

	it('checks calendar dates', () => {
		expect(isCalendarDate('2024-02-29')).toBe(true);
		expect(isCalendarDate('2025-02-29')).toBe(false);
		expect(isCalendarDate('2025-2-1')).toBe(false);
	});

	it('parses paging', () => {
		expect(parsePage(new URLSearchParams(''))).toEqual({ page: 0, size: 20 });
		expect(parsePage(new URLSearchParams('page=3&size=9999'))).toEqual({ page: 3, size: 2000 });
		expect(() => parsePage(new URLSearchParams('size=-1'))).toThrow(/'size'/);
	});

	it('builds the last page link and no next on the last page', () => {
		const env = pagedEnvelope({
			href: 'http://h/x',
			params: [['f', 'a b']],
			page: { page: 2, size: 10 },
			total: 25,
			collection: 'dogRuns',
			items: [1]
		});
		expect(env).toHaveProperty(['_links', 'self', 'href'], 'http://h/x?f=a+b&page=2&size=10');
		expect(env).not.toHaveProperty(['_links', 'next']);
		expect(env).toHaveProperty(['_links', 'last', 'href'], 'http://h/x?f=a+b&page=2&size=10');
		expect(env.page).toEqual({ size: 10, totalElements: 25, totalPages: 3, number: 2 });
	});

	it('converts a dog run time to hundredths', () => {
		expect(validateDogRunPatch({ time: 38.63 })).toEqual({ timeCs: 3863 });
		expect(validateDogRunPatch({ time: 0.01, absence: true })).toEqual({
			timeCs: 1,
			absence: true
		});
		expect(() => validateDogRunPatch({ time: Number.NaN })).toThrow(/'time'/);
	});
});

describe('HEAD', () => {
	it('answers headers without a body', async () => {
		const s = await startSmall();
		try {
			const get = await call(s.entry);
			const head = await fetch(s.entry, { method: 'HEAD' });
			expect(head.status).toBe(200);
			expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
			expect(await head.text()).toBe('');
		} finally {
			await s.svc.close();
		}
	});
});
