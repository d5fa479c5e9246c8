// The start-up's QR code: on a terminal every cell carries explicit colours, and read back it is
// exactly the code uqr encodes (so a phone scans it on a light or a dark terminal alike).
import { describe, expect, it } from 'vitest';
import { encode } from 'uqr';
import { terminalQr } from './terminal-qr.ts';

/** The modules (true = dark) drawn by terminalQr's ANSI output. */
function readBack(text: string): boolean[][] {
	const rows: boolean[][] = [];
	for (const line of text.split('\n')) {
		const top: boolean[] = [];
		const bottom: boolean[] = [];
		// eslint-disable-next-line no-control-regex
		for (const m of line.matchAll(/\x1b\[(\d+);(\d+)m▀/g)) {
			top.push(m[1] === '30');
			bottom.push(m[2] === '40');
		}
		rows.push(top, bottom);
	}
	return rows;
}

describe('terminalQr', () => {
	it('draws the encoded modules with explicit black and white on a terminal', () => {
		const url = 'http://192.168.1.20:4173/join#t=KCbD7yVuy_Rh1x92Q7FbuQ';
		const { data } = encode(url, { border: 2 });
		const drawn = readBack(terminalQr(url, true));
		expect(drawn.slice(0, data.length)).toEqual(data);
		// An odd last row is drawn over a light (quiet-zone) half.
		expect(drawn.slice(data.length).every((row) => row.every((dark) => !dark))).toBe(true);
		expect(
			terminalQr(url, true)
				.split('\n')
				.every((l) => l.endsWith('\x1b[0m'))
		).toBe(true);
	});

	it('draws plain blocks without escape codes for a log file', () => {
		const text = terminalQr('http://10.0.0.1:4173/join#t=abc', false);
		expect(text).not.toContain('\x1b');
		expect(text).toMatch(/[▀▄█]/);
	});
});
