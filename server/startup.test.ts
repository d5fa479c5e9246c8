// Starting the service: options are checked before anything is opened, and a start that fails
// after opening the database closes it again.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createService, type ServiceOptions } from './app.ts';
import {
	call,
	put,
	SEED_DATE,
	startSmall,
	tempDbFile,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type RunList,
	type Started
} from './test-support.ts';

const start = useServices();

const startOn = (dbFile: string, extra: ServiceOptions = {}) =>
	createService({ port: 0, seed: 'small', seedDate: SEED_DATE, quiet: true, dbFile, ...extra });

/**
 * SQLite removes the -wal and -shm files of a WAL database when its last connection closes:
 * while they exist after a failed start, the service left the database open.
 */
const leftOpen = (dbFile: string): boolean =>
	existsSync(`${dbFile}-wal`) || existsSync(`${dbFile}-shm`);

async function aDogRun(s: Started): Promise<DogRunJson> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const runs = await call<RunList>(
		list.body._embedded!.competitions[0]!._links.competitionRuns.href
	);
	const dogs = await call<DogRunList>(runs.body._embedded!.competitionRuns[0]!._links.dogRuns.href);
	return dogs.body._embedded!.dogRuns[0]!;
}

describe('invalid options', () => {
	it.each<[string, ServiceOptions, RegExp]>([
		['faults', { faults: { resetRate: 2 } }, /resetRate/],
		['fault delay', { faults: { delayMs: [50, 10] } }, /delayMs/],
		['seed date', { seedDate: '12.5.2026' }, /seedDate/],
		['seed size', { seed: 'huge' as ServiceOptions['seed'] }, /seed/],
		['port', { port: 70000 }, /port/],
		['upstream', { upstream: 'ftp://results.test' }, /http or https/]
	])('are refused (%s) before the database is created', async (_name, bad, message) => {
		const dbFile = tempDbFile();
		await expect(startOn(dbFile, bad)).rejects.toThrow(message);
		expect(existsSync(dbFile)).toBe(false);
		expect(leftOpen(dbFile)).toBe(false);
	});

	it('are refused before a reset deletes the data', async () => {
		const first = await startSmall();
		const d = await aDogRun(first);
		expect((await put(d._links.self.href, { time: 33.33 })).status).toBe(200);
		await first.svc.close();

		const bad = { reset: true, faults: { error503Rate: -1 } };
		await expect(startOn(first.dbFile, bad)).rejects.toThrow(/error503Rate/);
		expect(leftOpen(first.dbFile)).toBe(false);

		const again = await start({ dbFile: first.dbFile });
		expect(again.svc.seeded).toBeNull();
		expect(
			(await call<DogRunJson>(d._links.self.href.replace(first.svc.url, again.svc.url))).body
		).toMatchObject({ time: 33.33 });
	});
});

describe('a start that fails after opening the database', () => {
	it('closes the database when the port is in use', async () => {
		const taken = await start();
		const dbFile = tempDbFile();
		await expect(startOn(dbFile, { port: taken.svc.port })).rejects.toThrow(/EADDRINUSE/);
		expect(existsSync(dbFile)).toBe(true);
		expect(leftOpen(dbFile)).toBe(false);
		// The file is usable at once: a new start opens it without seeding again.
		const next = await start({ dbFile });
		expect(next.svc.seeded).toBeNull();
		expect((await call(next.entry)).status).toBe(200);
	});

	it('closes the database when seeding it fails', async () => {
		const dbFile = tempDbFile();
		const other = await startOn(dbFile);
		other.db!.pragma('foreign_keys = OFF');
		// No competitions (so the start seeds) and a table the seed cannot fill.
		other.db!.exec('DROP TABLE competition; CREATE TABLE competition (x)');
		await other.close();
		await expect(startOn(dbFile)).rejects.toThrow(/competition/);
		expect(leftOpen(dbFile)).toBe(false);
	});

	it('closes the database when the file is not a SQLite database', async () => {
		const dbFile = tempDbFile();
		mkdirSync(dirname(dbFile), { recursive: true });
		writeFileSync(dbFile, 'not a database, just text '.repeat(200));
		const close = vi.spyOn(Database.prototype, 'close');
		try {
			await expect(startOn(dbFile)).rejects.toThrow(/not a database/);
			expect(close).toHaveBeenCalledTimes(1);
		} finally {
			close.mockRestore();
		}
	});
});
