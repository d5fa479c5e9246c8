// Security at an event (docs/service.md): the PUT log cannot fill the disk and is written with
// the change, writes stop cleanly when the disk is nearly full, the Host/Origin allow-list, the
// proxy's path and header checks, static serving, strong If-Match before the body, and the
// read budget per client.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, createServer, type RequestListener, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createService, readPutLog, type Service } from './app.ts';
import {
	call,
	parseJson,
	put,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunList,
	type Started
} from './test-support.ts';

const start = useServices();

/** The id of some dog run, read from the database (no HTTP read, which a budget would charge). */
function readPutLogFreeDog(s: Started): number {
	return (s.svc.db!.prepare('SELECT id FROM dog_run ORDER BY id LIMIT 1').get() as { id: number })
		.id;
}

async function aDogRun(s: Started, index = 0): Promise<DogRunJson> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const runs = await call<RunList>(
		list.body._embedded!.competitions[0]!._links.competitionRuns.href
	);
	const dogs = await call<DogRunList>(runs.body._embedded!.competitionRuns[0]!._links.dogRuns.href);
	return dogs.body._embedded!.dogRuns[index]!;
}

interface RawAnswer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
}

/** A request with headers fetch cannot set (Host). */
function raw(
	url: string,
	{
		method = 'GET',
		headers = {},
		body
	}: { method?: string; headers?: Record<string, string>; body?: string } = {}
): Promise<RawAnswer> {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		const req = request(
			{ hostname: u.hostname, port: u.port, path: u.pathname + u.search, method, headers },
			(res) => {
				let text = '';
				res.setEncoding('utf8');
				res.on('data', (c: string) => (text += c));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
			}
		);
		req.on('error', reject);
		req.end(body);
	});
}

function listen(server: Server): Promise<string> {
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () =>
			resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
		)
	);
}

describe('the PUT log', () => {
	it('keeps only status, path, size and the first 256 bytes of a rejected PUT', async () => {
		const s = await start();
		const dog = await aDogRun(s);
		const big = JSON.stringify({ faults: 'x', pad: 'p'.repeat(60_000) });
		const a = await put(dog._links.self.href, big);
		expect(a.status).toBe(400);
		const row = readPutLog(s.svc.db!).at(-1)!;
		expect(row.status).toBe(400);
		expect(row.path).toBe(new URL(dog._links.self.href).pathname);
		expect(row.bodyBytes).toBe(Buffer.byteLength(big));
		expect(Buffer.byteLength(row.requestBody ?? '')).toBeLessThanOrEqual(256);
		expect(big.startsWith(row.requestBody ?? '?')).toBe(true);
	});

	it('keeps an applied PUT whole, with the client address and User-Agent', async () => {
		const s = await start();
		const dog = await aDogRun(s);
		const a = await put(dog._links.self.href, { faults: 2 }, { 'User-Agent': 'steward-phone/1' });
		expect(a.status).toBe(200);
		const row = readPutLog(s.svc.db!).at(-1)!;
		expect(row).toMatchObject({
			status: 200,
			requestBody: '{"faults":2}',
			bodyBytes: 12,
			client: 'steward-phone/1',
			remoteAddress: '127.0.0.1',
			device: null,
			role: null
		});
	});

	it('keeps only the newest rows (putLogMaxRows)', async () => {
		const s = await start({ putLogMaxRows: 5 });
		const dog = await aDogRun(s);
		for (let i = 0; i < 8; i++) await put(dog._links.self.href, { faults: i });
		const rows = readPutLog(s.svc.db!);
		expect(rows.length).toBe(5);
		expect(rows.map((r) => r.requestBody)).toEqual([3, 4, 5, 6, 7].map((i) => `{"faults":${i}}`));
	});

	it('is written in the same transaction as the change: no log row, no change', async () => {
		const s = await start();
		const dog = await aDogRun(s);
		s.svc.db!.exec(
			`CREATE TRIGGER no_log BEFORE INSERT ON put_log BEGIN SELECT RAISE(ABORT, 'log refused'); END`
		);
		const a = await put(dog._links.self.href, { faults: dog.faults + 3 });
		expect(a.status).toBe(500);
		const after = await call<DogRunJson>(dog._links.self.href);
		expect(after.body.faults).toBe(dog.faults);
	});
});

