// Test support: the real embedded service (small seed) on a temporary SQLite file for each test,
// and an empty device database, for the tests of the sync modules.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createService, type Service } from '../../../server/app';
import { db } from '$lib/db/db';

/** Call at a test file's top level; `url` is the running service's, inside a test. */
export function useSmallService(name: string): { readonly url: string } {
	let service: Service | undefined;
	let dir = '';
	beforeEach(async () => {
		dir = mkdtempSync(join(tmpdir(), `ringside-${name}-`));
		service = await createService({ dbFile: join(dir, 'r.sqlite'), seed: 'small', quiet: true });
		await db.delete();
		await db.open();
	});
	afterEach(async () => {
		await service?.close();
		rmSync(dir, { recursive: true, force: true });
	});
	return {
		get url() {
			if (!service) throw new Error('no service outside a test');
			return service.url;
		}
	};
}
