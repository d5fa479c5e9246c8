import { describe, expect, it } from 'vitest';
import { ApiError } from '$lib/api/errors';
import { HalClient } from '$lib/api/hal-client';
import { API, SERVICE, errorJson, fakeFetch, halResponse } from '$lib/api/test-support';
import {
	decideConflict,
	findUpstream,
	readUpstream,
	sendAgain,
	type UpstreamEntry
} from './upstream';

const UPSTREAM = `${API}/upstream`;
const ENTRY = `${UPSTREAM}/entries/dogRun-12`;

function entryJson(status: 'conflict' | 'failed' | 'pending', more: object = {}) {
	return {
		key: 'dogRun:12',
		kind: 'dogRun',
		resourceId: 12,
		runId: 3,
		competitionId: 1,
		status,
		changes: { time: 50.5 },
		base: { time: null },
		conflicts:
			status === 'conflict' ? [{ field: 'time', base: null, mine: 50.5, theirs: 49.99 }] : null,
		lastError:
			status === 'failed' ? { code: 'http', status: 400, message: '<b>Time</b> too long' } : null,
		attempts: 1,
		createdAt: '2026-05-01T10:40:00.000Z',
		nextAttemptAt: '2026-05-01T10:40:02.000Z',
		runName: 'Agility A1 Small',
		ringName: 'Ring 1',
		dogName: 'Jessie',
		handler: 'Jana Nováková',
		_links: {
			self: { href: ENTRY },
			...(status === 'conflict' ? { resolve: { href: `${ENTRY}/resolve` } } : {}),
			...(status === 'failed' ? { retry: { href: `${ENTRY}/retry` } } : {})
		},
		...more
	};
}

function statusJson(entries: object[] = []) {
	return {
		upstream: 'https://results.example.org',
		connected: false,
		lastContactAt: '2026-05-01T10:42:00.000Z',
		lostSince: '2026-05-01T10:43:00.000Z',
		publishedUpTo: entries.length > 0 ? '2026-05-01T10:40:00.000Z' : null,
		lastPublishedAt: '2026-05-01T10:39:00.000Z',
		waiting: 1,
		refused: 0,
		conflicts: 1,
		lastPulledAt: null,
		...(entries.length > 0 ? { _embedded: { entries } } : {}),
		_links: { self: { href: UPSTREAM } }
	};
}

const entryPoint = `${API}/competitions`;
const devices = `${API}/devices`;

