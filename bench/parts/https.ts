/**
 * Part 13 `https` (issue 30): what HTTPS costs at the venue, as a ratio to plain HTTP in the same
 * run. The service serves TLS itself (`--tls local`, the event's own CA, made once for the run);
 * each side gets a fresh copy of the seed, and the two sides alternate which goes first.
 *
 * - Replay: part 1's replay (download, edits saved through the outbox, the app's replay timed)
 *   from the bench page in a Chromium that trusts the CA (`--ignore-certificate-errors-spki-list`,
 *   as the venue's end-to-end tests), at the bench's latency and at 0 ms (where TLS's CPU shows
 *   most).
 * - Spectators: part 7's idle screens (push streams and polling boards) from a child process, the
 *   service's CPU over the window; and part 7's propagation to a push reader.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { localTlsFiles, ensureLocalTls } from '../../server/tls/local-ca.ts';
import { localNames } from '../../server/tls/venue-tls.ts';
import { spkiHash } from '../../tests/support/venue.ts';
import { expandLink, findLink, type LinkMap } from '../../src/lib/api/links.ts';
import { launch } from '../lib/browser.ts';
import { getJson, nextOf, openEventStream, type SseClient } from '../lib/live-http.ts';
import type { BenchService } from '../lib/service.ts';
import { percentile, spread } from '../lib/stats.ts';
import type { LoadConfig } from '../lib/live-load.ts';
import type { BenchContext } from './context.ts';
import { idleScreens, propagation } from './live.ts';
import { appReplay } from './replay-phone.ts';

const PART = '13 https';
const SCHEMES = ['http', 'https'] as const;
type Scheme = (typeof SCHEMES)[number];

/** Opens `clients` changes streams at once; ms until every one has said `ready`. */
async function arrive(svc: BenchService, clients: number): Promise<number> {
	const changes = await changesOf(svc);
	const streams: SseClient[] = [];
	const t0 = performance.now();
	try {
		const ready = Array.from(
			{ length: clients },
			() =>
				new Promise<void>((resolve, reject) => {
					const stream = openEventStream(changes, (m) => {
						if (m.event === 'ready') resolve();
					});
					streams.push(stream);
					stream.opened.then((status) => {
						if (status !== 200) reject(new Error(`changes stream answered ${status}`));
					}, reject);
				})
		);
		await Promise.all(ready);
		return performance.now() - t0;
	} finally {
		for (const s of streams) s.close();
	}
}

/** The competition in progress's `changes` link, followed from the entry point. */
async function changesOf(svc: BenchService): Promise<string> {
	for (let href: string | undefined = `${svc.url}api/v1/competitions`; href;) {
		const page = await getJson<{
			_embedded?: { competitions?: { state: string; _links: LinkMap }[] };
			_links: LinkMap;
		}>(href);
		const competition = page._embedded?.competitions?.find((c) => c.state === 'IN_PROGRESS');
		const link = findLink(competition?._links, 'changes');
		if (link) return expandLink(link);
		href = nextOf(page._links);
	}
	throw new Error('no competition in progress with a changes link');
}

/** The two schemes in the order of this repetition (alternating, so neither always goes first). */
const order = (rep: number): Scheme[] => (rep % 2 === 0 ? ['http', 'https'] : ['https', 'http']);

export async function benchHttps(ctx: BenchContext): Promise<void> {
	const tlsDir = ctx.factory.tlsDir;
	await ensureLocalTls(tlsDir, localNames(), hostname().toLowerCase());
	const caFile = localTlsFiles(tlsDir).ca;
	const browser = await launch([
		`--ignore-certificate-errors-spki-list=${spkiHash(readFileSync(caFile, 'utf8'))}`
	]);
	const previousCa = process.env.RINGSIDE_BENCH_CA;
	process.env.RINGSIDE_BENCH_CA = caFile;
	try {
		const own: BenchContext = {
			smoke: ctx.smoke,
			reps: (full) => ctx.reps(full),
			latencyMs: ctx.latencyMs,
			factory: ctx.factory,
			benchPageDir: ctx.benchPageDir,
			appDir: ctx.appDir,
			browser,
			rows: ctx.rows,
			environment: ctx.environment,
			log: (m) => ctx.log(m)
		};
		await replay(own);
		await spectators(own);
	} finally {
		if (previousCa === undefined) delete process.env.RINGSIDE_BENCH_CA;
		else process.env.RINGSIDE_BENCH_CA = previousCa;
		await browser.close();
	}
}

async function replay(ctx: BenchContext): Promise<void> {
	const seed = ctx.smoke ? 'small' : 'realistic';
	const edits = ctx.smoke ? 50 : 1000;
	const runsEdited = ctx.smoke ? 2 : 10;
	const reps = ctx.reps(4);
	for (const latencyMs of [ctx.latencyMs, 0]) {
		const ms: Record<Scheme, number[]> = { http: [], https: [] };
		const ratios: number[] = [];
		for (let rep = 0; rep < reps; rep++) {
			const got: Partial<Record<Scheme, number>> = {};
			for (const scheme of order(rep)) {
				const r = await appReplay(ctx, seed, latencyMs, edits, runsEdited, scheme === 'https');
				got[scheme] = r.ms;
				ms[scheme].push(r.ms);
			}
			ratios.push((got.https ?? NaN) / (got.http ?? NaN));
			ctx.log(
				`https replay ${rep + 1}/${reps} at ${latencyMs} ms: HTTP ${got.http?.toFixed(0)} ms, ` +
					`HTTPS ${got.https?.toFixed(0)} ms`
			);
		}
		const at = `${edits} edits in ${runsEdited} runs, ${latencyMs} ms latency`;
		ctx.rows.push(
			{ part: PART, metric: `app replay over HTTP, ${at}`, unit: 'ms', value: spread(ms.http) },
			{ part: PART, metric: `app replay over HTTPS, ${at}`, unit: 'ms', value: spread(ms.https) },
			{
				part: PART,
				metric: `app replay HTTPS ÷ HTTP, ${latencyMs} ms latency (same rep)`,
				unit: '×',
				value: spread(ratios),
				note: 'the event’s own CA (ECDSA P-256), TLS 1.3, HTTP/1.1, 6 connections'
			}
		);
	}
}

