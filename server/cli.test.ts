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
	}, 20000);

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
});