describe('low disk space', () => {
	it('refuses writes with 507 and the error object, reads keep working', async () => {
		let free = 50 * 1024 * 1024;
		const s = await start({ minFreeBytes: 200 * 1024 * 1024, freeSpace: () => free });
		const dog = await aDogRun(s);
		const a = await put<ErrorJson>(dog._links.self.href, { faults: 1 });
		expect(a.status).toBe(507);
		expect(a.res.headers.get('content-type')).toBe('application/hal+json');
		expect(a.body).toMatchObject({ status: 507, error: 'Insufficient Storage' });
		expect(a.body.message).toMatch(/disk/i);
		expect((await call(dog._links.self.href)).status).toBe(200);
		free = 10 * 1024 * 1024 * 1024;
		expect((await put(dog._links.self.href, { faults: 1 })).status).toBe(200);
	});

	it('measures the database folder by default (a real disk has room)', async () => {
		const s = await start();
		const dog = await aDogRun(s);
		expect((await put(dog._links.self.href, { faults: 1 })).status).toBe(200);
	});
});

describe('Host and Origin allow-list', () => {
	it('answers 400 with the error object to a Host it does not serve (DNS rebinding)', async () => {
		const s = await start();
		const a = await raw(s.entry, { headers: { Host: 'evil.example:8080' } });
		expect(a.status).toBe(400);
		expect(a.headers['content-type']).toBe('application/hal+json');
		expect(parseJson<ErrorJson>(a.text)).toMatchObject({ status: 400, error: 'Bad Request' });
		const port = new URL(s.svc.url).port;
		for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', '127.0.0.1:9']) {
			expect((await raw(s.entry, { headers: { Host: host } })).status).toBe(200);
		}
		expect(
			(
				await raw(s.entry, {
					headers: { Host: `127.0.0.1:${port}`, 'X-Forwarded-Host': 'evil.example' }
				})
			).status
		).toBe(400);
	});

	it('serves the names given with allowHosts', async () => {
		const s = await start({ allowHosts: ['ringside.local'], auth: 'open' });
		expect((await raw(s.entry, { headers: { Host: 'ringside.local:4173' } })).status).toBe(200);
		expect((await raw(s.entry, { headers: { Host: 'other.local' } })).status).toBe(400);
	});

	it('refuses a PUT from another origin with 403, accepts its own origin and listed ones', async () => {
		const s = await start({ corsOrigins: ['http://app.example'] });
		const dog = await aDogRun(s);
		const own = new URL(s.svc.url).origin;
		for (const origin of ['http://evil.example', 'null', `${own}.evil.example`]) {
			const a = await put<ErrorJson>(dog._links.self.href, { faults: 1 }, { Origin: origin });
			expect(a.status).toBe(403);
			expect(a.body.status).toBe(403);
		}
		expect((await put(dog._links.self.href, { faults: 1 }, { Origin: own })).status).toBe(200);
		const listed = await put(dog._links.self.href, { faults: 2 }, { Origin: 'http://app.example' });
		expect(listed.status).toBe(200);
		expect(listed.res.headers.get('access-control-allow-origin')).toBe('http://app.example');
	});

	it("never reflects '*' or null for writes, still allows anonymous reads with '*'", async () => {
		const s = await start({ corsOrigins: ['*'] });
		const dog = await aDogRun(s);
		const read = await call(dog._links.self.href, { headers: { Origin: 'http://any.example' } });
		expect(read.status).toBe(200);
		expect(read.res.headers.get('access-control-allow-origin')).toBe('http://any.example');
		const nullRead = await call(dog._links.self.href, { headers: { Origin: 'null' } });
		expect(nullRead.res.headers.get('access-control-allow-origin')).toBeNull();
		const pre = await call(dog._links.self.href, {
			method: 'OPTIONS',
			headers: { Origin: 'http://any.example', 'Access-Control-Request-Method': 'PUT' }
		});
		expect(pre.status).toBe(403);
		const w = await put(dog._links.self.href, { faults: 1 }, { Origin: 'http://any.example' });
		expect(w.status).toBe(403);
		expect(w.res.headers.get('access-control-allow-origin')).toBeNull();
	});
});

