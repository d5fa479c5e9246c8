// A QR code for the terminal (the start-up's join link), with uqr (unjs: no dependencies, and it
// also renders SVG, which the app can use for the secretary's join links).
import { encode, renderUnicodeCompact } from 'uqr';

const RESET = '\x1b[0m';
/** Foreground and background colours of a dark and a light module. */
const FG = { dark: 30, light: 97 } as const;
const BG = { dark: 40, light: 107 } as const;

/**
 * `text` as a QR code, two modules per character cell (upper half block). On a terminal (`ansi`)
 * each cell gets explicit black and white colours, so a light or a dark terminal theme scans the
 * same; otherwise (a log file) plain block characters drawn for a dark background, as uqr does.
 */
export function terminalQr(text: string, ansi: boolean): string {
	if (!ansi) return renderUnicodeCompact(text, { border: 2 });
	const { data } = encode(text, { border: 2 });
	const lines: string[] = [];
	for (let y = 0; y < data.length; y += 2) {
		const top = data[y] ?? [];
		const bottom = data[y + 1];
		let line = '';
		for (let x = 0; x < top.length; x++) {
			const fg = top[x] ? FG.dark : FG.light;
			const bg = bottom?.[x] ? BG.dark : BG.light;
			line += `\x1b[${fg};${bg}m▀`;
		}
		lines.push(line + RESET);
	}
	return lines.join('\n');
}
