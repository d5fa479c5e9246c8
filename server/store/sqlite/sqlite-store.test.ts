// The SQLite store's turns on its one connection: a statement of `store.sql` never runs inside
// another request's write transaction.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteStore } from './sqlite-store.ts';

function storeWithTable() {
	const db = new Database(':memory:');
	db.exec('CREATE TABLE t (v TEXT)');
	const values = () =>
		(db.prepare('SELECT v FROM t ORDER BY rowid').all() as { v: string }[]).map((r) => r.v);
	return { store: sqliteStore(db, ':memory:'), values };
}

describe('the SQLite store', () => {
	it('runs a statement that waited for one write outside the next one, which fails alone', async () => {
		const { store, values } = storeWithTable();
		let releaseA = () => {};
		const gateA = new Promise<void>((r) => (releaseA = r));
		const a = store.write(async (sql) => {
			await sql.run("INSERT INTO t VALUES ('a')");
			await gateA;
		});
		await Promise.resolve();
		// A put_log append, say, while A is open; then another request's write that fails.
		const outside = store.sql.run("INSERT INTO t VALUES ('outside')");
		const b = store.write(async (sql) => {
			await sql.run("INSERT INTO t VALUES ('b')");
			throw new Error('b fails');
		});
		releaseA();
		await a;
		await expect(b).rejects.toThrow('b fails');
		await outside;
		expect(values()).toEqual(['a', 'outside']);
	});
});
