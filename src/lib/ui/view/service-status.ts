/** The words for whether the results service can be reached: the header and the sync bar. */
import { i18n, t } from '$lib/i18n/i18n.svelte';
import type { ReachState } from '$lib/sync/reachability';

export type StatusKind = 'connected' | 'busy' | 'connecting' | 'offline' | 'no-contact';

export function statusKind(state: ReachState, busy: boolean): StatusKind {
	if (state === 'reachable') return busy ? 'busy' : 'connected';
	if (state === 'unknown') return 'connecting';
	return state === 'offline' ? 'offline' : 'no-contact';
}

/** One or two words, for the header's pill. */
export function statusWord(kind: StatusKind): string {
	const keys: Record<StatusKind, string> = {
		connected: 'app.connected',
		busy: 'app.busy',
		connecting: 'app.connecting',
		offline: 'app.offline',
		'no-contact': 'app.noContact'
	};
	return t(keys[kind]);
}

/** The whole sentence: "No contact with the results service · last 10:42". */
export function statusSentence(
	kind: StatusKind,
	lastContactAt: number | null,
	now: number
): string {
	if (kind === 'no-contact') {
		return lastContactAt === null
			? t('app.noContactNever')
			: t('app.noContactLong', { time: i18n.clock(lastContactAt, now) });
	}
	const keys: Record<Exclude<StatusKind, 'no-contact'>, string> = {
		connected: 'app.connectedLong',
		busy: 'app.busyLong',
		connecting: 'app.connectingLong',
		offline: 'app.offlineLong'
	};
	return t(keys[kind]);
}
