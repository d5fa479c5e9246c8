import { describe, expect, it } from 'vitest';
import type { HalClient, PageResult } from '$lib/api/hal-client';
import { competitionJson, dogRunJson } from '$lib/api/test-support';
import * as v from 'valibot';
import { CompetitionSchema, type Competition } from '$lib/api/schemas';
import { LiveUpdates, REFUSED_RETRY_MS, type EventStream } from './live-updates';

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

class FakeClock {
	time = 0;
	timers = new Map<number, { at: number; fn: () => void }>();
	#id = 1;
	now = () => this.time;
	setTimeout = (fn: () => void, ms: number) => {
		const id = this.#id++;
		this.timers.set(id, { at: this.time + ms, fn });
		return id;
	};
	clearTimeout = (id: unknown) => void this.timers.delete(id as number);
	async advance(ms: number) {
		const end = this.time + ms;
		for (;;) {
			const [id, t] = [...this.timers].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
			if (id === undefined || !t || t.at > end) break;
			this.timers.delete(id);
			this.time = t.at;
			t.fn();
			await flush();
			await flush();
		}
		this.time = end;
	}
}

class FakeStream implements EventStream {
	readyState = 0;
	onopen: ((event: Event) => void) | null = null;
	onerror: ((event: Event) => void) | null = null;
	listeners = new Map<string, (event: MessageEvent<string>) => void>();
	closed = false;
	constructor(readonly url: string) {}
	addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
		this.listeners.set(type, listener);
	}
	close() {
		this.closed = true;
		this.readyState = 2;
	}
	open() {
		this.readyState = 1;
		this.onopen?.(new Event('open'));
	}
	emit(type: string, data: unknown) {
		this.listeners.get(type)?.(new MessageEvent(type, { data: JSON.stringify(data) }));
	}
	fail(fatal: boolean) {
		this.readyState = fatal ? 2 : 0;
		this.onerror?.(new Event('error'));
	}
}

const LIST = 'http://service/api/v1/competition-runs/11/dog-runs?size=2000';

const PUBLICATION = 'http://service/api/v1/competitions/1/publication';

const publicationJson = (handlerNames: string) => ({
	competitionId: 1,
	handlerNames,
	results: 'live',
	releasedRuns: [],
	updatedAt: null,
	_links: { self: { href: PUBLICATION } }
});

const CHECK_INS = 'http://service/api/v1/competitions/1/checkIns';

function competition(push: boolean, publication = false, checkIns = false): Competition {
	const json = competitionJson(1) as { _links: Record<string, unknown> };
	if (push) json._links.changes = { href: 'http://service/api/v1/competitions/1/changes' };
	if (publication) json._links.publication = { href: PUBLICATION };
	if (checkIns) json._links.checkIns = { href: CHECK_INS };
	return v.parse(CompetitionSchema, json);
}

function setUp(push: boolean, publication = false, withCheckIns = false) {
	const clock = new FakeClock();
	const requests: { href: string; etag: string | undefined }[] = [];
	const stored: number[] = [];
	const streams: FakeStream[] = [];
	let serverEtag = '"v1"';
	const publications: string[] = [];
	const checkIns: number[] = [];
	let names = 'full';
	/** What the device's store says of a list of marks: false, it kept its own over some. */
	const marksTaken = { value: true };
	const client = {
		getIfChanged: async (href: string, _s: unknown, etag: string | undefined) => {
			requests.push({ href, etag });
			if (href === CHECK_INS) {
				if (etag === '"c1"') return null;
				const body = { competitionId: 1, checkIns: [], _links: { self: { href } } };
				return { body, url: href, etag: '"c1"' };
			}
			// The settings' tag is their content's, as the service's is.
			const tag = `"p-${names}"`;
			if (etag === tag) return null;
			return { body: publicationJson(names), url: href, etag: tag };
		},
		getPageIfChanged: async (href: string, _c: string, _s: unknown, etag: string | undefined) => {
			requests.push({ href, etag });
			if (etag === serverEtag) return null;
			const page: Partial<PageResult<unknown>> = {
				items: [v.parse(v.any(), dogRunJson(101, 11))],
				links: { self: { href } },
				etag: serverEtag,
				url: href
			};
			return page;
		}
	} as unknown as HalClient;
	const live = new LiveUpdates({
		client: async () => client,
		openStream: (url) => {
			const s = new FakeStream(url);
			streams.push(s);
			return s;
		},
		storeDogRuns: async (items) => void stored.push(...items.map((d) => (d as { id: number }).id)),
		storeRun: async () => undefined,
		storePublication: async (p) => void publications.push(p.handlerNames),
		storeCheckIns: async (_cid, marks) => {
			checkIns.push(...marks.map((m) => m.dogRunId));
			return marksTaken.value;
		},
		onError: (e) => {
			throw e;
		},
		clock,
		pollMs: 3_000
	});
	const watched = {
		competition: competition(push, publication, withCheckIns),
		runs: [{ id: 11, dogRunsHref: LIST }]
	};
	return {
		clock,
		requests,
		publications,
		checkIns,
		marksTaken,
		setNames: (n: string) => (names = n),
		stored,
		streams,
		live,
		watched,
		change: (etag: string) => (serverEtag = etag)
	};
}

