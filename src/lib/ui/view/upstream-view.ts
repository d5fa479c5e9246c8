/**
 * Mirror mode's status in words for the secretary: the Devices screen's one line ("Published up
 * to 10:42 · 3 waiting · internet lost 12 min ago", "2 need you") and the Upstream screen's
 * connection, headings and values as stewards read them. Words come in through `UpstreamWords`,
 * so the functions stay pure and are tested in both languages.
 */
import type { UpstreamEntry, UpstreamStatus } from '$lib/sync/upstream';

export interface UpstreamWords {
	t: (key: string, values?: Record<string, unknown>) => string;
	/** A time of day ("10:42"), with the date when not today. */
	clock: (at: number, now: number) => string;
	/** "12 min ago". */
	ago: (then: number, now: number) => string;
	/** A number with the locale's decimal separator and `digits` decimals, no grouping. */
	decimal: (value: number, digits?: number) => string;
}

/** The line, and what needs the secretary (refused changes and conflicts) called out apart. */
export function statusLine(
	s: UpstreamStatus,
	w: UpstreamWords,
	now: number
): { text: string; attention: string | null } {
	const { t } = w;
	const parts: string[] = [];
	if (s.publishedUpTo === null) {
		parts.push(
			s.lastPublishedAt === null
				? t('upstream.allPublished')
				: t('upstream.allPublishedAt', { time: w.clock(s.lastPublishedAt, now) })
		);
	} else {
		parts.push(t('upstream.publishedUpTo', { time: w.clock(s.publishedUpTo, now) }));
	}
	if (s.waiting > 0) parts.push(t('upstream.waiting', { count: s.waiting }));
	if (s.lostSince !== null) parts.push(t('upstream.lost', { ago: w.ago(s.lostSince, now) }));
	else if (!s.connected && s.lastContactAt === null) parts.push(t('upstream.noContactYet'));
	const needs = s.refused + s.conflicts;
	return {
		text: parts.join(' · '),
		attention: needs > 0 ? t('upstream.needYou', { count: needs }) : null
	};
}

/** The Upstream screen's first line: connected, or lost since when; the last contact. */
export function connectionText(s: UpstreamStatus, w: UpstreamWords, now: number): string {
	const { t } = w;
	if (s.lastContactAt === null) return t('upstream.neverContacted', { upstream: s.upstream });
	const last = t('upstream.lastContact', { time: w.clock(s.lastContactAt, now) });
	if (s.connected) return `${t('upstream.connected', { upstream: s.upstream })} · ${last}`;
	const lost =
		s.lostSince === null
			? t('upstream.notConnected', { upstream: s.upstream })
			: t('upstream.lostSince', { time: w.clock(s.lostSince, now), ago: w.ago(s.lostSince, now) });
	return `${lost} · ${last}`;
}

/** A field's value as a steward reads it: "38,63", "Disqualified", "180 m". */
export function valueText(field: string, value: unknown, w: UpstreamWords): string {
	const { t } = w;
	const num = typeof value === 'number' && Number.isFinite(value) ? value : null;
	switch (field) {
		case 'time':
			return num === null ? t('upstream.noTime') : w.decimal(num, 2);
		case 'faults':
		case 'refusals':
			return num === null ? String(value) : w.decimal(num, 0);
		case 'disqualified':
			return value ? t('upstream.disqualified') : t('upstream.notDisqualified');
		case 'absence':
			return value ? t('upstream.absent') : t('upstream.present');
		case 'trackLength':
			return num === null ? t('sync.none') : t('upstream.metres', { value: w.decimal(num, 0) });
		case 'standardTime':
		case 'maximalTime':
			return num === null ? t('sync.none') : t('upstream.seconds', { value: w.decimal(num, 2) });
		default:
			return value === null || value === undefined ? t('sync.none') : String(value);
	}
}

/** What the secretary recognises an entry by: the dog (handler, run, ring), or the run. */
export function entryHeading(
	e: UpstreamEntry,
	w: UpstreamWords
): { title: string; subtitle: string } {
	const { t } = w;
	const where = (...parts: (string | null | undefined)[]) =>
		parts.filter((p): p is string => !!p && p.trim() !== '').join(' · ');
	if (e.kind === 'run') {
		return {
			title: t('sync.run', { name: e.runName ?? `#${e.resourceId}` }),
			subtitle: where(e.ringName)
		};
	}
	return {
		title: e.dogName ?? t('ringLog.unknownDog', { id: e.resourceId }),
		subtitle: where(e.handler, e.runName, e.ringName)
	};
}

/** Conflicts first, then refused changes, then what waits; each oldest first. */
export function grouped(entries: readonly UpstreamEntry[]): {
	conflicts: UpstreamEntry[];
	refused: UpstreamEntry[];
	waiting: UpstreamEntry[];
} {
	const sorted = [...entries].sort((a, b) => a.createdAt - b.createdAt);
	return {
		conflicts: sorted.filter((e) => e.status === 'conflict'),
		refused: sorted.filter((e) => e.status === 'failed'),
		waiting: sorted.filter((e) => e.status === 'pending' || e.status === 'sending')
	};
}

/**
 * Why the last attempt failed: the upstream's own message as it came (the screen shows it as
 * text), or for no answer at all the app's words for the code (`errorWords`: ui/view/error-text).
 */
export function lastErrorText(
	error: NonNullable<UpstreamEntry['lastError']>,
	errorWords: (record: unknown) => string
): string {
	if (error.code === 'http' && error.message.trim() !== '') return error.message;
	return errorWords({
		code: error.code,
		...(error.status === null ? {} : { status: error.status })
	});
}
