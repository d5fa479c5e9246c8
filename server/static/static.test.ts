// The built app while it is rebuilt beside the running service (`vite build` empties the folder
// and writes it again): the phones are never served a blank app, and get the new build once it
// is complete.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServices } from '../test-support.ts';

const start = useServices();

/** Writes one build of a tiny app: index.html naming its chunk, the chunk, a worker. */
function writeBuild(
	dir: string,
	version: string,
	parts: { chunk?: boolean; worker?: boolean } = {}
) {
	mkdirSync(join(dir, '_app', 'immutable'), { recursive: true });
	writeFileSync(
		join(dir, 'index.html'),
		`<!doctype html><title>${version}</title><script type="module" src="/_app/immutable/start-${version}.js"></script>`
	);
	if (parts.chunk !== false) {
		writeFileSync(join(dir, '_app', 'immutable', `start-${version}.js`), `/* ${version} */`);
	}
	if (parts.worker !== false) writeFileSync(join(dir, 'service-worker.js'), `// ${version}`);
}

/** Empties the folder as a build does first (the folder itself stays). */
function empty(dir: string) {
	rmSync(join(dir, '_app'), { recursive: true, force: true });
	rmSync(join(dir, 'index.html'), { force: true });
	rmSync(join(dir, 'service-worker.js'), { force: true });
}

async function get(url: string): Promise<{ status: number; text: string }> {
	const res = await fetch(url);
	return { status: res.status, text: await res.text() };
}

describe('the app folder rebuilt while the service runs', () => {
	it('serves the old build whole until the new one is complete, then the new one, and old chunks still', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'ringside-build-'));
		writeBuild(dir, 'v1');
		const s = await start({ appDir: dir });
		const url = s.svc.url;
		expect((await get(`${url}runs/3`)).text).toContain('<title>v1</title>');

		// The build has emptied the folder: the phones still get the whole old app.
		empty(dir);
		await new Promise((r) => setTimeout(r, 1_200));
		expect(await get(`${url}`)).toMatchObject({ status: 200, text: expect.stringContaining('v1') });
		expect(await get(`${url}_app/immutable/start-v1.js`)).toMatchObject({ status: 200 });
		expect(await get(`${url}service-worker.js`)).toMatchObject({ status: 200, text: '// v1' });

		// Half written: index.html names a chunk not there yet. Still the old app.
		writeBuild(dir, 'v2', { chunk: false, worker: false });
		await new Promise((r) => setTimeout(r, 2_200));
		expect((await get(`${url}`)).text).toContain('v1');
		expect((await get(`${url}_app/immutable/start-v1.js`)).status).toBe(200);

		// Done: the new app within a couple of looks, its new chunk too, and the old chunk for a
		// page loaded before.
		writeBuild(dir, 'v2');
		await expect
			.poll(async () => (await get(`${url}`)).text, { timeout: 5_000, interval: 200 })
			.toContain('<title>v2</title>');
		expect(await get(`${url}_app/immutable/start-v2.js`)).toMatchObject({
			status: 200,
			text: '/* v2 */'
		});
		expect(await get(`${url}service-worker.js`)).toMatchObject({ status: 200, text: '// v2' });
		expect(await get(`${url}_app/immutable/start-v1.js`)).toMatchObject({
			status: 200,
			text: '/* v1 */'
		});
		expect((await get(`${url}_app/immutable/nothing.js`)).status).toBe(404);
	});

	it('takes a complete new build at once when a phone asks for one of its files', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'ringside-build-'));
		writeBuild(dir, 'v1');
		const s = await start({ appDir: dir });
		empty(dir);
		writeBuild(dir, 'v2');
		// A page that already has the new index.html (from a look in between) asks for its chunk.
		expect(await get(`${s.svc.url}_app/immutable/start-v2.js`)).toMatchObject({
			status: 200,
			text: '/* v2 */'
		});
		expect((await get(s.svc.url)).text).toContain('v2');
	});

	it('keeps serving the old build when the new one has a link out of the folder', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'ringside-build-'));
		writeBuild(dir, 'v1');
		const errors: string[] = [];
		const s = await start({ appDir: dir, logError: (line) => errors.push(line) });
		const outside = mkdtempSync(join(tmpdir(), 'ringside-secret-'));
		writeFileSync(join(outside, 'secret.txt'), 'secret');
		const { symlinkSync } = await import('node:fs');
		empty(dir);
		writeBuild(dir, 'v2');
		symlinkSync(join(outside, 'secret.txt'), join(dir, 'leak.txt'));
		await new Promise((r) => setTimeout(r, 2_500));
		expect((await get(s.svc.url)).text).toContain('v1');
		expect((await get(`${s.svc.url}leak.txt`)).status).toBe(404);
		expect(errors.some((l) => /symlink/.test(l))).toBe(true);
	});
});

describe('a served file whose copy goes while it is read', () => {
	it('never crashes the service: a request under way when the handler closes (or retires its copy) is answered whole', async () => {
		const { createServer } = await import('node:http');
		const { createStaticHandler } = await import('./static.ts');
		const dir = mkdtempSync(join(tmpdir(), 'ringside-build-'));
		writeBuild(dir, 'v1');
		// A file large enough to be read in several chunks.
		writeFileSync(join(dir, '_app', 'immutable', 'big.css'), 'x'.repeat(4 * 1024 * 1024));
		const app = createStaticHandler(dir);
		const server = createServer((req, res) => {
			app.handle(req, res, () => res.writeHead(404).end());
			// The service closes (or a second new build retires this copy) while the file opens.
			app.close();
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		const port = (server.address() as { port: number }).port;
		const uncaught: unknown[] = [];
		const onUncaught = (e: unknown) => uncaught.push(e);
		process.on('uncaughtException', onUncaught);
		try {
			const res = await fetch(`http://127.0.0.1:${port}/_app/immutable/big.css`);
			expect(res.status).toBe(200);
			expect((await res.text()).length).toBe(4 * 1024 * 1024);
			await new Promise((r) => setTimeout(r, 100));
			expect(uncaught).toEqual([]);
		} finally {
			process.off('uncaughtException', onUncaught);
			await new Promise((r) => server.close(r));
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
