import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { UpstreamEntry, UpstreamStatus } from '$lib/sync/upstream';

const reads: number[] = [];
const statuses: UpstreamStatus[] = [];

vi.mock('$lib/sync/client', () => ({ createClient: async () => ({}) }));
vi.mock('$lib/sync/upstream', () => ({
	findUpstream: async () => 'http://laptop.test/api/v1/upstream',
	readUpstream: async () => {
		reads.push(Date.now());
		return statuses.shift() ?? status(0);
	},
	sendAgain: async () => status(1),
	decideConflict: async () => status(1)
}));

function status(waiting: number): UpstreamStatus {
	return { waiting, entries: [] } as unknown as UpstreamStatus;
}

beforeEach(() => {
	vi.stubGlobal('location', { origin: 'http://laptop.test' });
	vi.useFakeTimers();
	reads.length = 0;
});
afterEach(() => {
	vi.useRealTimers();
	vi.unstubAllGlobals();
});

it('reads the status again soon after a decision: what was decided is published at once, not listed as waiting for 5 s', async () => {
	const { UpstreamWatch, AFTER_DECISION_MS, UPSTREAM_REFRESH_MS } =
		await import('./upstream-watch.svelte');
	const watch = new UpstreamWatch();
	const taken = await watch.sendAgain({ key: 'dogRun:1' } as UpstreamEntry);
	expect(watch.error).toBeNull();
	expect(taken).toBe(true);
	// The answer to Send again: still waiting (published a moment later).
	expect(watch.status?.waiting).toBe(1);
	expect(reads).toHaveLength(0);
	await vi.advanceTimersByTimeAsync(AFTER_DECISION_MS);
	expect(reads).toHaveLength(1);
	expect(watch.status?.waiting).toBe(0);
	expect(AFTER_DECISION_MS).toBeLessThan(UPSTREAM_REFRESH_MS / 4);
});