describe('proxy mode', () => {
	async function withProxy(
		upstreamHandler: RequestListener | null,
		test: (
			proxy: Service,
			seen: { url?: string; headers?: Record<string, unknown> }
		) => Promise<void>,
		extra: { upstreamMaxBytes?: number } = {}
	): Promise<void> {
		const seen: { url?: string; headers?: Record<string, unknown> } = {};
		const fake = createServer((req, res) => {
			seen.url = req.url;
			seen.headers = req.headers;
			if (upstreamHandler) upstreamHandler(req, res);
			else {
				res.writeHead(200, {
					'Content-Type': 'application/hal+json',
					'Set-Cookie': 'session=1',
					'Keep-Alive': 'timeout=99',
					Connection: 'keep-alive, X-Hop',
					'X-Hop': '1',
					'X-Upstream': 'yes'
				});
				res.end('{}');
			}
		});
		const base = await listen(fake);
		const proxy = await createService({ port: 0, upstream: `${base}/base`, quiet: true, ...extra });
		try {
			await test(proxy, seen);
		} finally {
			await proxy.close();
			fake.closeAllConnections();
			fake.close();
		}
	}

	it('refuses dot segments (encoded or not), backslashes and encoded slashes', async () => {
		await withProxy(null, async (proxy, seen) => {
			const port = new URL(proxy.url).port;
			for (const path of [
				'/api/%2e%2e/%2e%2e/admin',
				'/api/v1/%2E%2E/%2e%2e/admin',
				'/api/v1/.%2e/admin',
				'/api/v1/%2e./admin',
				'/api/v1/../../admin',
				'/api/v1/./competitions',
				'/api/v1/..\\..\\admin',
				'/api/v1/%5c..%5cadmin',
				'/api/v1/competitions%2f..%2f..%2fadmin',
				'/api/admin',
				'/api/v1%2fx'
			]) {
				seen.url = undefined;
				const a = await rawPath(Number(port), 'GET', path);
				expect(a.status, path).toBe(400);
				expect(parseJson<ErrorJson>(a.body).status, path).toBe(400);
				expect(seen.url, path).toBeUndefined();
			}
			const ok = await call(`${proxy.url}api/v1/competitions?page=0`);
			expect(ok.status).toBe(200);
			expect(seen.url).toBe('/base/api/v1/competitions?page=0');
		});
	});

	it('forwards only GET, HEAD, PUT and OPTIONS (405 otherwise)', async () => {
		await withProxy(null, async (proxy, seen) => {
			for (const method of ['DELETE', 'POST', 'PATCH']) {
				seen.url = undefined;
				const a = await call<ErrorJson>(`${proxy.url}api/v1/dogRuns/1`, { method });
				expect(a.status, method).toBe(405);
				expect(a.res.headers.get('allow')).toBe('GET, HEAD, PUT, OPTIONS');
				expect(seen.url).toBeUndefined();
			}
		});
	});

	it('drops client X-Forwarded-*, hop-by-hop headers and Set-Cookie', async () => {
		await withProxy(null, async (proxy, seen) => {
			const a = await call(`${proxy.url}api/v1/competitions`, {
				headers: {
					'X-Forwarded-Host': 'evil.example',
					'X-Forwarded-Prefix': '/x',
					'X-Forwarded-Proto': 'https',
					'X-Forwarded-For': '6.6.6.6'
				}
			});
			expect(a.status).toBe(200);
			expect(seen.headers?.['x-forwarded-host']).toBe(new URL(proxy.url).host);
			expect(seen.headers?.['x-forwarded-proto']).toBe('http');
			expect(seen.headers?.['x-forwarded-prefix'] ?? '').toBe('');
			expect(seen.headers?.['x-forwarded-for']).toBe('127.0.0.1');
			expect(a.res.headers.get('set-cookie')).toBeNull();
			expect(a.res.headers.get('keep-alive')).not.toBe('timeout=99');
			expect(a.res.headers.get('x-hop')).toBeNull();
			expect(a.res.headers.get('x-upstream')).toBe('yes');
		});
	});

	it('answers 502 to an upstream body over the cap, without the upstream URL', async () => {
		await withProxy(
			(_req, res) => {
				res.writeHead(200, { 'Content-Type': 'application/hal+json' });
				res.end(`{"x":"${'a'.repeat(300_000)}"}`);
			},
			async (proxy) => {
				const a = await call<ErrorJson>(`${proxy.url}api/v1/competitions`);
				expect(a.status).toBe(502);
				expect(a.body.status).toBe(502);
				expect(a.text).not.toContain('/base');
			},
			{ upstreamMaxBytes: 100_000 }
		);
		await withProxy(
			(_req, res) => {
				res.writeHead(200, { 'Content-Type': 'application/hal+json' });
				res.write(`{"x":"`);
				for (let i = 0; i < 30; i++) res.write('a'.repeat(10_000));
				res.end('"}');
			},
			async (proxy) => {
				const a = await call<ErrorJson>(`${proxy.url}api/v1/competitions`);
				expect(a.status).toBe(502);
			},
			{ upstreamMaxBytes: 100_000 }
		);
	});

	it('does not show the upstream URL in 502 and 504 messages', async () => {
		const gone = createServer();
		const base = await listen(gone);
		await new Promise<void>((r) => gone.close(() => r()));
		const down = await createService({ port: 0, upstream: `${base}/secret-base`, quiet: true });
		try {
			const a = await call<ErrorJson>(`${down.url}api/v1/competitions`);
			expect(a.status).toBe(502);
			expect(a.text).not.toContain(base.replace('http://', ''));
			expect(a.text).not.toContain('secret-base');
		} finally {
			await down.close();
		}
	});
});

