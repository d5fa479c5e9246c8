/**
 * Part 12, mirror (issue 23; Node only, no browser): the event laptop in mirror mode and the
 * federation's service as two processes (`server/main.ts`), the upstream with `--latency 40`
 * (an internet line) behind a TCP link in this process (scripts/link-proxy.ts) that is cut and
 * restored. Changes are recorded on the laptop (PUT of a new time on a dog run not changed yet)
 * while the link is down; the clock starts when the link returns, and the upstream's own PUT log
 * (its SQLite file, read-only) says when it applied each change.
 * (a) outages of 30–120 s with a change every few seconds: p50 and p95 of return → upstream;
 * (b) 2,000 changes queued during one outage: return → the last on the upstream;
 * (c) the laptop's CPU while it publishes (b), from /proc, as a share of one core, against the
 *     upstream's CPU for the same requests in the same window, and the laptop's own while idle.
 * Smoke: the small seed, one 4 s outage with 4 changes and 100 queued changes after a 3 s one.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLinkProxy, type LinkProxy } from '../../scripts/link-proxy.ts';
import { startInstance, type Instance } from '../../scripts/topology.ts';
import { MIRROR_USER_AGENT } from '../../server/mirror/mirror-types.ts';
import { localToday } from '../../server/seed/dates.ts';
import { getJson, http, nextOf } from '../lib/live-http.ts';
import { percentile, spread } from '../lib/stats.ts';
import { judged, type BenchContext } from './context.ts';

const PART = '12 mirror';
const LATENCY_MS = 40;
const MIRROR_UA = MIRROR_USER_AGENT;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Listed<K extends string, T> {
	_embedded?: Record<K, T[]>;
	_links?: Record<string, { href: string }>;
	page?: { totalElements: number };
}
type Link = { href: string };
interface Comp {
	id: number;
	_links: { competitionRuns: Link };
}
interface Run {
	id: number;
	_links: { dogRuns: Link };
}

/** Every item of a list, page by page, by its links. */
async function all<K extends string, T>(href: string, key: K): Promise<T[]> {
	const out: T[] = [];
	for (let url: string | undefined = href; url;) {
		const page: Listed<K, T> = await getJson<Listed<K, T>>(url);
		out.push(...(page._embedded?.[key] ?? []));
		url = nextOf(page._links);
	}
	return out;
}

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100/s)
}

/** The competitions to mirror (most dog runs first) until they hold `need` dog runs. */
async function pickCompetitions(base: string, need: number): Promise<number[]> {
	const comps = await all<'competitions', Comp>(`${base}api/v1/competitions`, 'competitions');
	const sized: { id: number; n: number }[] = [];
	for (const c of comps) {
		let n = 0;
		for (const r of await all<'competitionRuns', Run>(
			c._links.competitionRuns.href,
			'competitionRuns'
		)) {
			n +=
				(await getJson<Listed<'dogRuns', unknown>>(r._links.dogRuns.href)).page?.totalElements ?? 0;
		}
		sized.push({ id: c.id, n });
	}
	sized.sort((a, b) => b.n - a.n);
	const ids: number[] = [];
	let held = 0;
	for (const s of sized) {
		if (held >= need) break;
		ids.push(s.id);
		held += s.n;
	}
	return ids;
}

interface Rig {
	up: Instance;
	lap: Instance;
	link: LinkProxy;
	dogRunIds: number[];
	upDb: Database.Database;
	dir: string;
}

