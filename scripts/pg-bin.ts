// Where PostgreSQL's server binaries are (no dependencies: vite.config.ts asks it at start).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The folder of initdb and pg_ctl: RINGSIDE_PG_BIN, Debian's newest, else the PATH; null: none. */
export function findPgBin(): string | null {
	const given = process.env.RINGSIDE_PG_BIN;
	if (given) return existsSync(join(given, 'initdb')) ? given : null;
	const debian = '/usr/lib/postgresql';
	if (existsSync(debian)) {
		const versions = readdirSync(debian)
			.filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
			.sort((a, b) => Number(b) - Number(a));
		if (versions[0]) return join(debian, versions[0], 'bin');
	}
	const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
	const path = which.stdout.trim();
	return which.status === 0 && path ? path.replace(/\/initdb$/, '') : null;
}
