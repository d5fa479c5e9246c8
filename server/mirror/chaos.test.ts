// Mirror mode tested for real (issue 23): the federation's service and the event laptop as two
// separate processes (server/main.ts), with a TCP link between them in this process
// (scripts/link-proxy.ts) that is cut (connections reset, or black-holed) and restored at random
// moments. While the link flaps, two phones record results on the laptop (GET, then PUT with
// If-Match, as the app does; sometimes a run's course) and the office corrects some of the same
// dog runs directly on the upstream. Then the link is restored, every conflict is decided through
// the laptop's `upstream` resource (Keep ours / Keep theirs at random), and once nothing waits both
// services must hold what the model says: nothing lost, nothing applied over an unseen value (every
// mirror PUT carried If-Match), nothing applied twice (every mirror PUT changed something), read
// from the upstream's PUT log. One printed seed drives the plan and the link's dice:
// `RINGSIDE_CHAOS_SEED=7 npx vitest run server/mirror/chaos.test.ts` reruns one (several: 1,2,3;
// RINGSIDE_CHAOS_MS sets the length of the flapping, RINGSIDE_CHAOS_KEEP=1 keeps both databases).
// In the `unit` project on SQLite; in the `postgres` project again with the laptop's database on
// PostgreSQL (its outbox's locks and transactions are what differ there).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startLinkProxy, type LinkProxy } from '../../scripts/link-proxy.ts';
import { startInstance, type Instance } from '../../scripts/topology.ts';
import { between, mulberry32, seedsFrom, type Random } from '../../tests/e2e/support/random.ts';
import { readPutLog, type PutLogEntry } from '../store/put-log-table.ts';
import { newDatabase } from '../test-pg/new-database.ts';
import { readPutLogOf, type PgHandle } from '../test-pg/psql.ts';
import { MIRROR_USER_AGENT } from './mirror-types.ts';
import { call, SEED_DATE, walk, type DogRunJson, type RunJson } from '../test-support.ts';

const SEEDS = seedsFrom('RINGSIDE_CHAOS_SEED', [1, 2, 3]);
/** How long the phones and the office work while the link flaps, per seed. */
const CHAOS_MS = Number(process.env.RINGSIDE_CHAOS_MS ?? 6_000);
const OFFICE_UA = 'ringside-chaos-office';
const PHONES = ['ringside-chaos-phone-a', 'ringside-chaos-phone-b'];
/** What the mirror's requests say they come from. */
const MIRROR_UA = MIRROR_USER_AGENT;
const DOG_FIELDS = ['time', 'faults', 'refusals', 'disqualified', 'absence'] as const;
const RUN_FIELDS = ['trackLength', 'standardTime', 'maximalTime'] as const;

type Fields = Record<string, unknown>;
type Kind = 'dogRun' | 'run';
interface Resource {
	kind: Kind;
	id: number;
	href: (base: string) => string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
	while (cleanups.length) await cleanups.pop()!().catch(() => {});
});

const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fieldsOf = (body: Fields, names: readonly string[]): Fields =>
	Object.fromEntries(names.map((f) => [f, body[f]]));
const namesOf = (kind: Kind): readonly string[] => (kind === 'dogRun' ? DOG_FIELDS : RUN_FIELDS);
const key = (kind: Kind, id: number): string => `${kind}:${id}`;

/** A phone's value: times never end in 7 hundredths, faults and refusals stay under 50. */
function phoneDogPatch(r: Random): Fields {
	const patch: Fields = {};
	const n = between(r, 1, 3);
	while (Object.keys(patch).length < n) {
		const f = pick(r, DOG_FIELDS);
		if (f === 'time') {
			let h = between(r, 2000, 8000);
			if (h % 10 === 7) h++;
			patch.time = h / 100;
		} else if (f === 'faults' || f === 'refusals') patch[f] = between(r, 0, 45);
		else patch[f] = r() < 0.5;
	}
	return patch;
}

/** The office's value: times end in 7 hundredths, faults and refusals are 50 or more. */
function officePatch(r: Random): Fields {
	const patch: Fields = {};
	const n = between(r, 1, 2);
	while (Object.keys(patch).length < n) {
		const f = pick(r, ['time', 'faults', 'refusals'] as const);
		patch[f] = f === 'time' ? (between(r, 200, 800) * 10 + 7) / 100 : between(r, 50, 99);
	}
	return patch;
}

