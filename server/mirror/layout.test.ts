// Mirror mode against an upstream that lays out its URIs in its own way: a rewriting proxy in
// front of an embedded service serves the entry point where the interface says
// (`/api/v1/competitions`) and everything else under other paths (`/fed/events/1/classes`,
// `/fed/starts/7`, …), rewriting every link in its answers. Any other request to `/api/v1/…` is
// answered 404 and counted: the laptop must copy, publish and take changes down by links only.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { call, put, useServices, walk, type DogRunJson } from '../test-support.ts';
import { MIRROR_USER_AGENT } from './mirror-types.ts';

const start = useServices();
const servers: Server[] = [];
afterEach(async () => {
	while (servers.length) {
		const s = servers.pop()!;
		s.closeAllConnections();
		await new Promise((r) => s.close(r));
	}
});

/** The upstream's path segment → this layout's. */
const OURS: Record<string, string> = {
	competitions: 'events',
	runs: 'classes',
	competitionRuns: 'class',
	dogRuns: 'starts',
	nextDogRunsForRing: 'next'
};
const THEIRS = Object.fromEntries(Object.entries(OURS).map(([k, v]) => [v, k]));
const mapPath = (path: string, table: Record<string, string>): string =>
	path
		.split('/')
		.map((s) => table[s] ?? s)
		.join('/');

async function startLayoutProxy(target: string): Promise<{ url: string; guessed: string[] }> {
	const up = new URL(target);
	const guessed: string[] = [];
	const server = createServer((req, res) => {
		const url = req.url ?? '/';
		const [path, query] = url.split(/\?(.*)/s) as [string, string | undefined];
		let forward: string;
		if (path === '/api/v1/competitions') forward = url;
		else if (path.startsWith('/fed/')) {
			forward = `/api/v1/${mapPath(path.slice(5), THEIRS)}${query !== undefined ? `?${query}` : ''}`;
		} else {
			guessed.push(`${req.method} ${url}`);
			res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
			return;
		}
		const headers = { ...req.headers };
		delete headers['accept-encoding'];
		const out = request(
			{ hostname: up.hostname, port: up.port, method: req.method, path: forward, headers },
			(answer) => {
				const chunks: Buffer[] = [];
				answer.on('data', (c: Buffer) => chunks.push(c));
				answer.on('end', () => {
					// Every link of this origin to /api/v1/<path>: the path in this layout.
					const origin = `http://${req.headers.host}`;
					const body = Buffer.concat(chunks)
						.toString('utf8')
						.replace(
							new RegExp(`${origin.replace(/[.]/g, '\\.')}/api/v1/([^"?{]*)`, 'g'),
							(_m, p: string) =>
								p === 'competitions'
									? `${origin}/api/v1/competitions`
									: `${origin}/fed/${mapPath(p, OURS)}`
						);
					const h = { ...answer.headers };
					delete h['content-length'];
					delete h['transfer-encoding'];
					res.writeHead(answer.statusCode ?? 502, {
						...h,
						'content-length': Buffer.byteLength(body)
					});
					res.end(body);
				});
			}
		);
		out.on('error', () => res.writeHead(502).end());
		req.pipe(out);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	servers.push(server);
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, guessed };
}

describe('mirror mode, an upstream with its own URI layout', () => {
	it('copies, publishes and takes changes down by links only', async () => {
		const upstream = await start({ etag: true });
		const proxy = await startLayoutProxy(upstream.svc.url);
		// The layout is real: the proxy's first run lists dog runs under /fed/starts.
		const runs = await walk(`${proxy.url}/api/v1/competitions`, 'competitions');
		const runsHref = runs.items[0]!._links.competitionRuns.href;
		expect(runsHref).toMatch(/\/fed\/events\/1\/classes$/);
		const laptop = await start({ mirror: proxy.url, mirrorCompetitions: [1], mirrorPullMs: 100 });
		const first = (await walk(`${laptop.svc.url}api/v1/competitions/1/runs`, 'competitionRuns'))
			.items[0]!;
		const dogs = (await walk(first._links.dogRuns.href, 'dogRuns')).items as DogRunJson[];
		const [a, b] = dogs;
		expect((await put(`${laptop.svc.url}api/v1/dogRuns/${a!.id}`, { time: 38.21 })).status).toBe(
			200
		);
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${upstream.svc.url}api/v1/dogRuns/${a!.id}`)).body.time,
				{
					timeout: 5000
				}
			)
			.toBe(38.21);
		expect(
			(
				await put(
					`${upstream.svc.url}api/v1/dogRuns/${b!.id}`,
					{ faults: 20 },
					{ 'User-Agent': 'office' }
				)
			).status
		).toBe(200);
		await expect
			.poll(
				async () =>
					(await call<DogRunJson>(`${laptop.svc.url}api/v1/dogRuns/${b!.id}`)).body.faults,
				{
					timeout: 5000
				}
			)
			.toBe(20);
		const published = (await upstream.svc.readPutLog({})).filter(
			(r) => r.client === MIRROR_USER_AGENT
		);
		expect(published.map((r) => [r.status, Boolean(r.ifMatch)])).toEqual([[200, true]]);
		expect(proxy.guessed).toEqual([]);
	});
});
