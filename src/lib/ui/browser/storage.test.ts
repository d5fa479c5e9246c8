import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestPersistentStorage, storageState } from './storage';

afterEach(() => {
	vi.unstubAllGlobals();
});

function storage(persisted: boolean, grants: boolean) {
	const api = {
		persisted: vi.fn(async () => persisted),
		persist: vi.fn(async () => grants)
	};
	vi.stubGlobal('navigator', { storage: api });
	return api;
}

describe('requestPersistentStorage', () => {
	it('asks the browser when the data is not protected yet, as often as the steward asks', async () => {
		const api = storage(false, false);
		expect(await requestPersistentStorage()).toBe(false);
		expect(await requestPersistentStorage()).toBe(false);
		expect(api.persist).toHaveBeenCalledTimes(2);
	});

	it('reports a grant', async () => {
		storage(false, true);
		expect(await requestPersistentStorage()).toBe(true);
	});

	it('does not ask again once protected', async () => {
		const api = storage(true, false);
		expect(await requestPersistentStorage()).toBe(true);
		expect(api.persist).not.toHaveBeenCalled();
	});

	it('asks nothing at an insecure address (there is nothing to protect the data with)', async () => {
		const api = storage(false, true);
		vi.stubGlobal('window', { isSecureContext: false });
		expect(await requestPersistentStorage()).toBeNull();
		expect(api.persist).not.toHaveBeenCalled();
	});

	it('says an insecure address as such, not as unknown', async () => {
		storage(false, false);
		vi.stubGlobal('window', { isSecureContext: false });
		expect((await storageState()).secure).toBe(false);
		vi.stubGlobal('window', { isSecureContext: true });
		expect((await storageState()).secure).toBe(true);
	});

	it('knows nothing in a browser without the Storage API', async () => {
		vi.stubGlobal('navigator', {});
		expect(await requestPersistentStorage()).toBeNull();
	});
});