async function startRig(ctx: BenchContext, need: number): Promise<Rig> {
	const dir = mkdtempSync(join(tmpdir(), 'ringside-bench-mirror-'));
	const seed = ctx.smoke ? 'small' : 'realistic';
	const up = await startInstance({
		databaseUrl: join(dir, 'upstream.sqlite'),
		args: [
			'--seed',
			seed,
			'--seed-date',
			localToday(),
			'--etag',
			'--quiet',
			'--latency',
			String(LATENCY_MS),
			'--read-budget',
			'off'
		]
	});
	const ids = await pickCompetitions(up.url, need);
	const link = await startLinkProxy(`127.0.0.1:${up.port}`);
	const laptopStart = Date.now();
	const lap = await startInstance({
		databaseUrl: join(dir, 'laptop.sqlite'),
		args: ['--mirror', link.url, '--mirror-competitions', ids.join(','), '--quiet']
	});
	ctx.log(
		`mirror: copied competitions ${ids.join(', ')} in ${((Date.now() - laptopStart) / 1000).toFixed(1)} s`
	);
	const dogRunIds: number[] = [];
	for (const id of ids) {
		const comp = await getJson<Comp>(`${lap.url}api/v1/competitions/${id}`);
		for (const r of await all<'competitionRuns', Run>(
			comp._links.competitionRuns.href,
			'competitionRuns'
		)) {
			for (const d of await all<'dogRuns', { id: number }>(r._links.dogRuns.href, 'dogRuns'))
				dogRunIds.push(d.id);
		}
	}
	const upDb = new Database(join(dir, 'upstream.sqlite'), { readonly: true });
	return { up, lap, link, dogRunIds, upDb, dir };
}

/** A new time on dog run `id` of the laptop (as a phone sends it); resolves when accepted. */
async function record(lap: Instance, id: number, n: number): Promise<void> {
	let time = (2000 + ((id * 7 + n * 13) % 5000)) / 100; // hundredths, as the service wants
	// A value the dog run holds already is no change: nothing would be published.
	const now = await getJson<{ time: number | null }>(`${lap.url}api/v1/dogRuns/${id}`);
	if (now.time === time) time = (Math.round(time * 100) + 1) / 100;
	const a = await http(`${lap.url}api/v1/dogRuns/${id}`, {
		method: 'PUT',
		headers: { 'Content-Type': 'application/json', 'User-Agent': 'bench-phone' },
		body: JSON.stringify({ time })
	});
	if (a.status !== 200) throw new Error(`laptop answered ${a.status}: ${a.text}`);
}