async function spectators(ctx: BenchContext): Promise<void> {
	const seed = ctx.smoke ? 'small' : 'realistic';
	const clients = ctx.smoke ? 20 : 200;
	const durationMs = ctx.smoke ? 4000 : 30_000;
	const writes = ctx.smoke ? 8 : 60;
	const start = (scheme: Scheme) =>
		ctx.factory.start({ seed, latencyMs: ctx.latencyMs, etag: true, tls: scheme === 'https' });

	// A result reaching a spectator's push stream.
	const push95: Record<Scheme, number[]> = { http: [], https: [] };
	const push50: Record<Scheme, number[]> = { http: [], https: [] };
	for (let rep = 0, reps = ctx.reps(1); rep < reps; rep++) {
		for (const scheme of order(rep)) {
			const svc = await start(scheme);
			try {
				if (!svc.url.startsWith(`${scheme}:`)) throw new Error(`${svc.url} is not ${scheme}`);
				const r = await propagation(ctx, svc, writes);
				push50[scheme].push(percentile(r.push, 0.5));
				push95[scheme].push(percentile(r.push, 0.95));
			} finally {
				await svc.close();
			}
		}
	}
	for (const scheme of SCHEMES) {
		ctx.rows.push({
			part: PART,
			metric: `a result reaching a spectator's push stream over ${scheme.toUpperCase()}, p95`,
			unit: 'ms',
			value: spread(push95[scheme]),
			note: `p95 shown; p50 ${spread(push50[scheme]).median.toFixed(0)} ms; ${writes} writes`
		});
	}

	// Spectators arriving at once (the Wi-Fi came back): every stream a new connection, over TLS a
	// handshake each.
	const arrival: Record<Scheme, number[]> = { http: [], https: [] };
	const arrivalRatios: number[] = [];
	for (let rep = 0, reps = ctx.reps(3); rep < reps; rep++) {
		const got: Partial<Record<Scheme, number>> = {};
		for (const scheme of order(rep)) {
			const svc = await start(scheme);
			try {
				got[scheme] = await arrive(svc, clients);
				arrival[scheme].push(got[scheme]);
			} finally {
				await svc.close();
			}
		}
		arrivalRatios.push((got.https ?? NaN) / (got.http ?? NaN));
		ctx.log(
			`https arrival ${rep + 1}: ${clients} streams ready over HTTP in ${got.http?.toFixed(0)} ms, ` +
				`over HTTPS in ${got.https?.toFixed(0)} ms`
		);
	}
	ctx.rows.push(
		{
			part: PART,
			metric: `${clients} spectators' push streams opened at once, all ready, over HTTP`,
			unit: 'ms',
			value: spread(arrival.http),
			note: 'each a new connection (a Wi-Fi that came back)'
		},
		{
			part: PART,
			metric: `${clients} spectators' push streams opened at once, all ready, over HTTPS`,
			unit: 'ms',
			value: spread(arrival.https),
			note: 'a TLS handshake each'
		},
		{
			part: PART,
			metric: 'spectators arriving at once: HTTPS ÷ HTTP (same rep)',
			unit: '×',
			value: spread(arrivalRatios)
		}
	);

	// Idle spectators' screens: what they cost the service over each scheme.
	const modes: LoadConfig['mode'][] = ['push', 'polling'];
	for (const mode of modes) {
		const cpu: Record<Scheme, number[]> = { http: [], https: [] };
		const ratios: number[] = [];
		for (let rep = 0, reps = ctx.reps(2); rep < reps; rep++) {
			const got: Partial<Record<Scheme, number>> = {};
			for (const scheme of order(rep)) {
				const svc = await start(scheme);
				try {
					const r = await idleScreens(ctx, svc, mode, clients, durationMs);
					if (r.done.failures > 0) {
						throw new Error(`${mode} over ${scheme}: ${r.done.failures} failures`);
					}
					got[scheme] = r.serviceCpu;
					cpu[scheme].push(r.serviceCpu);
				} finally {
					await svc.close();
				}
			}
			ratios.push((got.https ?? NaN) / (got.http ?? NaN));
		}
		const label = mode === 'push' ? 'push streams' : 'polling boards (If-None-Match)';
		const how = `${clients} spectators on ring 1, ${durationMs / 1000} s, a result every 10 s`;
		ctx.rows.push(
			{
				part: PART,
				metric: `idle ${label} over HTTP: service CPU`,
				unit: '% of a core',
				value: spread(cpu.http),
				note: how
			},
			{
				part: PART,
				metric: `idle ${label} over HTTPS: service CPU`,
				unit: '% of a core',
				value: spread(cpu.https)
			},
			{
				part: PART,
				metric: `idle ${label}: service CPU HTTPS ÷ HTTP (same rep)`,
				unit: '×',
				value: spread(ratios)
			}
		);
	}
}
