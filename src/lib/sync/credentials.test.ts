import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { HalClient } from '$lib/api/hal-client';
import { competitionJson, fakeFetch, pageJson } from '$lib/api/test-support';
import { db } from '$lib/db/db';
import { setSetting } from '$lib/db/settings-store';
import {
	authorizationOf,
	readCredentials,
	saveCredentials,
	SETTING_CREDENTIALS
} from './credentials';

beforeEach(async () => {
	await db.delete();
	await db.open();
});

describe('credentials', () => {
	it('become an Authorization header: a bearer token, or Basic with UTF-8 (RFC 7617)', () => {
		expect(authorizationOf({ kind: 'bearer', token: ' abc.def ' })).toBe('Bearer abc.def');
		expect(authorizationOf({ kind: 'basic', user: 'Šárka', password: 'pä:ss' })).toBe(
			`Basic ${Buffer.from('Šárka:pä:ss', 'utf8').toString('base64')}`
		);
		expect(authorizationOf(null)).toBeUndefined();
	});

	it('are stored on the device; anything else stored reads as none', async () => {
		expect(await readCredentials()).toBeNull();
		await saveCredentials({ kind: 'bearer', token: 't0k' });
		expect(await readCredentials()).toEqual({ kind: 'bearer', token: 't0k' });
		await setSetting(SETTING_CREDENTIALS, { kind: 'bearer', token: '  ' });
		expect(await readCredentials()).toBeNull();
		await setSetting(SETTING_CREDENTIALS, 'Bearer x');
		expect(await readCredentials()).toBeNull();
	});

	it('go with every request of the HAL client', async () => {
		const url = 'http://service/api/v1/competitions';
		const { fetch, calls } = fakeFetch({
			[url]: pageJson(url, 'competitions', [competitionJson(1)], {
				number: 0,
				size: 20,
				totalElements: 1
			})
		});
		const client = new HalClient({
			serviceUrl: 'http://service',
			fetch,
			authorization: 'Bearer t0k'
		});
		await client.listCompetitions();
		expect(calls.map((c) => new Headers(c.init.headers).get('Authorization'))).toEqual([
			'Bearer t0k'
		]);
	});
});
