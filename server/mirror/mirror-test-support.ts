// What the mirror's suites share: an upstream and a laptop mirroring it, the link between them
// that a test cuts or turns into a black hole, and the secretary's status as the laptop answers it.
import { call, walk, type DogRunJson, type Started } from '../test-support.ts';
import type { ServiceOptions } from '../options.ts';

export interface UpstreamStatus {
	connected: boolean;
	waiting: number;
	refused: number;
	conflicts: number;
	lostSince: string | null;
	publishedUpTo: string | null;
	lastPulledAt: string | null;
	_embedded?: {
		entries: {
			key: string;
			status: string;
			changes: Record<string, unknown>;
			conflicts: { field: string; mine: unknown; theirs: unknown }[] | null;
			lastError: { message: string; status: number | null } | null;
			dogName?: string;
			_links: Record<string, { href: string }>;
		}[];
	};
	_links: Record<string, { href: string }>;
}

export async function dogRunsOf(s: Started, competition = 1): Promise<DogRunJson[]> {
	const runs = await walk(`${s.entry}/${competition}/runs`, 'competitionRuns');
	const first = runs.items[0]!;
	return (await walk(first._links.dogRuns.href, 'dogRuns')).items;
}

export type Link = ReturnType<typeof createLink>;

/** The laptop → upstream link: cut, requests fail as when the venue's internet is gone. */
export function createLink() {
	const link = {
		cut: false,
		/** Requests sent meanwhile get no answer at all (packets dropped), until they time out. */
		blackHole: false,
		/** How many requests the black hole took. */
		held: 0,
		/** Every request's Authorization header (null: none), in order. */
		authorizations: [] as (string | null)[],
		fetch: (input: string, init: RequestInit): Promise<Response> => {
			link.authorizations.push(new Headers(init.headers).get('Authorization'));
			if (link.blackHole) {
				link.held++;
				return new Promise((_resolve, reject) => {
					if (init.signal?.aborted) reject(init.signal.reason);
					init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
				});
			}
			return link.cut ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init);
		}
	};
	return link;
}

type Start = (extra?: ServiceOptions) => Promise<Started>;

/** An upstream (the embedded service) and a laptop mirroring its competition 1 over a link. */
export async function startPairWith(
	start: Start,
	extra: {
		etag?: boolean;
		dbFile?: string;
		upstreamUrl?: (upstream: Started) => Promise<string>;
	} & Partial<ServiceOptions> = {}
) {
	const { etag, dbFile, upstreamUrl, ...laptopOptions } = extra;
	const upstream = await start({ etag: etag ?? true });
	const link = createLink();
	const laptop = await start({
		mirror: upstreamUrl ? await upstreamUrl(upstream) : upstream.svc.url,
		mirrorCompetitions: [1],
		mirrorPullMs: 100,
		mirrorFetch: link.fetch,
		...(dbFile ? { dbFile } : {}),
		...laptopOptions
	});
	return { upstream, laptop, link };
}

export async function statusOf(laptop: Started): Promise<UpstreamStatus> {
	const devices = await call<{ _links: Record<string, { href: string }> }>(
		`${laptop.svc.url}api/v1/devices`
	);
	const href = devices.body._links.upstream?.href;
	if (!href) throw new Error('the device list links no upstream');
	return (await call<UpstreamStatus>(href)).body;
}
