// Requests that overlap: each one's transaction is its own, whatever arrives with it (HTTP/1.1
// pipelining hands the service several requests in one step), and whatever fails in it. Runs on
// both engines (POSTGRES_SUITES).
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readPutLog } from './app.ts';
import type { Sql } from './store/sql.ts';
import type { Store } from './store/store.ts';
import {
	call,
	openSse,
	parseJson,
	put,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type RunJson,
	type RunList,
	type Started
} from './test-support.ts';

const start = useServices();

const bearer = (credential: string): Record<string, string> => ({
	Authorization: `Bearer ${credential}`
});

/** A device credential of `role`, joined with a link the service makes itself. */
async function joined(
	s: Started,
	role: 'secretary' | 'steward' | 'viewer'
): Promise<{ id: number; credential: string }> {
	const link = s.svc.createJoinLink({ role, uses: 1, hours: 1 });
	const r = await call<{ id: number; credential: string }>(`${s.svc.url}api/v1/devices/join`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ token: link.token })
	});
	expect(r.status, r.text).toBe(201);
	return r.body;
}

interface Pipelined {
	method: string;
	path: string;
	headers?: Record<string, string>;
	body?: string;
}

/**
 * Sends the requests on one connection in one TCP write (HTTP/1.1 pipelining: the service parses
 * them in one step) and returns the status of each answer, in order.
 */
function pipelined(s: Started, requests: Pipelined[]): Promise<number[]> {
	const host = new URL(s.svc.url).host;
	const text = requests
		.map((r) => {
			const headers = {
				Host: host,
				...r.headers,
				'Content-Length': String(Buffer.byteLength(r.body ?? ''))
			};
			const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
			return `${r.method} ${r.path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${r.body ?? ''}`;
		})
		.join('');
	return new Promise((resolve, reject) => {
		const socket = connect(s.svc.port, '127.0.0.1', () => socket.write(text));
		let answers = '';
		const statuses = (): number[] =>
			[...answers.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
		socket.on('data', (d: Buffer) => {
			answers += d.toString('latin1');
			if (statuses().length >= requests.length) {
				socket.end();
				resolve(statuses());
			}
		});
		socket.on('error', reject);
		socket.on('close', () => resolve(statuses()));
	});
}

/** Like `pipelined`, but the last request closes the connection: each answer's status and body. */
async function pipelinedAnswers(
	s: Started,
	requests: Pipelined[]
): Promise<{ status: number; body: string }[]> {
	const host = new URL(s.svc.url).host;
	const text = requests
		.map((r, i) => {
			const headers = {
				Host: host,
				...r.headers,
				...(i === requests.length - 1 ? { Connection: 'close' } : {}),
				'Content-Length': String(Buffer.byteLength(r.body ?? ''))
			};
			const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
			return `${r.method} ${r.path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${r.body ?? ''}`;
		})
		.join('');
	const raw = await new Promise<string>((resolve, reject) => {
		const socket = connect(s.svc.port, '127.0.0.1', () => socket.write(text));
		let answers = '';
		socket.on('data', (d: Buffer) => (answers += d.toString('utf8')));
		socket.on('error', reject);
		socket.on('close', () => resolve(answers));
	});
	return raw.split(/(?=HTTP\/1\.1 \d{3})/).map((answer) => ({
		status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]),
		body: answer.slice(answer.indexOf('\r\n\r\n') + 4)
	}));
}

