import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Repository } from '../store/repository.ts';
import { useServices, type DogRunJson, type PagedList, type RunJson } from '../test-support.ts';

/**
 * A PUT reads its resource once before its body (404, a steward's ring, If-Match) and commits on
 * that read; it reads again only when another writer came first, and then checks If-Match again.
 */
const start = useServices();

afterEach(() => vi.restoreAllMocks());

async function json<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
	const answer = await fetch(url, { headers });
	expect(answer.status, url).toBe(200);
	return (await answer.json()) as T;
}

async function aDogRun(entry: string, headers: Record<string, string> = {}) {
	const competitions = await json<PagedList<{ _links: { competitionRuns: { href: string } } }>>(
		entry,
		headers
	);
	const competition = competitions._embedded!.competitions![0]!;
	const runs = await json<PagedList<RunJson>>(competition._links.competitionRuns.href, headers);
	const run = runs._embedded!.competitionRuns![0]!;
	const dogRuns = await json<PagedList<DogRunJson>>(run._links.dogRuns.href, headers);
	const dog = dogRuns._embedded!.dogRuns![0]!;
	const one = await fetch(dog._links.self.href, { headers });
	return { href: dog._links.self.href, etag: one.headers.get('etag')! };
}

async function joined(s: Awaited<ReturnType<typeof start>>, role: 'secretary' | 'steward') {
	const link = s.svc.createJoinLink({ role, uses: 1, hours: 1 });
	const answer = await fetch(`${s.svc.url}api/v1/devices/join`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ token: link.token })
	});
	expect(answer.status).toBe(201);
	const { credential } = (await answer.json()) as { credential: string };
	return { Authorization: `Bearer ${credential}` };
}

describe('a PUT of a result', () => {
	it('reads the dog run once before the change and once as changed, for a steward too', async () => {
		const s = await start({ auth: 'required', etag: true });
		const steward = await joined(s, 'steward');
		const { href, etag } = await aDogRun(s.entry, steward);
		const reads = vi.spyOn(Repository.prototype, 'dogRun');
		const answer = await fetch(href, {
			method: 'PUT',
			headers: { ...steward, 'Content-Type': 'application/json', 'If-Match': etag },
			body: JSON.stringify({ time: 38.63 })
		});
		expect(answer.status, await answer.clone().text()).toBe(200);
		expect(((await answer.json()) as DogRunJson).time).toBe(38.63);
		// Before: the ring check, If-Match and the change each read it (3), then the change's answer.
		expect(reads).toHaveBeenCalledTimes(2);
	});

	it('reads again and answers 412 when another writer changed it while its body was on its way', async () => {
		const s = await start({ etag: true });
		const { href, etag } = await aDogRun(s.entry);
		const { pathname } = new URL(href);
		const before = await json<DogRunJson>(href);
		const body = JSON.stringify({ faults: before.faults + 3 });
		const socket = connect(s.svc.port, '127.0.0.1');
		let raw = '';
		socket.on('data', (d: Buffer) => (raw += d.toString('latin1')));
		const closed = new Promise((r) => socket.once('close', r));
		// The headers: the service reads the dog run and checks If-Match, then waits for the body.
		const reads = vi.spyOn(Repository.prototype, 'dogRun');
		socket.write(
			`PUT ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
				`If-Match: ${etag}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
		);
		await vi.waitFor(() => expect(reads).toHaveBeenCalled());
		// Meanwhile another phone's PUT commits.
		const other = await fetch(href, {
			method: 'PUT',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ refusals: 1 })
		});
		expect(other.status).toBe(200);
		socket.write(body);
		await closed;
		expect(raw).toMatch(/^HTTP\/1\.1 412 /);
		const now = await json<DogRunJson>(href);
		expect(now).toMatchObject({ faults: before.faults, refusals: 1 });
	});

	it('answers a malformed body 400 before looking for the resource when nothing is checked first', async () => {
		const s = await start({ etag: true });
		const put = (path: string, headers: Record<string, string> = {}) =>
			fetch(`${s.svc.url}api/v1${path}`, {
				method: 'PUT',
				headers: { 'Content-Type': 'application/json', ...headers },
				body: '{"time": 38.6'
			});
		expect((await put('/dogRuns/99999')).status).toBe(400);
		// With If-Match the resource is looked for first, before the upload: 404.
		expect((await put('/dogRuns/99999', { 'If-Match': '"x"' })).status).toBe(404);
	});
});