function coursePatch(r: Random): Fields {
	const patch: Fields = {
		standardTime: between(r, 300, 600) / 10,
		maximalTime: between(r, 61, 120)
	};
	if (r() < 0.5) patch.trackLength = between(r, 100, 300);
	return patch;
}

/** GET for the ETag, then PUT with If-Match; a 412 (someone was faster) reads again. */
async function edit(url: string, patch: Fields, ua: string): Promise<boolean> {
	for (let attempt = 0; attempt < 8; attempt++) {
		const got = await fetch(url, { headers: { 'User-Agent': ua } });
		await got.text();
		const etag = got.headers.get('etag');
		const res = await fetch(url, {
			method: 'PUT',
			headers: {
				'User-Agent': ua,
				'Content-Type': 'application/json',
				...(etag ? { 'If-Match': etag } : {})
			},
			body: JSON.stringify(patch)
		});
		await res.text();
		if (res.status === 200) return true;
		if (res.status !== 412) throw new Error(`PUT ${url} answered ${res.status}`);
	}
	return false;
}

async function readAll(base: string, resources: Resource[]): Promise<Map<string, Fields>> {
	const out = new Map<string, Fields>();
	for (const r of resources) {
		const got = await call<Fields>(r.href(base));
		out.set(key(r.kind, r.id), fieldsOf(got.body, namesOf(r.kind)));
	}
	return out;
}

interface UpstreamEntry {
	key: string;
	status: string;
	conflicts: { field: string }[] | null;
	_links: Record<string, { href: string }>;
}
interface UpstreamStatus {
	waiting: number;
	refused: number;
	conflicts: number;
	_embedded?: { entries: UpstreamEntry[] };
}

/** The laptop's `upstream` resource, found by the device list's link. */
async function upstreamHref(laptop: string): Promise<string> {
	const devices = await call<{ _links: Record<string, { href: string }> }>(
		`${laptop}api/v1/devices`
	);
	const href = devices.body._links.upstream?.href;
	if (!href) throw new Error('the device list links no upstream');
	return href;
}

/** Applied rows (status 200) of the log, with their bodies, in arrival order. */
const applied = (log: PutLogEntry[]): PutLogEntry[] =>
	log.filter((r) => r.status === 200 && r.resourceId !== null && r.requestBody !== null);
const kindOf = (row: PutLogEntry): Kind => (row.resourceKind === 'dogRun' ? 'dogRun' : 'run');
const bodyOf = (row: PutLogEntry): Fields => JSON.parse(row.requestBody!) as Fields;

/** In the `postgres` project: the throw-away cluster the laptop's database is made on. */
const onPostgres = Boolean(inject('pgUrl'));

/** The laptop's database: a file beside the upstream's, or a new PostgreSQL database. */
async function laptopDatabase(dir: string): Promise<string> {
	return onPostgres ? newDatabase('chaos') : join(dir, 'laptop.sqlite');
}

/** The laptop's PUT log, from its database (SQLite or PostgreSQL). */
function laptopPutLog(databaseUrl: string): PutLogEntry[] {
	if (onPostgres) return readPutLogOf({ url: databaseUrl } as PgHandle);
	const db = new Database(databaseUrl, { readonly: true });
	try {
		return readPutLog(db);
	} finally {
		db.close();
	}
}

async function startPair(
	dir: string
): Promise<{ up: Instance; link: LinkProxy; lap: Instance; lapDatabase: string }> {
	const up = await startInstance({
		databaseUrl: join(dir, 'upstream.sqlite'),
		args: ['--seed', 'small', '--seed-date', SEED_DATE, '--etag', '--quiet']
	});
	cleanups.push(async () => void (await up.stop()));
	const link = await startLinkProxy(`127.0.0.1:${up.port}`);
	cleanups.push(() => link.close());
	const lapDatabase = await laptopDatabase(dir);
	const lap = await startInstance({
		databaseUrl: lapDatabase,
		args: ['--mirror', link.url, '--mirror-competitions', '1', '--mirror-pull', '200', '--quiet']
	});
	cleanups.push(async () => void (await lap.stop()));
	return { up, link, lap, lapDatabase };
}

