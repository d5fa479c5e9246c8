import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { db } from '$lib/db/db';
import { isRetired, noteRetire, RETIRE_MS } from './retirement';

beforeEach(async () => {
	await db.settings.clear();
});

describe('a worker told to retire, started again by the browser', () => {
	it('starts no replay while the new version waits, for RETIRE_MS after the last RETIRE', async () => {
		await noteRetire(1_000);
		expect(await isRetired(1_000, true)).toBe(true);
		expect(await isRetired(1_000 + RETIRE_MS - 1, true)).toBe(true);
		expect(await isRetired(1_000 + RETIRE_MS, true)).toBe(false);
	});

	it('replays when no version waits (the update failed, or the new worker is in charge)', async () => {
		await noteRetire(1_000);
		expect(await isRetired(1_500, false)).toBe(false);
	});

	it('replays when no RETIRE was ever sent, or the clock went back past it', async () => {
		expect(await isRetired(1_000, true)).toBe(false);
		await noteRetire(5_000);
		expect(await isRetired(4_000, true)).toBe(false);
	});

	it('a later RETIRE (the steward tapped Reload again) holds from its own time', async () => {
		await noteRetire(1_000);
		await noteRetire(20_000);
		expect(await isRetired(20_000 + RETIRE_MS - 1, true)).toBe(true);
	});
});
