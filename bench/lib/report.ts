import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Spread } from './stats.ts';

export interface Row {
	part: string;
	metric: string;
	unit: string;
	value: Spread;
	/** e.g. '≤ 0.25', '< 3000'; absent when the figure is reported only. */
	target?: string;
	/** null: no target, or not enforced (smoke). */
	met?: boolean | null;
	note?: string;
}

export interface Report {
	mode: 'full' | 'smoke';
	startedAt: string;
	durationS: number;
	environment: Record<string, string | number>;
	rows: Row[];
	/** Parts that could not run, with why. */
	skipped: { part: string; reason: string }[];
}

const fmt = (n: number): string => {
	if (!Number.isFinite(n)) return '–';
	if (Number.isInteger(n)) return String(n);
	const abs = Math.abs(n);
	if (abs >= 100) return n.toFixed(0);
	if (abs >= 10) return n.toFixed(1);
	return n.toFixed(2);
};

function cells(row: Row): string[] {
	const { median, min, max, n } = row.value;
	const met = row.met === true ? 'met' : row.met === false ? 'NOT met' : '';
	return [
		row.part,
		row.metric,
		`${fmt(median)} ${row.unit}`.trim(),
		n > 1 ? `${fmt(min)} – ${fmt(max)}` : '',
		String(n),
		row.target ?? '',
		met,
		row.note ?? ''
	];
}

const HEAD = ['part', 'metric', 'median', 'min – max', 'n', 'target', 'status', 'note'];

export function markdown(report: Report): string {
	const lines = [
		`# Ringside bench (${report.mode})`,
		'',
		`Run ${report.startedAt}, ${report.durationS.toFixed(0)} s. ` +
			Object.entries(report.environment)
				.map(([k, v]) => `${k}: ${v}`)
				.join(', ') +
			'.',
		'',
		`| ${HEAD.join(' | ')} |`,
		`| ${HEAD.map(() => '---').join(' | ')} |`,
		...report.rows.map(
			(r) =>
				`| ${cells(r)
					.map((c) => c.replaceAll('|', '\\|'))
					.join(' | ')} |`
		)
	];
	if (report.skipped.length > 0) {
		lines.push('', '## Not measured', '');
		for (const s of report.skipped) lines.push(`- ${s.part}: ${s.reason}`);
	}
	return lines.join('\n') + '\n';
}

export function textTable(report: Report): string {
	const rows = [HEAD, ...report.rows.map(cells)];
	const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
	return rows
		.map((r) =>
			r
				.map((c, i) => c.padEnd(widths[i] ?? 0))
				.join('  ')
				.trimEnd()
		)
		.join('\n');
}

/** Names of the committed figures: a full run (latest) and parts kept apart (outage, scale-out). */
const COMMITTED = new Set(['latest', 'outage', 'mirror', 'https', 'scale-out']);

/**
 * `latest` writes latest.json and latest.md, the committed figures (`outage` and `scale-out`
 * likewise, for parts 11 and 10's own files, or any name with `final`); any other name (smoke,
 * partial runs) writes git-ignored `<name>.json.tmp` and `<name>.md.tmp` beside them.
 */
export function writeReport(dir: string, report: Report, name: string, final = false): void {
	mkdirSync(dir, { recursive: true });
	const suffix = COMMITTED.has(name) || final ? '' : '.tmp';
	writeFileSync(join(dir, `${name}.json${suffix}`), JSON.stringify(report, null, '\t') + '\n');
	writeFileSync(join(dir, `${name}.md${suffix}`), markdown(report));
}
