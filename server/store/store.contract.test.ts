// The contract of the Store interface (store.ts), held by every engine: the same tests run on a
// SQLite file and an in-memory SQLite database (project `unit`) and on a PostgreSQL database
// (project `postgres`, whose global setup provides the cluster). Each store is opened as the
// service opens it (open.ts: migrated, seeded small), and only its interface is used.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { newDatabase } from '../test-pg/new-database.ts';
import { SEED_DATE } from '../test-support.ts';
import { openStore, type StoreOptions } from './open.ts';
import type { Sql } from './sql.ts';
import type { Store, StoredChange } from './store.ts';

/** Where a store of each engine is opened; the same place again reopens the same data. */
interface Engine {
	name: string;
	/** A new place for data; `null`: the data does not outlive the store. */
	place(): Promise<Pick<StoreOptions, 'dbFile' | 'databaseUrl'>>;
	keepsData: boolean;
}

const engines: Engine[] = inject('pgUrl')
	? [
			{
				name: 'PostgreSQL',
				place: async () => ({ databaseUrl: await newDatabase('st') }),
				keepsData: true
			}
		]
	: [
			{
				name: 'SQLite file',
				place: async () => ({
					dbFile: join(mkdtempSync(join(tmpdir(), 'ringside-store-')), 'store.sqlite')
				}),
				keepsData: true
			},
			{ name: 'SQLite in memory', place: async () => ({ dbFile: ':memory:' }), keepsData: false }
		];

const opened: Store[] = [];
afterEach(async () => {
	while (opened.length) await opened.pop()!.close();
});

async function open(where: Pick<StoreOptions, 'dbFile' | 'databaseUrl'>): Promise<Store> {
	const errors: string[] = [];
	const { store } = await openStore({
		...where,
		reset: false,
		seed: 'small',
		seedDate: SEED_DATE,
		poolSize: 4,
		logError: (line) => errors.push(line)
	});
	opened.push(store);
	return store;
}