describe('LiveUpdates without a push link: conditional polling', () => {
	it('reads at once, then every pollMs with If-None-Match; a 304 stores nothing', async () => {
		const { clock, requests, stored, live, watched, change } = setUp(false);
		live.setActive(true);
		live.watch(watched);
		await flush();
		expect(live.mode).toBe('polling');
		expect(requests).toEqual([{ href: LIST, etag: undefined }]);
		expect(stored).toEqual([101]);
		await clock.advance(3_000);
		expect(requests.at(-1)).toEqual({ href: LIST, etag: '"v1"' });
		expect(stored).toEqual([101]);
		change('"v2"');
		await clock.advance(3_000);
		expect(stored).toEqual([101, 101]);
		expect(requests).toHaveLength(3);
	});

	it('reads nothing while hidden or offline, and at once when back', async () => {
		const { clock, requests, live, watched } = setUp(false);
		live.watch(watched);
		await clock.advance(10_000);
		expect(requests).toEqual([]);
		live.setActive(true);
		await flush();
		expect(requests).toHaveLength(1);
		live.setActive(false);
		await clock.advance(10_000);
		expect(requests).toHaveLength(1);
		expect(live.mode).toBe('off');
	});

	it('stops when the last screen stops watching', async () => {
		const { clock, requests, live, watched } = setUp(false);
		live.setActive(true);
		const stop = live.watch(watched);
		await flush();
		stop();
		await clock.advance(10_000);
		expect(requests).toHaveLength(1);
		expect(clock.timers.size).toBe(0);
	});
});