/** A request whose path is sent exactly as given (fetch and URL would normalise it). */
function rawPath(
	port: number,
	method: string,
	path: string
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const socket = connect(port, '127.0.0.1');
		let text = '';
		socket.on('data', (b: Buffer) => (text += b.toString('utf8')));
		socket.on('error', reject);
		socket.on('close', () => {
			const at = text.indexOf('\r\n\r\n');
			resolve({
				status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
				body: text.slice(at + 4)
			});
		});
		socket.end(
			`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`
		);
	});
}

describe('static serving', () => {
	function appDir(): string {
		const dir = mkdtempSync(join(tmpdir(), 'ringside-app-'));
		writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
		mkdirSync(join(dir, '_app'));
		writeFileSync(join(dir, '_app', 'a.js'), 'x');
		return dir;
	}

	it('sends X-Frame-Options, frame-ancestors and Referrer-Policy', async () => {
		const s = await start({ appDir: appDir() });
		for (const path of ['', 'index.html', 'some/page', '_app/a.js']) {
			const a = await call(`${s.svc.url}${path}`);
			expect(a.status, path).toBe(200);
			expect(a.res.headers.get('x-frame-options')).toBe('DENY');
			expect(a.res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
			expect(a.res.headers.get('referrer-policy')).toBe('no-referrer');
		}
		const api = await call(s.entry);
		expect(api.res.headers.get('referrer-policy')).toBe('no-referrer');
	});

	it('refuses an app folder with a symlink out of it, allows one inside', async () => {
		const outside = mkdtempSync(join(tmpdir(), 'ringside-secret-'));
		writeFileSync(join(outside, 'secret.txt'), 'secret');
		const inside = appDir();
		symlinkSync(join(inside, 'index.html'), join(inside, 'home.html'));
		const s = await start({ appDir: inside });
		expect((await call(`${s.svc.url}home.html`)).status).toBe(200);
		const leaky = appDir();
		symlinkSync(join(outside, 'secret.txt'), join(leaky, 'leak.txt'));
		await expect(start({ appDir: leaky })).rejects.toThrow(/symlink/i);
		const leakyDir = appDir();
		symlinkSync(outside, join(leakyDir, '_app', 'more'));
		await expect(start({ appDir: leakyDir })).rejects.toThrow(/symlink/i);
	});
});

describe('If-Match', () => {
	it('uses strong comparison: a W/ tag never matches (412)', async () => {
		const s = await start({ etag: true });
		const dog = await aDogRun(s);
		const tag = (await call(dog._links.self.href)).res.headers.get('etag')!;
		const weak = await put(dog._links.self.href, { faults: 1 }, { 'If-Match': `W/${tag}` });
		expect(weak.status).toBe(412);
		expect((await put(dog._links.self.href, { faults: 1 }, { 'If-Match': tag })).status).toBe(200);
	});

	it('is checked before the body is read', async () => {
		const s = await start({ etag: true });
		const dog = await aDogRun(s);
		const u = new URL(dog._links.self.href);
		const answer = await new Promise<string>((resolve, reject) => {
			const socket = connect(Number(u.port), '127.0.0.1');
			let text = '';
			socket.on('data', (b: Buffer) => {
				text += b.toString('utf8');
				if (text.includes('\r\n\r\n')) {
					socket.destroy();
					resolve(text);
				}
			});
			socket.on('error', reject);
			// Headers only: the declared body never comes.
			socket.write(
				`PUT ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n` +
					`If-Match: "dogRun-${dog.id}-999000000000000"\r\nContent-Length: 100\r\n\r\n`
			);
			setTimeout(() => resolve(text), 2000);
		});
		expect(answer).toMatch(/^HTTP\/1\.1 412/);
	});
});

describe('read budget per client', () => {
	it('answers 429 with Retry-After and the error object once a client is over budget', async () => {
		// Charged by the items each answer carried: one list of more than 3 runs uses it up.
		const s = await start({ readBudget: { burst: 3, perSecond: 1 } });
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
		const runsUrl = `${list.body._embedded!.competitions[0]!._links.competitionRuns.href.replace(/\{.*\}$/, '')}?size=2000`;
		const first = await call<RunList>(runsUrl);
		expect(first.status).toBe(200);
		expect(first.body.page.totalElements).toBeGreaterThan(3);
		const over = await call<ErrorJson>(runsUrl);
		expect(over.status).toBe(429);
		expect(Number(over.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		expect(over.body).toMatchObject({ status: 429, error: 'Too Many Requests' });
		expect((await call(s.entry)).status).toBe(429);
		// Writes are not held back by a client's reads.
		const dog = readPutLogFreeDog(s);
		expect((await put(`${s.svc.url}api/v1/dogRuns/${dog}`, { faults: 1 })).status).toBe(200);
	});

	it('holds the 429s of a client that keeps asking while refused, not its first, nor its writes', async () => {
		const s = await start({ readBudget: { burst: 3, perSecond: 1, holdMs: 1_000 } });
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
		const runsUrl = `${list.body._embedded!.competitions[0]!._links.competitionRuns.href.replace(/\{.*\}$/, '')}?size=2000`;
		expect((await call(runsUrl)).status).toBe(200);
		const timed = async (url: string) => {
			const t0 = performance.now();
			const answer = await call(url);
			return { status: answer.status, ms: performance.now() - t0 };
		};
		// Told to wait: answered at once.
		const first = await timed(s.entry);
		expect(first.status).toBe(429);
		expect(first.ms).toBeLessThan(900);
		// Asks again at once: its 429 comes after the pause; a write meanwhile is not held.
		const again = timed(s.entry);
		const dog = readPutLogFreeDog(s);
		const t0 = performance.now();
		expect((await put(`${s.svc.url}api/v1/dogRuns/${dog}`, { faults: 1 })).status).toBe(200);
		expect(performance.now() - t0).toBeLessThan(900);
		expect(await again).toMatchObject({ status: 429 });
		expect((await again).ms).toBeGreaterThanOrEqual(950);
	});

	it("keeps one client's normal polling well within the default budget", async () => {
		const s = await start();
		const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
		const runs = `${list.body._embedded!.competitions[0]!._links.competitionRuns.href}`;
		const runsUrl = `${runs.replace(/\{.*\}$/, '')}?size=2000`;
		// 10 polls of three full pages, back to back: more than the app reads in half a minute.
		for (let i = 0; i < 10; i++) {
			for (const u of [runsUrl, `${s.entry}?size=2000`, runsUrl]) {
				expect((await call(u)).status).toBe(200);
			}
		}
	});
});