const turns = async (n = 5): Promise<void> => {
	for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** Resolves once `done()` holds (changes arrive by NOTIFY on a shared database). */
async function until(done: () => boolean, ms = 3000): Promise<void> {
	const end = Date.now() + ms;
	while (!done()) {
		if (Date.now() > end) throw new Error('not within 3 s');
		await new Promise((r) => setTimeout(r, 5));
	}
}

const KEYS = "SELECT key FROM meta WHERE key LIKE 'test.%' ORDER BY key";
const keysOf = async (sql: Sql): Promise<string[]> =>
	(await sql.all<{ key: string }>(KEYS)).map((r) => r.key);
const put = (sql: Sql, key: string, value = '1') =>
	sql.run('INSERT INTO meta (key, value) VALUES (@key, @value)', { key: `test.${key}`, value });

/** A change of competition 1 whose template names `n`. */
const change = (n: number): Omit<StoredChange, 'seq'> => ({
	competitionId: 1,
	event: 'dogRun',
	template: JSON.stringify({ n })
});

describe.each(engines)('the store on $name', (engine) => {
	it('commits a write whole, and rolls back one that throws whole', async () => {
		const store = await open(await engine.place());
		await store.write(async (sql) => {
			await put(sql, 'a');
			await put(sql, 'b');
		});
		await expect(
			store.write(async (sql) => {
				await put(sql, 'c');
				throw new Error('c fails');
			})
		).rejects.toThrow('c fails');
		expect(await keysOf(store.sql)).toEqual(['test.a', 'test.b']);
	});

	it('never runs a statement outside a write inside another one, nor commits it with it', async () => {
		const store = await open(await engine.place());
		let releaseA = () => {};
		const gateA = new Promise<void>((r) => (releaseA = r));
		const a = store.write(async (sql) => {
			await put(sql, 'a');
			await gateA;
		});
		await turns();
		// A put_log append, say, while A is open; then another request's write that fails.
		const outside = put(store.sql, 'outside');
		const b = store.write(async (sql) => {
			await put(sql, 'b');
			throw new Error('b fails');
		});
		releaseA();
		await a;
		await expect(b).rejects.toThrow('b fails');
		await outside;
		expect(await keysOf(store.sql)).toEqual(['test.a', 'test.outside']);
	});

	it('reads one snapshot at the version it names, whatever commits meanwhile', async () => {
		const store = await open(await engine.place());
		const before = await store.feed.committedSeq();
		let writing: Promise<void> | undefined;
		const seen = await store.read(async (sql, version) => {
			const first = await keysOf(sql);
			// A change committed (or waiting for this read) while the read goes on.
			writing = store.write(async (w) => {
				await store.feed.record(w, await store.feed.claim(w), change(1));
				await put(w, 'during');
			});
			await turns(20);
			return { version, first, second: await keysOf(sql) };
		});
		await writing;
		expect(seen).toEqual({ version: before, first: [], second: [] });
		expect(await store.feed.committedSeq()).toBe(before + 1);
		expect(await store.read(async (_sql, version) => version)).toBe(before + 1);
	});

	it('delivers each committed change once, after its commit, in seq order, as claimed', async () => {
		const store = await open(await engine.place());
		const got: StoredChange[] = [];
		store.feed.onChange((c) => got.push(c));
		const start = await store.feed.committedSeq();
		const claimed = new Map<number, number>();
		// Five writes at once: each claims, lets the others go as far as they can, records.
		await Promise.all(
			[1, 2, 3, 4, 5].map((n) =>
				store.write(async (sql) => {
					const seq = await store.feed.claim(sql);
					claimed.set(n, seq);
					await turns();
					await store.feed.record(sql, seq, change(n));
					await turns();
					// Not before the commit.
					expect(got.some((c) => c.seq === seq)).toBe(false);
				})
			)
		);
		await until(() => got.length >= 5);
		await turns(20);
		expect(got.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5].map((k) => start + k));
		for (const c of got) {
			const { n } = JSON.parse(c.template) as { n: number };
			expect(c).toMatchObject({ seq: claimed.get(n), competitionId: 1, event: 'dogRun' });
		}
		expect(await store.feed.committedSeq()).toBe(start + 5);
		expect(store.feed.deliveredSeq()).toBe(start + 5);
	});

	it('delivers nothing of a write that fails, and keeps its seq for the next change', async () => {
		const store = await open(await engine.place());
		const got: number[] = [];
		const revoked: number[] = [];
		store.feed.onChange((c) => got.push(c.seq));
		store.feed.onRevoked((id) => revoked.push(id));
		const start = await store.feed.committedSeq();
		await expect(
			store.write(async (sql) => {
				await store.feed.record(sql, await store.feed.claim(sql), change(1));
				await store.feed.recordRevoked(sql, 7);
				throw new Error('fails after recording');
			})
		).rejects.toThrow('fails after recording');
		expect(await store.feed.committedSeq()).toBe(start);
		await store.write(async (sql) => {
			const seq = await store.feed.claim(sql);
			expect(seq).toBe(start + 1);
			await store.feed.record(sql, seq, change(2));
			await store.feed.recordRevoked(sql, 8);
		});
		await until(() => got.length >= 1 && revoked.length >= 1);
		await new Promise((r) => setTimeout(r, 100));
		expect(got).toEqual([start + 1]);
		expect(revoked).toEqual([8]);
	});

	it('lets writes that take the same lock run one at a time', async () => {
		const store = await open(await engine.place());
		await store.write((sql) => put(sql, 'counter', '0'));
		const bump = () =>
			store.write(async (sql) => {
				await store.lock(sql, 42);
				const row = await sql.get<{ value: string }>(
					"SELECT value FROM meta WHERE key = 'test.counter'"
				);
				await turns();
				await sql.run("UPDATE meta SET value = @value WHERE key = 'test.counter'", {
					value: String(Number(row!.value) + 1)
				});
			});
		await Promise.all([bump(), bump(), bump()]);
		const row = await store.sql.get<{ value: string }>(
			"SELECT value FROM meta WHERE key = 'test.counter'"
		);
		expect(row!.value).toBe('3');
	});

	it('keeps the changes of its epoch when opened again, or starts a new epoch from nothing', async () => {
		if (!engine.keepsData) return;
		const where = await engine.place();
		const first = await open(where);
		for (const n of [1, 2, 3]) {
			await first.write(async (sql) => {
				await first.feed.record(sql, await first.feed.claim(sql), change(n));
			});
		}
		const last = await first.feed.committedSeq();
		const { epoch } = first.feed;
		await first.close();
		const again = await open(where);
		const recent = await again.feed.recent(2);
		expect(again.feed.epoch).toMatch(/^[a-z0-9]+$/);
		if (again.feed.epoch === epoch) {
			// Ids of this epoch go on: the latest changes are kept, oldest first.
			expect(recent.map((c) => c.seq)).toEqual([last - 1, last]);
			expect(recent.map((c) => JSON.parse(c.template) as unknown)).toEqual([{ n: 2 }, { n: 3 }]);
			expect(await again.feed.committedSeq()).toBe(last);
			expect(again.feed.deliveredSeq()).toBe(last);
		} else {
			// A new epoch: no id of the old one can be resumed, so nothing needs keeping.
			expect(recent).toEqual([]);
			expect(again.feed.deliveredSeq()).toBe(await again.feed.committedSeq());
		}
	});

	it('names a folder of this machine for its data, or none (a database server)', async () => {
		const store = await open(await engine.place());
		if (store.dataDir !== null) expect(statSync(store.dataDir).isDirectory()).toBe(true);
	});

	it('refuses reads and writes once closed', async () => {
		const store = await open(await engine.place());
		await store.close();
		expect(store.open).toBe(false);
		await expect(store.read(async () => 1)).rejects.toMatchObject({ code: 'store-closed' });
		await expect(store.write(async () => 1)).rejects.toMatchObject({ code: 'store-closed' });
	});
});