describe('the upstream of a mirror laptop', () => {
	it('is found by the device list’s upstream link, followed from the entry point', async () => {
		const { fetch, calls } = fakeFetch({
			[entryPoint]: { _links: { self: { href: entryPoint }, devices: { href: devices } } },
			[devices]: { _links: { self: { href: devices }, upstream: { href: UPSTREAM } } }
		});
		const client = new HalClient({ serviceUrl: SERVICE, fetch });
		expect(await findUpstream(client)).toBe(UPSTREAM);
		expect(calls.map((c) => c.url)).toEqual([entryPoint, devices]);
	});

	it('is null without a mirror (no upstream link) or for a phone that may not see devices', async () => {
		const plain = fakeFetch({
			[entryPoint]: { _links: { self: { href: entryPoint }, devices: { href: devices } } },
			[devices]: { _links: { self: { href: devices } } }
		});
		expect(await findUpstream(new HalClient({ serviceUrl: SERVICE, fetch: plain.fetch }))).toBe(
			null
		);
		const steward = fakeFetch({ [entryPoint]: { _links: { self: { href: entryPoint } } } });
		expect(await findUpstream(new HalClient({ serviceUrl: SERVICE, fetch: steward.fetch }))).toBe(
			null
		);
	});

	it('reads the status with its entries, dates as milliseconds', async () => {
		const { fetch } = fakeFetch({
			[UPSTREAM]: statusJson([entryJson('conflict'), entryJson('failed', { key: 'dogRun:13' })])
		});
		const s = await readUpstream(new HalClient({ serviceUrl: SERVICE, fetch }), UPSTREAM);
		expect(s).toMatchObject({
			connected: false,
			waiting: 1,
			conflicts: 1,
			lostSince: Date.UTC(2026, 4, 1, 10, 43),
			lastContactAt: Date.UTC(2026, 4, 1, 10, 42),
			publishedUpTo: Date.UTC(2026, 4, 1, 10, 40),
			lastPulledAt: null
		});
		expect(s.entries.map((e) => e.status)).toEqual(['conflict', 'failed']);
		expect(s.entries[0]!.conflicts).toEqual([
			{ field: 'time', base: null, mine: 50.5, theirs: 49.99 }
		]);
		expect(s.entries[1]!.lastError?.message).toBe('<b>Time</b> too long');
	});

	it('reads a status with nothing waiting as no entries', async () => {
		const { fetch } = fakeFetch({ [UPSTREAM]: statusJson() });
		const s = await readUpstream(new HalClient({ serviceUrl: SERVICE, fetch }), UPSTREAM);
		expect(s.entries).toEqual([]);
		expect(s.publishedUpTo).toBeNull();
	});

	it('refuses an answer that is not the upstream’s status', async () => {
		const { fetch } = fakeFetch({ [UPSTREAM]: { waiting: 'three', _links: {} } });
		const error = await readUpstream(new HalClient({ serviceUrl: SERVICE, fetch }), UPSTREAM).catch(
			(e: unknown) => e
		);
		expect(error).toBeInstanceOf(ApiError);
		expect((error as ApiError).code).toBe('invalid-shape');
	});

	it('posts the secretary’s choice to the entry’s resolve link and answers the new status', async () => {
		const { fetch, calls } = fakeFetch({
			[UPSTREAM]: statusJson([entryJson('conflict')]),
			[`${ENTRY}/resolve`]: () => halResponse(statusJson())
		});
		const client = new HalClient({ serviceUrl: SERVICE, fetch });
		const [entry] = (await readUpstream(client, UPSTREAM)).entries;
		const after = await decideConflict(client, entry!, 'theirs');
		expect(after.entries).toEqual([]);
		const post = calls.at(-1)!;
		expect(post.url).toBe(`${ENTRY}/resolve`);
		expect(post.init.method).toBe('POST');
		expect(JSON.parse(String(post.init.body))).toEqual({ choice: 'theirs' });
	});

	it('sends a refused entry again by its retry link', async () => {
		const { fetch, calls } = fakeFetch({
			[UPSTREAM]: statusJson([entryJson('failed')]),
			[`${ENTRY}/retry`]: () => halResponse(statusJson())
		});
		const client = new HalClient({ serviceUrl: SERVICE, fetch });
		const [entry] = (await readUpstream(client, UPSTREAM)).entries;
		await sendAgain(client, entry!);
		expect(calls.at(-1)!.url).toBe(`${ENTRY}/retry`);
		expect(calls.at(-1)!.init.method).toBe('POST');
	});

	it('says so when the entry has no such link (decided meanwhile), and passes the service’s 409 on', async () => {
		const { fetch } = fakeFetch({
			[UPSTREAM]: statusJson([entryJson('pending'), entryJson('conflict', { key: 'dogRun:13' })]),
			[`${ENTRY}/resolve`]: () =>
				halResponse(errorJson(409, 'Conflict', 'No conflict to decide (any more)', '/'), {
					status: 409
				})
		});
		const client = new HalClient({ serviceUrl: SERVICE, fetch });
		const [pending, conflict] = (await readUpstream(client, UPSTREAM)).entries as [
			UpstreamEntry,
			UpstreamEntry
		];
		const missing = await decideConflict(client, pending, 'ours').catch((e: unknown) => e);
		expect((missing as ApiError).code).toBe('missing-link');
		const refused = await decideConflict(client, conflict, 'ours').catch((e: unknown) => e);
		expect((refused as ApiError).status).toBe(409);
		expect((refused as ApiError).serverMessage).toBe('No conflict to decide (any more)');
	});
});