describe('LiveUpdates with a push link', () => {
	it('follows the link, catches up once when the stream opens, then stores what is pushed', async () => {
		const { clock, requests, stored, streams, live, watched } = setUp(true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		expect(live.mode).toBe('push');
		expect(streams.map((s) => s.url)).toEqual(['http://service/api/v1/competitions/1/changes']);
		expect(requests).toHaveLength(0);
		streams[0]!.open();
		await flush();
		expect(requests).toHaveLength(1);
		streams[0]!.emit('dogRun', dogRunJson(102, 11));
		streams[0]!.emit('dogRun', { not: 'a dog run' });
		await flush();
		expect(stored).toEqual([101, 102]);
		// While the stream serves, no polling.
		await clock.advance(30_000);
		expect(requests).toHaveLength(1);
	});

	it('polls while the stream reconnects, and falls back to polling when it is refused', async () => {
		const { clock, requests, streams, live, watched } = setUp(true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		streams[0]!.open();
		await flush();
		const before = requests.length;
		streams[0]!.fail(false);
		await clock.advance(3_000);
		expect(requests.length).toBe(before + 1);
		streams[0]!.fail(true);
		await flush();
		expect(live.mode).toBe('polling');
		await clock.advance(3_000);
		expect(requests.length).toBeGreaterThan(before + 2);
		// A while later (the phone joined, the service recovered) push is tried again.
		expect(streams).toHaveLength(1);
		await clock.advance(REFUSED_RETRY_MS);
		expect(streams).toHaveLength(2);
		expect(live.mode).toBe('push');
	});

	it('a reset event reads the watched runs again; hidden closes the stream', async () => {
		const { requests, streams, live, watched } = setUp(true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		const before = requests.length;
		streams[0]!.emit('reset', {});
		await flush();
		expect(requests.length).toBe(before + 1);
		live.setActive(false);
		expect(streams[0]!.closed).toBe(true);
	});
});

describe('LiveUpdates and the settings of public views', () => {
	it('stores a change pushed by the secretary and reads what is on screen again', async () => {
		const { requests, publications, streams, live, watched, setNames } = setUp(true, true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		streams[0]!.open();
		await flush();
		await flush();
		// The stream's opening read: the settings first, then the list.
		expect(requests.map((r) => r.href)).toEqual([PUBLICATION, LIST]);
		expect(publications).toEqual(['full']);
		requests.length = 0;
		setNames('hidden');
		streams[0]!.emit('publication', publicationJson('hidden'));
		await flush();
		await flush();
		await flush();
		expect(publications.slice(0, 2)).toEqual(['full', 'hidden']);
		expect(publications.at(-1)).toBe('hidden');
		expect(requests.map((r) => r.href)).toContain(LIST);
	});

	it('reads the settings with every poll where there is no push link, and never where there is no link', async () => {
		const polled = setUp(false, true);
		polled.live.setActive(true);
		polled.live.watch(polled.watched);
		await flush();
		polled.setNames('initials');
		await polled.clock.advance(3_000);
		expect(polled.publications).toEqual(['full', 'initials']);

		// Unchanged, they are asked for with the tag stored (If-None-Match) and not stored again.
		const asked = polled.requests.filter((r) => r.href === PUBLICATION);
		expect(asked.map((r) => r.etag)).toEqual([undefined, '"p-full"']);
		await polled.clock.advance(3_000);
		expect(polled.requests.filter((r) => r.href === PUBLICATION).at(-1)?.etag).toBe('"p-initials"');
		expect(polled.publications).toEqual(['full', 'initials']);

		const without = setUp(false, false);
		without.live.setActive(true);
		without.live.watch(without.watched);
		await flush();
		await without.clock.advance(3_000);
		expect(without.publications).toEqual([]);
		expect(without.requests.every((r) => r.href === LIST)).toBe(true);
	});

	it('ignores a publication event that is not the service’s shape', async () => {
		const { publications, streams, live, watched } = setUp(true, true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		streams[0]!.emit('publication', { handlerNames: 'everyone' });
		await flush();
		expect(publications).toEqual([]);
	});
});

describe('LiveUpdates and the gate’s check-in', () => {
	it('stores a mark pushed by a gate phone', async () => {
		const { checkIns, streams, live, watched } = setUp(true, true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		streams[0]!.emit('checkIn', {
			dogRunId: 101,
			competitionId: 1,
			status: 'present',
			markedAt: '2026-05-12T09:00:00.000Z',
			_links: { self: { href: 'http://service/api/v1/dogRuns/101/checkIn' } }
		});
		await flush();
		expect(checkIns).toEqual([101]);
		streams[0]!.emit('checkIn', { dogRunId: 102, status: 'late' });
		await flush();
		expect(checkIns).toEqual([101]);
	});
});

describe('LiveUpdates polling the gate’s marks', () => {
	it('asks with the tag stored, unless the device kept marks of its own over the list', async () => {
		const polled = setUp(false, false, true);
		polled.live.setActive(true);
		polled.live.watch(polled.watched);
		await flush();
		const asked = () => polled.requests.filter((r) => r.href === CHECK_INS).map((r) => r.etag);
		expect(asked()).toEqual([undefined]);
		await polled.clock.advance(3_000);
		expect(asked()).toEqual([undefined, '"c1"']);

		// The device holds its own mark over the list's (one the service may yet refuse): the list
		// is read whole next time, so the service's mark comes back if it must.
		const kept = setUp(false, false, true);
		kept.marksTaken.value = false;
		kept.live.setActive(true);
		kept.live.watch(kept.watched);
		await flush();
		await kept.clock.advance(3_000);
		expect(kept.requests.filter((r) => r.href === CHECK_INS).map((r) => r.etag)).toEqual([
			undefined,
			undefined
		]);
	});
});

describe('LiveUpdates reading again after a change of the settings', () => {
	it('reads once more when the change comes while a read is under way', async () => {
		const { requests, publications, streams, live, watched, setNames } = setUp(true, true);
		live.setActive(true);
		live.watch(watched);
		await flush();
		streams[0]!.open();
		// The stream's opening read has begun (settings read as 'full'); the change arrives now.
		setNames('hidden');
		streams[0]!.emit('publication', publicationJson('hidden'));
		for (let i = 0; i < 8; i++) await flush();
		// The last settings stored are the new ones, and the list was read after the change.
		expect(publications.at(-1)).toBe('hidden');
		expect(requests.filter((r) => r.href === LIST).length).toBe(2);
	});
});
