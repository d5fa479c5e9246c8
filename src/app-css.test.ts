import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The colour variables of app.css, per theme, read from the file itself. */
const css = readFileSync(new URL('./app.css', import.meta.url), 'utf8');

function block(selector: string, from = 0): Record<string, string> {
	const start = css.indexOf(`${selector} {`, from);
	if (start < 0) throw new Error(`no ${selector} in app.css`);
	const body = css.slice(start, css.indexOf('}', start));
	return Object.fromEntries(
		[...body.matchAll(/(--[\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)].map((m) => [m[1]!, m[2]!])
	);
}

const base = block(':root');
const themes = {
	light: { ...base, ...block(":root[data-theme='light']") },
	dark: { ...base, ...block(':root', css.indexOf('@media (prefers-color-scheme: dark)')) },
	'dark (chosen)': { ...base, ...block(":root[data-theme='dark']") }
};

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
	const luminance = (hex: string) => {
		const [r, g, b] = [1, 3, 5].map((i) => {
			const v = parseInt(hex.slice(i, i + 2), 16) / 255;
			return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
		});
		return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
	};
	const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
	return (hi! + 0.05) / (lo! + 0.05);
}

/** Text on a background: 4.5:1 (WCAG 1.4.3). */
const TEXT: [fg: string, bg: string][] = [
	['--fg', '--bg'],
	['--fg', '--surface'],
	['--muted', '--bg'],
	['--muted', '--surface'],
	['--ok', '--bg'],
	['--ok', '--surface'],
	['--warn', '--bg'],
	['--warn', '--surface'],
	['--bad', '--bg'],
	['--bad', '--surface'],
	['--brand-fg', '--brand'],
	['--primary-fg', '--primary']
];

/** Borders, button fills, focus rings and graphics against what is next to them: 3:1 (WCAG 1.4.11). */
const PARTS: [part: string, next: string][] = [
	['--line', '--bg'],
	['--line', '--surface'],
	['--primary', '--bg'],
	['--primary', '--surface'],
	['--brand-edge', '--bg'],
	['--brand-edge', '--surface'],
	['--focus', '--bg'],
	['--focus', '--surface'],
	['--accent', '--brand']
];

describe.each(Object.entries(themes))('the %s theme', (_, colours) => {
	const ratio = (a: string, b: string) => {
		expect(colours[a], a).toMatch(/^#/);
		expect(colours[b], b).toMatch(/^#/);
		return contrast(colours[a]!, colours[b]!);
	};

	it.each(TEXT)('has text in %s on %s at 4.5:1 or more', (fg, bg) => {
		expect(ratio(fg, bg)).toBeGreaterThanOrEqual(4.5);
	});

	it.each(PARTS)('has %s against %s at 3:1 or more', (part, next) => {
		expect(ratio(part, next)).toBeGreaterThanOrEqual(3);
	});
});

describe('contrast', () => {
	it('computes WCAG ratios', () => {
		expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
		expect(contrast('#777777', '#777777')).toBe(1);
		// The dark theme's old button colour on black, as reported.
		expect(contrast('#0b3d2e', '#000000')).toBeCloseTo(1.72, 2);
	});

	it('sees the same dark colours whether chosen or from the device', () => {
		expect(themes['dark (chosen)']).toEqual(themes.dark);
	});
});
