// The CLI: --help, start banner, clean shutdown on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempDbFile } from './test-support.ts';

const TSX = ['--import', 'tsx', 'server/main.ts'];

describe('CLI', () => {
	it('prints usage with --help', () => {
		const r = spawnSync(process.execPath, [...TSX, '--help'], { encoding: 'utf8' });
		expect(r.status).toBe(0);
		expect(r.stdout).toContain('--upstream <url>');
		expect(r.stdout).toContain('RINGSIDE_DB');
		expect(r.stdout).toContain('--fault-reset <rate>');
		expect(r.stdout).toContain('--no-push');
	}, 20000);

	it.each([
		[['--fault-503', '2'], '--fault-503 must be a number from 0 to 1'],
		[['--fault-reset', 'x'], '--fault-reset must be a number from 0 to 1'],
		[['--fault-delay', '300-0'], '--fault-delay must be'],
		[['--fault-seed', '1.5'], '--fault-seed must be an integer'],
		[['--trust-proxy', ','], '--trust-proxy needs an address or CIDR']
	])(
		'rejects bad fault option %j',
		(args, message) => {
			const r = spawnSync(process.execPath, [...TSX, ...args], { encoding: 'utf8' });
			expect(r.status).toBe(2);
			expect(r.stderr).toContain(message);
		},
		20000
	);

	it('rejects an unknown option', () => {
		const r = spawnSync(process.execPath, [...TSX, '--bogus'], { encoding: 'utf8' });
		expect(r.status).toBe(2);
		expect(r.stderr).toContain('Unknown option --bogus');
	}, 20000);

	it('starts, answers, and exits 0 on SIGTERM', async () => {
		const child = spawn(process.execPath, [...TSX, '--port', '0', '--seed', 'small', '--quiet'], {
			env: { ...process.env, RINGSIDE_DB: tempDbFile() },
			stdio: ['ignore', 'pipe', 'pipe']
		});
		let out = '';
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15000);
			child.stdout.on('data', (b: Buffer) => {
				out += b.toString();
				const m = /Ringside is running at (http:\/\/\S+)/.exec(out);
				if (m?.[1]) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
		});
		expect(out).toContain("Seeded 'small' data");
		const res = await fetch(`${url}api/v1/competitions`);
		expect(res.status).toBe(200);
		const code = await new Promise<number | null>((resolve) => {
			child.on('exit', (c) => resolve(c));
			child.kill('SIGTERM');
		});
		expect(code).toBe(0);
	}, 30000);

	it('turns the push channel off with --no-push', async () => {
		const child = spawn(
			process.execPath,
			[...TSX, '--port', '0', '--seed', 'small', '--quiet', '--no-push'],
			{ env: { ...process.env, RINGSIDE_DB: tempDbFile() }, stdio: ['ignore', 'pipe', 'pipe'] }
		);
		let out = '';
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15000);
			child.stdout.on('data', (b: Buffer) => {
				out += b.toString();
				const m = /Ringside is running at (http:\/\/\S+)[\s\S]*push channel/.exec(out);
				if (m?.[1]) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
		});
		expect(out).toContain('push channel: off');
		const list = (await (await fetch(`${url}api/v1/competitions`)).json()) as {
			_embedded: { competitions: { _links: Record<string, unknown> }[] };
		};
		for (const c of list._embedded.competitions) expect(c._links.changes).toBeUndefined();
		expect((await fetch(`${url}api/v1/competitions/1/changes`)).status).toBe(404);
		const code = await new Promise<number | null>((resolve) => {
			child.on('exit', (c) => resolve(c));
			child.kill('SIGTERM');
		});
		expect(code).toBe(0);
	}, 30000);

	it('injects faults from the command line', async () => {
		const child = spawn(
			process.execPath,
			[
				...TSX,
				'--port',
				'0',
				'--seed',
				'small',
				'--quiet',
				'--fault-503',
				'1',
				'--fault-delay',
				'0-5'
			],
			{ env: { ...process.env, RINGSIDE_DB: tempDbFile() }, stdio: ['ignore', 'pipe', 'pipe'] }
		);
		let out = '';
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15000);
			child.stdout.on('data', (b: Buffer) => {
				out += b.toString();
				const m = /Ringside is running at (http:\/\/\S+)[\s\S]*injecting faults/.exec(out);
				if (m?.[1] && out.includes('delay 0-5 ms')) {
					clearTimeout(timer);
					resolve(m[1]);
				}
			});
		});
		expect(out).toContain('injecting faults on /api: 503 100 %, delay 0-5 ms');
		const res = await fetch(`${url}api/v1/competitions`);
		expect(res.status).toBe(503);
		expect(res.headers.get('retry-after')).toBe('1');
		const code = await new Promise<number | null>((resolve) => {
			child.on('exit', (c) => resolve(c));
			child.kill('SIGTERM');
		});
		expect(code).toBe(0);
	}, 30000);
});
