import { describe, expect, it } from 'vitest';
import { BOM, csvCell, csvText } from './csv';

describe('csv cells', () => {
	it('leaves plain text, numbers and Czech letters as they are', () => {
		expect(csvCell('Šárka Dvořáková')).toBe('Šárka Dvořáková');
		expect(csvCell(38.63)).toBe('38.63');
		expect(csvCell(true)).toBe('true');
		expect(csvCell(null)).toBe('');
		expect(csvCell(undefined)).toBe('');
	});

	it('quotes the separator, quotes and line breaks, doubling quotes', () => {
		expect(csvCell('Rex, "the fast"')).toBe('"Rex, ""the fast"""');
		expect(csvCell('a\nb')).toBe('"a\nb"');
		expect(csvCell('a\r\nb')).toBe('"a\r\nb"');
		expect(csvCell('38,63', ';')).toBe('38,63');
		expect(csvCell('a;b', ';')).toBe('"a;b"');
	});

	it.each(['=1+1', '+420 123', '-5', '@SUM(A1)', '\tx', '\rx'])(
		'turns %j into text with a leading apostrophe',
		(value) => {
			expect(csvCell(value, ';').replace(/^"|"$/g, '')).toBe(`'${value}`);
		}
	);

	it('quotes an escaped formula that also holds the separator', () => {
		expect(csvCell('=HYPERLINK("http://x";"y")', ';')).toBe('"\'=HYPERLINK(""http://x"";""y"")"');
	});

	it('does not touch a sign inside the text', () => {
		expect(csvCell('Rex-Max')).toBe('Rex-Max');
		expect(csvCell('a=b')).toBe('a=b');
	});
});

describe('csv text', () => {
	it('joins cells with the separator and ends every line with CRLF', () => {
		expect(
			csvText(
				[
					['a', 1, null],
					['b;c', 2, '']
				],
				';'
			)
		).toBe('a;1;\r\n"b;c";2;\r\n');
	});

	it('has a byte order mark to prepend for Excel', () => {
		expect(BOM.codePointAt(0)).toBe(0xfeff);
	});
});
