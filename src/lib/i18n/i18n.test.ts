import { afterAll, describe, expect, it, vi } from 'vitest';

// Spied before i18next starts, which it does when the module is first imported.
const info = vi.spyOn(console, 'info');
const { i18n, t } = await import('./i18n.svelte');

afterAll(() => info.mockRestore());

describe('messages with a count', () => {
	it('says "1 conflict" but "2 conflicts" in English', async () => {
		await i18n.set('en');
		expect(t('sync.conflicts', { count: 1 })).toBe('1 conflict');
		expect(t('sync.conflicts', { count: 2 })).toBe('2 conflicts');
		expect(t('run.count', { count: 1 })).toBe('1 dog run');
		expect(t('run.count', { count: 0 })).toBe('0 dog runs');
		expect(t('sync.unsent', { count: 3 })).toBe('3 not sent');
	});

	it('uses the Czech forms for 1, 2 to 4, and 5 or more', async () => {
		await i18n.set('cs');
		try {
			expect(t('sync.conflicts', { count: 1 })).toBe('1 konflikt');
			expect(t('sync.conflicts', { count: 2 })).toBe('2 konflikty');
			expect(t('sync.conflicts', { count: 5 })).toBe('5 konfliktů');
			expect(t('run.count', { count: 1 })).toBe('1 start');
			expect(t('run.count', { count: 4 })).toBe('4 starty');
			expect(t('run.count', { count: 12 })).toBe('12 startů');
			expect(t('sync.attempts', { count: 3 })).toBe('3 pokusy');
			expect(t('sync.attempts', { count: 22 })).toBe('22 pokusů');
		} finally {
			await i18n.set('en');
		}
	});
});

describe('the later screens’ words', () => {
	it('are not in the first screen’s catalogue, and speak once loaded', async () => {
		expect(t('cold.retry')).toBe('cold.retry');
		await i18n.loadLater();
		expect(t('cold.retry')).toBe('Try again');
		await i18n.set('cs');
		try {
			expect(t('cold.retry')).toBe('Zkusit znovu');
		} finally {
			await i18n.set('en');
		}
	});
});

describe('the translator', () => {
	it('prints no promotional notice on start', () => {
		expect(t('app.name')).toBe('Ringside');
		const notices = info.mock.calls.filter((args) => String(args[0]).includes('i18next'));
		expect(notices).toEqual([]);
	});
});
