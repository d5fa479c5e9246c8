// Two competitions of one weekend on the same rings: an upstream that lists one ring id in both
// (issue 32, defect 1). A proxy in front of the embedded upstream gives competition 2's rings
// (ids 3 and 4 in the small seed) competition 1's ids (1 and 2), wherever a ring is named.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { call, useServices } from '../test-support.ts';

const start = useServices();
const servers: Server[] = [];
afterEach(async () => {
	while (servers.length) {
		const s = servers.pop()!;
		s.closeAllConnections();
		await new Promise((r) => s.close(r));
	}
});

/** Competition 2's ring ids → competition 1's. */
const SHARED: Record<number, number> = { 3: 1, 4: 2 };

/** Every ring named in a JSON answer (a competition's `rings`, a run's `competitionRing`), remapped. */
function remapRings(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(remapRings);
	if (value === null || typeof value !== 'object') return value;
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(value)) {
		if (k === 'rings' && Array.isArray(v)) {
			out[k] = v.map((r: { id: number }) => ({ ...r, id: SHARED[r.id] ?? r.id }));
		} else if (k === 'competitionRing' && v && typeof v === 'object') {
			const r = v as { id: number };
			out[k] = { ...r, id: SHARED[r.id] ?? r.id };
		} else out[k] = remapRings(v);
	}
	return out;
}

async function startSharedRingsProxy(target: string): Promise<string> {
	const up = new URL(target);
	const server = createServer((req, res) => {
		const headers = { ...req.headers };
		delete headers['accept-encoding'];
		delete headers['if-none-match'];
		const out = request(
			{ hostname: up.hostname, port: up.port, method: req.method, path: req.url, headers },
			(answer) => {
				const chunks: Buffer[] = [];
				answer.on('data', (c: Buffer) => chunks.push(c));
				answer.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					const h = { ...answer.headers };
					delete h['content-length'];
					delete h['transfer-encoding'];
					delete h.etag;
					let body = text;
					if (/json/.test(String(answer.headers['content-type'])) && text !== '') {
						const origin = `http://${req.headers.host}`;
						body = JSON.stringify(
							remapRings(JSON.parse(text.replaceAll(target.replace(/\/$/, ''), origin)))
						);
					}
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
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

interface Ring {
	id: number;
	name: string;
	_links: { nextDogRuns: { href: string } };
}
interface Competition {
	id: number;
	rings: Ring[];
}

describe('mirror mode: rings shared by two competitions', () => {
	it('copies both competitions with their rings, and serves each one’s ring boards', async () => {
		const upstream = await start({ etag: true });
		const proxy = await startSharedRingsProxy(upstream.svc.url);
		// The upstream as the laptop sees it: both competitions on rings 1 and 2.
		const theirs = await call<Competition>(`${proxy}api/v1/competitions/2`);
		expect(theirs.body.rings.map((r) => r.id)).toEqual([1, 2]);
		const laptop = await start({ mirror: proxy, mirrorCompetitions: [1, 2], mirrorPullMs: 100 });
		for (const id of [1, 2]) {
			const competition = (await call<Competition>(`${laptop.svc.url}api/v1/competitions/${id}`))
				.body;
			const up = (await call<Competition>(`${proxy}api/v1/competitions/${id}`)).body;
			expect(
				competition.rings.map((r) => r.name),
				`competition ${id}'s rings`
			).toEqual(up.rings.map((r) => r.name));
			// Each ring's board opens, with the competition's own dog runs.
			for (const ring of competition.rings) {
				const board = await call<{
					_embedded?: { dogRuns?: { _links: { competitionRun: { href: string } } }[] };
				}>(ring._links.nextDogRuns.href);
				expect(board.status, `competition ${id}, ${ring.name}'s board`).toBe(200);
			}
			// Every run keeps its ring (by name), and it is one of this competition's.
			const runs = await call<{
				_embedded: { competitionRuns: { competitionRing: { id: number; name: string } }[] };
			}>(`${laptop.svc.url}api/v1/competitions/${id}/runs`);
			const upRuns = await call<{
				_embedded: { competitionRuns: { competitionRing: { name: string } }[] };
			}>(`${proxy}api/v1/competitions/${id}/runs`);
			const ours = runs.body._embedded.competitionRuns;
			expect(ours.map((r) => r.competitionRing.name)).toEqual(
				upRuns.body._embedded.competitionRuns.map((r) => r.competitionRing.name)
			);
			const ringIds = new Set(competition.rings.map((r) => r.id));
			for (const run of ours) expect(ringIds.has(run.competitionRing.id)).toBe(true);
		}
	});
});
