/**
 * The Sync screen's activity as a ring log: "10:42 No. 14 Jessie · time 38.63 ✓ sent" rather than
 * the sync log's raw rows. Retries of one entry, one after another while the device is offline,
 * become one line ("retried 5×, next at 10:45"). Words come in through `LogWords`, so the
 * functions stay pure and are tested in both languages.
 */
import { EDITABLE_FIELDS } from '$lib/contract/fields';
import type { SyncLogRow } from '$lib/db/db';
import type { LogAction } from '$lib/domain/outbox-entry';

/** What a log row is about, as stored on the device. */
export type LogSubject =
	{ kind: 'dogRun'; startNo: number; name: string } | { kind: 'run'; name: string };

export interface LogWords {
	locale: string;
	t: (key: string, values?: Record<string, unknown>) => string;
	/** A row's error in words (`syncLogDetailText`): the service's own message first. */
	detail: (row: SyncLogRow) => string;
	/** For tests; the device's own by default. */
	timeZone?: string;
}

/** One line of the log: a row, or a run of retries of one entry (`count` rows, newest first). */
export interface LogGroup {
	/** The newest row of the line. */
	row: SyncLogRow;
	count: number;
}

export type LogTone = 'ok' | 'warn' | 'bad' | 'muted';

export interface RingLogLine {
	/** Stable across updates: the id of the line's oldest row. */
	id: number;
	action: LogAction;
	/** "10:42". */
	time: string;
	/** "No. 14 Jessie", "Course of Agility A3". */
	subject: string;
	/** "time 38.63 · faults 1"; empty when the row names no values. */
	fields: string;
	/** A mark that reads at a glance; the outcome says the same in words. */
	mark: string;
	/** "sent", "retrying at 10:45", "retried 5×, next at 10:45". */
	outcome: string;
	/** Why: the service's message for a refusal, the service's values for a conflict. */
	detail: string;
	tone: LogTone;
}

/**
 * Rows (newest first) as lines: consecutive retries of one entry, with nothing else of that entry
 * between them, make one line at the place of the newest. Rows of other entries in between stay.
 */
export function groupLog(rows: readonly SyncLogRow[]): (LogGroup & { oldestId: number })[] {
	const lines: (LogGroup & { oldestId: number })[] = [];
	/** Entry key → its open line of retries. */
	const open = new Map<string, LogGroup & { oldestId: number }>();
	for (const row of rows) {
		const line = row.action === 'retry' ? open.get(row.key) : undefined;
		if (line) {
			line.count += 1;
			line.oldestId = row.id ?? line.oldestId;
			continue;
		}
		const created = { row, count: 1, oldestId: row.id ?? 0 };
		lines.push(created);
		if (row.action === 'retry') open.set(row.key, created);
		else open.delete(row.key);
	}
	return lines;
}

const MARKS: Record<LogAction, [mark: string, tone: LogTone]> = {
	sent: ['✓', 'ok'],
	'already-applied': ['✓', 'ok'],
	resolved: ['✓', 'ok'],
	conflict: ['⚠', 'bad'],
	failed: ['✗', 'bad'],
	retry: ['↻', 'warn'],
	discarded: ['–', 'muted']
};

/** The fields in the order a steward enters them; others follow in their own order. */
const FIELD_ORDER: readonly string[] = EDITABLE_FIELDS;

function ordered(fields: Record<string, unknown>): [string, unknown][] {
	const rank = (field: string) => {
		const i = FIELD_ORDER.indexOf(field);
		return i < 0 ? FIELD_ORDER.length : i;
	};
	return Object.entries(fields).sort(([a], [b]) => rank(a) - rank(b));
}

/** One field and its value in words: "time 38.63", "faults 1", "disqualified". */
export function fieldText(field: string, value: unknown, words: LogWords): string {
	const { t } = words;
	const decimals = (n: number, digits: number) =>
		new Intl.NumberFormat(words.locale, {
			minimumFractionDigits: digits,
			maximumFractionDigits: digits,
			useGrouping: false
		}).format(n);
	const num = typeof value === 'number' && Number.isFinite(value) ? value : null;
	switch (field) {
		case 'time':
			return num === null ? t('ringLog.noTime') : t('ringLog.time', { value: decimals(num, 2) });
		case 'faults':
		case 'refusals':
			return t(`ringLog.${field}`, { value: num === null ? String(value) : decimals(num, 0) });
		case 'disqualified':
			return value ? t('ringLog.disqualified') : t('ringLog.notDisqualified');
		case 'absence':
			return value ? t('ringLog.absent') : t('ringLog.present');
		case 'trackLength':
		case 'standardTime':
		case 'maximalTime':
			return t(`ringLog.${field}`, {
				value: num === null ? String(value) : decimals(num, field === 'trackLength' ? 0 : 2)
			});
		default:
			return `${field} ${String(value)}`;
	}
}

