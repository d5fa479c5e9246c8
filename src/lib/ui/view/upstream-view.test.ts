import { beforeAll, afterEach, describe, expect, it } from 'vitest';
import { i18n, t } from '$lib/i18n/i18n.svelte';
import type { UpstreamEntry, UpstreamStatus } from '$lib/sync/upstream';
import {
	connectionText,
	entryHeading,
	grouped,
	lastErrorText,
	statusLine,
	valueText,
	type UpstreamWords
} from './upstream-view';

/** 2026-05-01 at hh:mm UTC. */
const at = (hh: number, mm: number) => Date.UTC(2026, 4, 1, hh, mm);
const NOW = at(10, 55);

const words = (): UpstreamWords => ({
	t,
	clock: (ms) => new Date(ms).toISOString().slice(11, 16),
	ago: i18n.ago,
	decimal: i18n.decimal
});

function status(more: Partial<UpstreamStatus> = {}): UpstreamStatus {
	return {
		upstream: 'https://results.example.org',
		connected: true,
		lastContactAt: at(10, 54),
		lostSince: null,
		publishedUpTo: null,
		lastPublishedAt: at(10, 42),
		waiting: 0,
		refused: 0,
		conflicts: 0,
		lastPulledAt: at(10, 54),
		entries: [],
		...more
	};
}

function entry(status: UpstreamEntry['status'], more: Partial<UpstreamEntry> = {}): UpstreamEntry {
	return {
		key: `dogRun:${Math.random()}`,
		kind: 'dogRun',
		resourceId: 12,
		runId: 3,
		competitionId: 1,
		status,
		changes: { time: 50.5 },
		conflicts: null,
		lastError: null,
		attempts: 0,
		createdAt: at(10, 40),
		nextAttemptAt: at(10, 40),
		runName: 'Agility A1 Small',
		ringName: 'Ring 1',
		dogName: 'Jessie',
		handler: 'Jana Nováková',
		_links: {},
		...more
	};
}

beforeAll(() => i18n.loadLater());
afterEach(() => i18n.set('en'));

describe('the Devices screen’s upstream line', () => {
	it('says all is published, and when the last change went', () => {
		expect(statusLine(status(), words(), NOW)).toEqual({
			text: 'All published · last 10:42',
			attention: null
		});
		expect(statusLine(status({ lastPublishedAt: null }), words(), NOW).text).toBe('All published');
	});

	it('says up to when it is published, what waits and since when the internet is lost', () => {
		const s = status({
			connected: false,
			lostSince: at(10, 43),
			publishedUpTo: at(10, 42),
			waiting: 3
		});
		expect(statusLine(s, words(), NOW)).toEqual({
			text: 'Published up to 10:42 · 3 waiting · internet lost 12 min. ago',
			attention: null
		});
	});

	it('calls out refused changes and conflicts as needing the secretary', () => {
		const s = status({ publishedUpTo: at(10, 42), refused: 1, conflicts: 1 });
		expect(statusLine(s, words(), NOW)).toEqual({
			text: 'Published up to 10:42',
			attention: '2 need you'
		});
		expect(statusLine(status({ publishedUpTo: at(10, 42), conflicts: 1 }), words(), NOW)).toEqual(
			expect.objectContaining({ attention: '1 needs you' })
		);
	});

	it('says when the upstream never answered yet', () => {
		const s = status({ connected: false, lastContactAt: null, lastPublishedAt: null });
		expect(statusLine(s, words(), NOW).text).toBe('All published · no contact yet');
	});

	it('speaks Czech, with its plural forms', async () => {
		await i18n.set('cs');
		const s = status({
			connected: false,
			lostSince: at(10, 43),
			publishedUpTo: at(10, 42),
			waiting: 3,
			conflicts: 5
		});
		expect(statusLine(s, words(), NOW)).toEqual({
			text: 'Odesláno do 10:42 · 3 čekají · internet ztracen před 12 min',
			attention: '5 k rozhodnutí'
		});
	});
});

describe('the Upstream screen', () => {
	it('says whether it is connected, since when it is lost and the last contact', () => {
		expect(connectionText(status(), words(), NOW)).toBe(
			'Connected to https://results.example.org · last contact 10:54'
		);
		expect(connectionText(status({ connected: false, lostSince: at(10, 43) }), words(), NOW)).toBe(
			'Connection lost since 10:43 (12 min. ago) · last contact 10:54'
		);
		expect(connectionText(status({ connected: false, lastContactAt: null }), words(), NOW)).toBe(
			'No contact with https://results.example.org yet'
		);
	});

	it('shows values as stewards read them: decimal comma in Czech, words for yes and no', async () => {
		const w = words();
		expect(valueText('time', 38.6, w)).toBe('38.60');
		expect(valueText('time', null, w)).toBe('no time');
		expect(valueText('faults', 10, w)).toBe('10');
		expect(valueText('disqualified', true, w)).toBe('Disqualified');
		expect(valueText('disqualified', false, w)).toBe('Not disqualified');
		expect(valueText('absence', true, w)).toBe('Absent');
		expect(valueText('absence', false, w)).toBe('Present');
		expect(valueText('trackLength', 180, w)).toBe('180 m');
		expect(valueText('standardTime', 45.5, w)).toBe('45.50 s');
		await i18n.set('cs');
		expect(valueText('time', 38.63, words())).toBe('38,63');
		expect(valueText('disqualified', true, words())).toBe('Diskvalifikace');
	});

	it('names the dog, its handler, run and ring; or the run', () => {
		expect(entryHeading(entry('conflict'), words())).toEqual({
			title: 'Jessie',
			subtitle: 'Jana Nováková · Agility A1 Small · Ring 1'
		});
		const run = entry('pending', { kind: 'run', dogName: null, handler: null });
		expect(entryHeading(run, words())).toEqual({
			title: 'Course of Agility A1 Small',
			subtitle: 'Ring 1'
		});
		const unknown = entry('pending', {
			dogName: null,
			handler: null,
			runName: null,
			ringName: null
		});
		expect(entryHeading(unknown, words()).title).toBe('Dog run #12');
	});

	it('puts conflicts first, then refused changes, then what waits, each oldest first', () => {
		const a = entry('pending', { key: 'a', createdAt: at(10, 1) });
		const b = entry('failed', { key: 'b', createdAt: at(10, 3) });
		const c = entry('conflict', { key: 'c', createdAt: at(10, 5) });
		const d = entry('sending', { key: 'd', createdAt: at(10, 0) });
		const e = entry('conflict', { key: 'e', createdAt: at(10, 2) });
		const g = grouped([a, b, c, d, e]);
		expect(g.conflicts.map((x) => x.key)).toEqual(['e', 'c']);
		expect(g.refused.map((x) => x.key)).toEqual(['b']);
		expect(g.waiting.map((x) => x.key)).toEqual(['d', 'a']);
	});

	it('keeps the upstream’s message as it came, and puts other failures in the app’s words', () => {
		const text = (e: unknown) => `words for ${(e as { code: string }).code}`;
		expect(
			lastErrorText({ code: 'http', status: 400, message: '<b>Time</b> too long' }, text)
		).toBe('<b>Time</b> too long');
		expect(lastErrorText({ code: 'network', status: null, message: 'fetch failed' }, text)).toBe(
			'words for network'
		);
	});
});