describe('mirror mode under a flapping link (two processes)', () => {
	for (const seed of SEEDS) {
		it(`seed ${seed}: nothing lost, nothing over an unseen value, nothing twice`, async () => {
			console.log(
				`mirror chaos seed ${seed}, the laptop on ${onPostgres ? 'PostgreSQL' : 'SQLite'} (rerun: RINGSIDE_CHAOS_SEED=${seed})`
			);
			const r = mulberry32(seed * 7919 + 23);
			const dir = mkdtempSync(join(tmpdir(), 'ringside-mirror-chaos-'));
			if (!process.env.RINGSIDE_CHAOS_KEEP) {
				cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
			} else console.log(`keeping ${dir}`);
			const { up, link, lap, lapDatabase } = await startPair(dir);

			// The plan: two runs of competition 1, eight dog runs of each, shared by everyone.
			const runs = (await walk(`${up.url}api/v1/competitions/1/runs`, 'competitionRuns'))
				.items as RunJson[];
			const chosenRuns = [...runs].sort(() => r() - 0.5).slice(0, 2);
			const dogs: Resource[] = [];
			for (const run of chosenRuns) {
				const list = (await walk(run._links.dogRuns!.href, 'dogRuns')).items as DogRunJson[];
				for (const d of [...list].sort(() => r() - 0.5).slice(0, 8)) {
					dogs.push({ kind: 'dogRun', id: d.id, href: (b) => `${b}api/v1/dogRuns/${d.id}` });
				}
			}
			const courses: Resource[] = chosenRuns.map((run) => ({
				kind: 'run',
				id: run.id,
				href: (b) => `${b}api/v1/competitionRuns/${run.id}`
			}));
			const all = [...dogs, ...courses];
			const seedState = await readAll(up.url, all);

			// The link's dice: up 0.3–1.5 s, down 0.2–2 s, reset or black hole.
			const deadline = Date.now() + CHAOS_MS;
			let cuts = 0;
			const flapper = (async () => {
				while (Date.now() < deadline) {
					await sleep(between(r, 300, 1500));
					if (Date.now() >= deadline) break;
					link.cut(r() < 0.5 ? 'reset' : 'blackhole');
					cuts++;
					await sleep(between(r, 200, 2000));
					link.restore();
				}
			})();
			const phone = async (ua: string, dice: Random): Promise<void> => {
				while (Date.now() < deadline) {
					if (dice() < 0.1) {
						await edit(pick(dice, courses).href(lap.url), coursePatch(dice), ua);
					} else {
						await edit(pick(dice, dogs).href(lap.url), phoneDogPatch(dice), ua);
					}
					await sleep(between(dice, 40, 250));
				}
			};
			const office = async (dice: Random): Promise<void> => {
				await sleep(between(dice, 200, 800));
				while (Date.now() < deadline) {
					await edit(pick(dice, dogs).href(up.url), officePatch(dice), OFFICE_UA);
					await sleep(between(dice, 150, 600));
				}
			};
			await Promise.all([
				flapper,
				phone(PHONES[0]!, mulberry32(seed * 31 + 1)),
				phone(PHONES[1]!, mulberry32(seed * 31 + 2)),
				office(mulberry32(seed * 31 + 3))
			]);
			link.restore();

			// The secretary decides every conflict until nothing waits.
			const statusHref = await upstreamHref(lap.url);
			const theirs = new Set<string>(); // `${key}/${field}` kept from the upstream
			const decisions: string[] = [];
			const settleBy = Date.now() + 30_000;
			for (;;) {
				const s = (await call<UpstreamStatus>(statusHref)).body;
				expect(s.refused, 'nothing refused').toBe(0);
				if (s.waiting === 0 && s.conflicts === 0) break;
				if (Date.now() > settleBy) throw new Error(`still waiting: ${JSON.stringify(s)}`);
				for (const e of s._embedded?.entries ?? []) {
					if (e.status !== 'conflict' || !e._links.resolve) continue;
					const choice = r() < 0.5 ? 'ours' : 'theirs';
					const res = await call(e._links.resolve.href, {
						method: 'POST',
						headers: { 'Content-Type': 'application/json' },
						body: JSON.stringify({ choice })
					});
					if (res.status !== 200) continue;
					const fields = (e.conflicts ?? []).map((c) => c.field);
					decisions.push(`${e.key} ${choice} ${fields.join(',')}`);
					if (choice === 'theirs') for (const f of fields) theirs.add(`${e.key}/${f}`);
				}
				await sleep(100);
			}

			// The model, from both PUT logs (each service's own order of what it accepted).
			const upDb = new Database(join(dir, 'upstream.sqlite'), { readonly: true });
			cleanups.push(async () => void upDb.close());
			const lapRows = applied(laptopPutLog(lapDatabase)).filter((x) =>
				PHONES.includes(x.client ?? '')
			);
			const expected = new Map<string, Fields>();
			for (const res of all) {
				const k = key(res.kind, res.id);
				const want: Fields = { ...seedState.get(k)! };
				// Upstream rows, in order: the office's and the mirror's.
				const upRows = applied(readPutLog(upDb)).filter(
					(x) => kindOf(x) === res.kind && x.resourceId === res.id
				);
				for (const f of namesOf(res.kind)) {
					const phoneRows = lapRows.filter(
						(x) => kindOf(x) === res.kind && x.resourceId === res.id && f in bodyOf(x)
					);
					const officeRows = upRows.filter((x) => x.client === OFFICE_UA && f in bodyOf(x));
					const lastOffice = officeRows.at(-1);
					if (phoneRows.length === 0) {
						if (lastOffice) want[f] = bodyOf(lastOffice)[f];
						continue;
					}
					const mine = bodyOf(phoneRows.at(-1)!)[f];
					// When the upstream took the phone's last value (the last mirror row carrying it).
					const published = upRows.findLastIndex(
						(x) => x.client === MIRROR_UA && f in bodyOf(x) && bodyOf(x)[f] === mine
					);
					const officeAfter = lastOffice !== undefined && upRows.indexOf(lastOffice) > published;
					want[f] = theirs.has(`${k}/${f}`) || officeAfter ? bodyOf(lastOffice!)[f] : mine;
				}
				expected.set(k, want);
			}

			if (process.env.RINGSIDE_CHAOS_KEEP) console.log(decisions.join('\n'));
			// Both services hold the model's values (the laptop takes the last word down shortly).
			await expect
				.poll(async () => Object.fromEntries(await readAll(lap.url, all)), { timeout: 10_000 })
				.toEqual(Object.fromEntries(expected));
			expect(Object.fromEntries(await readAll(up.url, all))).toEqual(Object.fromEntries(expected));

			// The upstream's PUT log: every mirror PUT it applied carried If-Match and changed a field.
			const upLog = readPutLog(upDb);
			const mirrorApplied = applied(upLog).filter((x) => x.client === MIRROR_UA);
			expect(mirrorApplied.filter((x) => !x.ifMatch)).toEqual([]);
			const state = new Map([...seedState].map(([k, v]) => [k, { ...v }]));
			const twice: PutLogEntry[] = [];
			for (const row of applied(upLog)) {
				const k = key(kindOf(row), row.resourceId!);
				const before = state.get(k);
				if (!before) continue;
				const body = bodyOf(row);
				const changes = Object.entries(body).some(([f, v]) => before[f] !== v);
				if (row.client === MIRROR_UA && !changes) twice.push(row);
				Object.assign(before, body);
			}
			expect(twice).toEqual([]);
			const phoneWrites = lapRows.length;
			const officeWrites = applied(upLog).filter((x) => x.client === OFFICE_UA).length;
			console.log(
				`seed ${seed}: ${cuts} cuts (${JSON.stringify(link.stats())}), ${phoneWrites} phone ` +
					`writes, ${officeWrites} office writes, ${mirrorApplied.length} mirror PUTs applied ` +
					`(${upLog.filter((x) => x.client === MIRROR_UA && x.status === 412).length} × 412), ` +
					`decisions: ${decisions.join('; ') || 'none'}`
			);
			expect(cuts).toBeGreaterThan(0);
			expect(phoneWrites).toBeGreaterThan(10);
		}, 60_000);
	}
});