/** When the upstream applied the mirror's PUT of each dog run (ms since 1970), after row `since`. */
function appliedAt(db: Database.Database, since: number): Map<number, number> {
	const rows = db
		.prepare(
			`SELECT resource_id AS id, at FROM put_log WHERE id > ? AND status = 200 AND client = ?
			 AND resource_kind = 'dogRun' ORDER BY id`
		)
		.all(since, MIRROR_UA) as { id: number; at: string }[];
	return new Map(rows.map((r) => [Number(r.id), Date.parse(r.at)]));
}
const lastRow = (db: Database.Database): number =>
	Number((db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM put_log').get() as { n: number }).n);

/** Waits until the upstream applied every one of `ids` after row `since`; their times. */
async function untilApplied(
	rig: Rig,
	ids: number[],
	since: number,
	ms: number
): Promise<Map<number, number>> {
	const until = Date.now() + ms;
	for (;;) {
		const got = appliedAt(rig.upDb, since);
		if (ids.every((id) => got.has(id))) return got;
		if (Date.now() > until)
			throw new Error(
				`${ids.filter((id) => !got.has(id)).length} of ${ids.length} never reached the upstream`
			);
		await sleep(100);
	}
}

export async function benchMirror(ctx: BenchContext): Promise<void> {
	const queued = ctx.smoke ? 100 : 2000;
	const outages = ctx.smoke ? [4] : [30, 60, 90, 120];
	const perOutage = ctx.smoke ? 4 : 0; // full: one change every 5 s of the outage
	const load = loadavg()[0]!.toFixed(1);
	const rig = await startRig(ctx, queued + 200);
	let next = 0;
	const fresh = (): number => {
		const id = rig.dogRunIds[next++];
		if (id === undefined) throw new Error('not enough dog runs mirrored');
		return id;
	};
	try {
		// (a) outages with changes spread over them.
		const delays: number[] = [];
		for (const seconds of outages) {
			const since = lastRow(rig.upDb);
			rig.link.cut('reset');
			const count = perOutage || Math.floor(seconds / 5);
			const ids: number[] = [];
			const cutAt = Date.now();
			for (let i = 0; i < count; i++) {
				await sleep(Math.max(0, cutAt + ((i + 0.5) * seconds * 1000) / count - Date.now()));
				const id = fresh();
				await record(rig.lap, id, i);
				ids.push(id);
			}
			await sleep(Math.max(0, cutAt + seconds * 1000 - Date.now()));
			rig.link.restore();
			const back = Date.now();
			const got = await untilApplied(rig, ids, since, 120_000);
			const mine = ids.map((id) => got.get(id)! - back);
			delays.push(...mine);
			ctx.log(
				`mirror: ${seconds} s outage, ${count} changes, on the upstream after ${mine.map((d) => (d / 1000).toFixed(2)).join(', ')} s`
			);
		}
		const p95 = percentile(delays, 0.95);
		const how = `${outages.join('/')} s outages (reset), ${delays.length} changes, pull every 5 s, upstream +${LATENCY_MS} ms; load ${load}`;
		ctx.rows.push(
			{
				part: PART,
				metric: 'outage: link back → change on the upstream, p50',
				unit: 'ms',
				value: spread([percentile(delays, 0.5)]),
				note: how
			},
			{
				part: PART,
				metric: 'outage: link back → change on the upstream, p95',
				unit: 'ms',
				value: spread([p95]),
				target: '≤ 10000',
				met: judged(ctx, p95 <= 10_000),
				note: `min–max ${Math.min(...delays)}–${Math.max(...delays)} ms`
			}
		);

		// (b) and (c): many changes queued during one outage, then published.
		const longS = ctx.smoke ? 3 : 120;
		const since = lastRow(rig.upDb);
		rig.link.cut('reset');
		const cutAt = Date.now();
		const ids: number[] = [];
		for (let i = 0; i < queued; i++) {
			const id = fresh();
			await record(rig.lap, id, 1000 + i);
			ids.push(id);
		}
		const queuedIn = Date.now() - cutAt;
		// The laptop idle (link down, every entry waiting out its backoff): its CPU for 10 s.
		const idleS = ctx.smoke ? 1 : 10;
		await sleep(Math.max(0, cutAt + longS * 1000 - idleS * 1000 - Date.now()));
		const idle0 = cpuSeconds(rig.lap.child.pid!);
		const idleT0 = Date.now();
		await sleep(idleS * 1000);
		const idlePct =
			((cpuSeconds(rig.lap.child.pid!) - idle0) / ((Date.now() - idleT0) / 1000)) * 100;
		const lap0 = cpuSeconds(rig.lap.child.pid!);
		const up0 = cpuSeconds(rig.up.child.pid!);
		rig.link.restore();
		const back = Date.now();
		const got = await untilApplied(rig, ids, since, 600_000);
		const lastAt = Math.max(...ids.map((id) => got.get(id)!));
		const wall = (Date.now() - back) / 1000;
		const lapPct = ((cpuSeconds(rig.lap.child.pid!) - lap0) / wall) * 100;
		const upPct = ((cpuSeconds(rig.up.child.pid!) - up0) / wall) * 100;
		const total = lastAt - back;
		const note = `${queued} changes queued in ${(queuedIn / 1000).toFixed(1)} s, link down ${longS} s (reset), 8 at a time, upstream +${LATENCY_MS} ms`;
		ctx.rows.push(
			{
				part: PART,
				metric: `${queued} queued changes: link back → all on the upstream`,
				unit: 'ms',
				value: spread([total]),
				target: '< 60000',
				met: judged(ctx, total < 60_000),
				note
			},
			{
				part: PART,
				metric: 'laptop CPU while publishing them',
				unit: '% of a core',
				value: spread([lapPct]),
				note: `over ${wall.toFixed(1)} s from the link's return`
			},
			{
				part: PART,
				metric: 'peer: upstream CPU for the same requests, same window',
				unit: '% of a core',
				value: spread([upPct]),
				note: `laptop ÷ upstream ${(lapPct / upPct).toFixed(2)}×`
			},
			{
				part: PART,
				metric: 'peer: laptop CPU idle, link down, entries waiting',
				unit: '% of a core',
				value: spread([idlePct]),
				note: `${idleS} s before the return; load average at the part's start ${load}`
			}
		);
	} finally {
		rig.upDb.close();
		await rig.lap.stop();
		await rig.link.close();
		await rig.up.stop();
		rmSync(rig.dir, { recursive: true, force: true });
	}
}
