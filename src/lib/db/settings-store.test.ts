import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { db } from './db';
import { getLastRing, lastRingKey, setLastRing, setSetting } from './settings-store';

beforeEach(async () => {
	await db.delete();
	await db.open();
});

describe('last-used ring', () => {
	it('remembers the last ring per competition', async () => {
		expect(await getLastRing(1)).toBeUndefined();
		await setLastRing(1, 11);
		await setLastRing(2, 21);
		await setLastRing(1, 12);
		expect(await getLastRing(1)).toBe(12);
		expect(await getLastRing(2)).toBe(21);
	});

	it('ignores a stored value that is not a ring id', async () => {
		await setSetting(lastRingKey(3), 'Ring 1');
		expect(await getLastRing(3)).toBeUndefined();
	});
});
