/**
 * CSV text for people who open it in a spreadsheet (RFC 4180 quoting), shared by every export.
 *
 * A cell that starts with = + - @ (or a tab or carriage return, OWASP's list) would be run as a
 * formula by Excel, LibreOffice and Google Sheets ("CSV injection"): a dog called "=HYPERLINK(...)"
 * must stay text. Such a cell gets a leading apostrophe, which the spreadsheets show as text.
 */

export type CsvValue = string | number | boolean | null | undefined;

/** Byte order mark: without it Excel reads UTF-8 as the machine's code page ("Å ÃĄrka"). */
export const BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: empty for null, apostrophe before a formula start, quoted when it must be. */
export function csvCell(value: CsvValue, separator = ','): string {
	if (value === null || value === undefined) return '';
	let text = String(value);
	if (FORMULA_START.test(text)) text = `'${text}`;
	const mustQuote = text.includes(separator) || /["\r\n]/.test(text);
	return mustQuote ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Lines of cells, each line ended by CRLF (RFC 4180). */
export function csvText(rows: readonly (readonly CsvValue[])[], separator = ','): string {
	return rows.map((row) => row.map((v) => csvCell(v, separator)).join(separator) + '\r\n').join('');
}