/** Two dog runs of the IN_PROGRESS competition, found by links (with `headers`). */
async function twoDogRuns(
	s: Started,
	headers: Record<string, string> = {}
): Promise<[DogRunJson, DogRunJson]> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`, { headers });
	const runs = await call<RunList>(
		list.body._embedded!.competitions[0]!._links.competitionRuns.href,
		{ headers }
	);
	const run = runs.body._embedded!.competitionRuns[0]!;
	const dogs = (await call<DogRunList>(run._links.dogRuns.href, { headers })).body._embedded!
		.dogRuns;
	return [dogs[0]!, dogs[1]!];
}

/**
 * Makes the transaction of a write fail where `fails` says (its statement and parameters), after
 * letting every other request go as far as it can: what the failure rolls back is then the
 * failing request's alone, or not.
 */
function failWrites(
	store: Store,
	fails: (text: string, params?: Record<string, unknown>) => boolean
) {
	const write = store.write.bind(store);
	const wrap = (sql: Sql): Sql => ({
		all: (text, params) => sql.all(text, params),
		run: (text, params) => sql.run(text, params),
		async get<T>(text: string, params?: Parameters<Sql['get']>[1]): Promise<T | undefined> {
			if (fails(text, params)) {
				for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
				throw new Error('injected failure');
			}
			return sql.get<T>(text, params);
		}
	});
	(store as { write: Store['write'] }).write = (fn) => write((sql) => fn(wrap(sql)));
}

describe('requests that arrive together', () => {
	it('answers pipelined requests on one connection as if sent one after the other: a GET after a PUT sees it', async () => {
		// RFC 9112 §9.3.2: a server may work on pipelined requests in parallel only if all are safe.
		const s = await start();
		const [x] = await twoDogRuns(s);
		const path = new URL(x._links.self.href).pathname;
		const faults = x.faults === 15 ? 20 : 15;
		const answers = await pipelinedAnswers(s, [
			{
				method: 'PUT',
				path,
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ faults })
			},
			{ method: 'GET', path }
		]);
		expect(answers.map((a) => a.status)).toEqual([200, 200]);
		expect((JSON.parse(answers[1]!.body) as DogRunJson).faults).toBe(faults);
	});

	it('refuses one of two pipelined revocations that would leave no secretary (409)', async () => {
		const s = await start({ auth: 'required' });
		const a = await joined(s, 'secretary');
		const b = await joined(s, 'secretary');
		const statuses = await pipelined(s, [
			{ method: 'DELETE', path: `/api/v1/devices/${b.id}`, headers: bearer(a.credential) },
			{ method: 'DELETE', path: `/api/v1/devices/${a.id}`, headers: bearer(a.credential) }
		]);
		expect(statuses).toEqual([204, 409]);
		const mine = await call<{ revokedAt: string | null }>(`${s.svc.url}api/v1/devices/${a.id}`, {
			headers: bearer(a.credential)
		});
		expect(mine.status).toBe(200);
		expect(mine.body.revokedAt).toBeNull();
	});

	it("rolls back a failed PUT alone: another's PUT in the same step stays applied", async () => {
		const s = await start();
		const [x, y] = await twoDogRuns(s);
		const path = (d: DogRunJson) => new URL(d._links.self.href).pathname;
		// x's put_log row cannot be written: its change rolls back.
		failWrites(
			s.svc.store!,
			(text, params) => text.startsWith('INSERT INTO put_log') && params?.resourceId === x.id
		);
		const json = { 'Content-Type': 'application/json' };
		const statuses = await pipelined(s, [
			{ method: 'PUT', path: path(x), headers: json, body: '{"faults":15}' },
			{ method: 'PUT', path: path(y), headers: json, body: '{"faults":25}' }
		]);
		expect(statuses).toEqual([500, 200]);
		expect((await call<DogRunJson>(x._links.self.href)).body.faults).toBe(x.faults);
		expect((await call<DogRunJson>(y._links.self.href)).body.faults).toBe(25);
		const logged = (id: number) =>
			readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: id }).map((e) => e.status);
		expect(logged(x.id)).toEqual([500]);
		expect(logged(y.id)).toEqual([200]);
	});
});

describe('a PUT whose transaction fails after its put_log row was written', () => {
	it('is logged with its 500, and nothing of it is stored', async () => {
		const s = await start();
		const [x] = await twoDogRuns(s);
		// The change and its row are written, then the transaction fails (as a failed COMMIT, a
		// lock or statement timeout, or a full NOTIFY queue would): both are rolled back.
		const store = s.svc.store!;
		const write = store.write.bind(store);
		(store as { write: Store['write'] }).write = (fn) =>
			write(async (sql) => {
				await fn(sql);
				throw new Error('injected failure after the change');
			});
		const answer = await put(x._links.self.href, { faults: 15 });
		expect(answer.status).toBe(500);
		(store as { write: Store['write'] }).write = write;
		expect((await call<DogRunJson>(x._links.self.href)).body.faults).toBe(x.faults);
		const log = readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: x.id });
		expect(log).toMatchObject([{ status: 500, requestBody: '{"faults":15}' }]);
	});
});

describe('a write in flight when its device is revoked', () => {
	it('is refused with the 401 of a revoked credential, and nothing is stored', async () => {
		const s = await start({ auth: 'required' });
		const secretary = await joined(s, 'secretary');
		const steward = await joined(s, 'steward');
		const [x] = await twoDogRuns(s, bearer(secretary.credential));
		// Resolves once the steward's PUT has been identified (its credential looked up).
		const sql = s.svc.store!.sql;
		const get = sql.get.bind(sql);
		let identified!: () => void;
		const stewardIdentified = new Promise<void>((r) => (identified = r));
		const hash = createHash('sha256').update(steward.credential).digest('hex');
		sql.get = async <T>(text: string, params?: Parameters<Sql['get']>[1]) => {
			const row = await get<T>(text, params);
			if (params?.hash === hash) identified();
			return row;
		};
		const body = '{"faults":15}';
		const socket = connect(s.svc.port, '127.0.0.1');
		let answer = '';
		socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
		const closed = new Promise((r) => socket.once('close', r));
		await new Promise((r) => socket.once('connect', r));
		socket.write(
			[
				`PUT ${new URL(x._links.self.href).pathname} HTTP/1.1`,
				`Host: ${new URL(s.svc.url).host}`,
				`Authorization: Bearer ${steward.credential}`,
				'Content-Type: application/json',
				`Content-Length: ${body.length}`,
				'Connection: close',
				'',
				body.slice(0, 5)
			].join('\r\n')
		);
		await stewardIdentified;
		sql.get = get;
		const revoke = await call(`${s.svc.url}api/v1/devices/${steward.id}`, {
			method: 'DELETE',
			headers: bearer(secretary.credential)
		});
		expect(revoke.status).toBe(204);
		socket.write(body.slice(5));
		await closed;
		expect(answer).toMatch(/^HTTP\/1\.1 401 /);
		expect(answer).toContain('"code":"credential-revoked"');
		const now = await call<DogRunJson>(x._links.self.href, {
			headers: bearer(secretary.credential)
		});
		expect(now.body.faults).toBe(x.faults);
		const log = readPutLog(s.svc.db!, { resourceKind: 'dogRun', resourceId: x.id });
		expect(log.map((e) => [e.status, e.device])).toEqual([[401, String(steward.id)]]);
	});
});

describe('results of one run recorded at the same time', () => {
	it("answer and push each the run's progress as of its commit, the last one exact", async () => {
		const s = await start();
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
		const competition = list.body._embedded!.competitions[0]!;
		const runs = await call<RunList>(`${competition._links.competitionRuns.href}?size=100`);
		const run = runs.body._embedded!.competitionRuns.find((r) => r.progress === 0)!;
		const all = (await call<DogRunList>(`${run._links.dogRuns.href}?size=2000`)).body._embedded!
			.dogRuns;
		const open = all.filter((d) => d.time === null && !d.disqualified && !d.absence);
		const dogs = open.slice(0, 12);
		const done0 = all.length - open.length;
		const stream = await openSse(`${s.svc.url}api/v1/competitions/${competition.id}/changes`);
		expect((await stream.nextEvent())!.event).toBe('ready');
		const answers = await Promise.all(
			dogs.map((d) => put<DogRunJson>(d._links.self.href, { time: 40.5 }))
		);
		expect(answers.map((a) => a.status)).toEqual(dogs.map(() => 200));
		const events: DogRunJson[] = [];
		for (const _ of dogs) events.push(parseJson<DogRunJson>((await stream.nextEvent())!.data));
		stream.close();
		// In commit order, the k-th result sees k more finished dogs.
		const expected = dogs.map((_, k) => Math.floor(((done0 + k + 1) * 100) / all.length));
		const shown = answers.map((a) => a.body.competitionRun.progress).sort((x, y) => x - y);
		expect(shown).toEqual(expected);
		expect(events.map((e) => e.competitionRun.progress)).toEqual(expected);
		const now = await call<RunJson>(run._links.self.href);
		expect(now.body.progress).toBe(expected.at(-1));
	});
});

describe('the read budget under concurrent reads', () => {
	it('answers no more than the burst (and one page) to a client reading many pages at once', async () => {
		// A clock that stands still: the bucket is full after finding the page, then never refills.
		let clock = 0;
		const s = await start({ readBudget: { perSecond: 10, burst: 50, now: () => clock } });
		const [x] = await twoDogRuns(s);
		clock = 60_000;
		const page = `${x._links.competitionRun.href}/dogRuns?size=2000`;
		const answers = await Promise.all(Array.from({ length: 20 }, () => call<DogRunList>(page)));
		const served = answers.filter((a) => a.status === 200);
		expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
		const items = served.map((a) => a.body._embedded!.dogRuns.length);
		// Every read is admitted only while the bucket is not empty; the last one may overdraw it.
		expect(items.reduce((n, k) => n + k, 0)).toBeLessThanOrEqual(50 + Math.max(...items));
	});
});
