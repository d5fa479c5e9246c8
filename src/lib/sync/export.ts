import { EDITABLE_FIELDS } from '$lib/contract/fields';
import { db, type OutboxEntry } from '$lib/db/db';
import { csvText, type CsvValue } from '$lib/domain/csv';

/** One unsent edit with what a person needs to carry it over by hand. */
export interface ExportRow {
	status: OutboxEntry['status'];
	kind: OutboxEntry['kind'];
	competition: string;
	run: string;
	startNo: number | null;
	dog: string;
	handler: string;
	href: string;
	savedAt: string;
	changes: Record<string, unknown>;
	base: Record<string, unknown>;
	lastError: string | null;
}

const FIELDS = EDITABLE_FIELDS;

/** Every entry of the outbox with names, oldest first. Nothing is changed or removed. */
export async function exportRows(): Promise<ExportRow[]> {
	const entries = await db.outbox.orderBy('key').toArray();
	entries.sort((a, b) => a.createdAt - b.createdAt);
	const rows: ExportRow[] = [];
	for (const entry of entries) {
		const run = await db.runs.get(entry.runId);
		const competition = await db.competitions.get(entry.competitionId);
		const dogRun = entry.kind === 'dogRun' ? await db.dogRuns.get(entry.resourceId) : undefined;
		rows.push({
			status: entry.status,
			kind: entry.kind,
			competition: competition?.data.name ?? '',
			run: run?.data.name ?? '',
			startNo: dogRun ? dogRun.order + 1 : null,
			dog: dogRun ? `${dogRun.data.dog.name} ${dogRun.data.dog.homeName}`.trim() : '',
			handler: dogRun
				? `${dogRun.data.competitor.firstname} ${dogRun.data.competitor.lastname}`
				: '',
			href: entry.href,
			savedAt: new Date(entry.createdAt).toISOString(),
			changes: entry.changes,
			base: entry.base,
			lastError: entry.lastError?.serverMessage ?? entry.lastError?.code ?? null
		});
	}
	return rows;
}

export function toJson(rows: ExportRow[]): string {
	return JSON.stringify({ exportedAt: new Date().toISOString(), unsent: rows }, null, 2);
}

/**
 * RFC 4180 CSV (quoting and formula escaping shared with every export, domain/csv.ts); one column
 * per result field (empty when unchanged).
 */
export function toCsv(rows: ExportRow[]): string {
	const header = [
		'status',
		'competition',
		'run',
		'startNo',
		'dog',
		'handler',
		...FIELDS,
		'savedAt',
		'href',
		'lastError'
	];
	const lines = rows.map((row) => [
		row.status,
		row.competition,
		row.run,
		row.startNo,
		row.dog,
		row.handler,
		...FIELDS.map((f) =>
			Object.hasOwn(row.changes, f) ? (row.changes[f] as CsvValue) : undefined
		),
		row.savedAt,
		row.href,
		row.lastError
	]);
	return csvText([header, ...lines]);
}