function subjectText(row: SyncLogRow, subject: LogSubject | undefined, words: LogWords): string {
	const { t } = words;
	if (subject?.kind === 'dogRun')
		return t('ringLog.dog', { no: subject.startNo, dog: subject.name });
	if (subject?.kind === 'run') return t('sync.run', { name: subject.name });
	return row.kind === 'run'
		? t('sync.run', { name: t('ringLog.unknownRun', { id: row.resourceId }) })
		: t('ringLog.unknownDog', { id: row.resourceId });
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
	typeof v === 'object' && v !== null && !Array.isArray(v);

/** The row's values, and for a conflict the service's values. */
function fieldsOf(row: SyncLogRow, words: LogWords): { fields: string; theirs: string } {
	const fields = row.fields ?? {};
	const list = (pairs: [string, unknown][]) =>
		pairs.map(([field, value]) => fieldText(field, value, words)).join(' · ');
	if (row.action === 'conflict') {
		const pairs = ordered(fields).filter(([, v]) => isRecord(v)) as [
			string,
			Record<string, unknown>
		][];
		return {
			fields: list(pairs.map(([field, v]) => [field, v.mine])),
			theirs: list(pairs.map(([field, v]) => [field, v.theirs]))
		};
	}
	if (row.action === 'resolved') {
		const text = ordered(fields)
			.map(([field, choice]) =>
				words.t(choice === 'mine' ? 'ringLog.keptMine' : 'ringLog.keptTheirs', {
					field: words.t(`sync.field_${field}`)
				})
			)
			.join(' · ');
		return { fields: text, theirs: '' };
	}
	return { fields: list(ordered(fields)), theirs: '' };
}

/**
 * The log as lines a steward reads like a ring log. `rows` newest first; `subjects` by entry key
 * (`dogRun:12`, `run:3`), from the stored dog runs and runs.
 */
export function ringLog(
	rows: readonly SyncLogRow[],
	subjects: ReadonlyMap<string, LogSubject>,
	words: LogWords
): RingLogLine[] {
	// A ring's timetable is in 24-hour time, whatever the language's habit ("10:42", not "10:42 AM").
	const clock = new Intl.DateTimeFormat(words.locale, {
		hour: '2-digit',
		minute: '2-digit',
		hourCycle: 'h23',
		...(words.timeZone ? { timeZone: words.timeZone } : {})
	});
	const { t } = words;
	return groupLog(rows).map(({ row, count, oldestId }) => {
		const [mark, tone] = MARKS[row.action] ?? ['', 'muted'];
		const { fields, theirs } = fieldsOf(row, words);
		const next = row.nextAttemptAt === undefined ? '' : clock.format(row.nextAttemptAt);
		let outcome: string;
		let detail = '';
		switch (row.action) {
			case 'sent':
				outcome = t('ringLog.sent');
				break;
			case 'already-applied':
				outcome = t('ringLog.alreadyThere');
				break;
			case 'conflict':
				outcome = t('ringLog.conflict');
				detail = theirs ? t('ringLog.theirs', { values: theirs }) : '';
				break;
			case 'failed':
				outcome = t('ringLog.refused');
				detail = words.detail(row);
				break;
			case 'retry':
				outcome =
					count > 1
						? t('ringLog.retried', { count, time: next })
						: t('ringLog.retrying', { time: next });
				break;
			case 'resolved':
				outcome = t('ringLog.resolved');
				break;
			case 'discarded':
				outcome = t('ringLog.discarded');
				break;
			default:
				outcome = String(row.action);
		}
		return {
			id: oldestId,
			action: row.action,
			time: clock.format(row.at),
			subject: subjectText(row, subjects.get(row.key), words),
			fields,
			mark,
			outcome,
			detail,
			tone
		};
	});
}
