// A throw-away PostgreSQL cluster for the tests and the bench: initdb in a temp folder, started
// on a free loopback port with trust authentication on 127.0.0.1 only, stopped and deleted at
// the end. PostgreSQL refuses to run as root: as root, the cluster runs as an unprivileged user
// (RINGSIDE_PG_USER, default `nobody`). Run by hand: `npx tsx scripts/pg-cluster.ts` prints a URL
// and keeps the cluster until Ctrl-C.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findPgBin } from './pg-bin.ts';
import { freePort } from './free-port.ts';

export { findPgBin };

export interface Cluster {
	/** postgres://postgres@127.0.0.1:<port>/postgres */
	url: string;
	port: number;
	/** A new empty database (optionally a copy of `template`); returns its URL. */
	createDatabase(name: string, template?: string): Promise<string>;
	/** The URL of database `name` on this cluster. */
	urlOf(name: string): string;
	/** Stops the server (pg_ctl stop) and deletes its folder. */
	stop(): void;
}

/** The uid and gid to run as when root (PostgreSQL will not). */
function unprivileged(): { user: string; uid: number; gid: number } | null {
	if (process.getuid?.() !== 0) return null;
	const user = process.env.RINGSIDE_PG_USER ?? 'nobody';
	const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
	const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
	return { user, uid, gid };
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Starts a cluster. `durable: false` (tests) turns fsync off; the bench keeps PostgreSQL's
 * defaults. Throws when no PostgreSQL is installed.
 */
export async function startCluster(o: { durable?: boolean } = {}): Promise<Cluster> {
	const bin = findPgBin();
	if (!bin) throw new Error('PostgreSQL is not installed (no initdb); apt-get install postgresql');
	const dir = mkdtempSync(join(tmpdir(), 'ringside-pg-'));
	const data = join(dir, 'data');
	const as = unprivileged();
	if (as) {
		chownSync(dir, as.uid, as.gid);
		chmodSync(dir, 0o700);
	}
	const run = (cmd: string, args: string[]): void => {
		const r = as
			? spawnSync('runuser', ['-u', as.user, '--', join(bin, cmd), ...args], { encoding: 'utf8' })
			: spawnSync(join(bin, cmd), args, { encoding: 'utf8' });
		if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
	};
	const port = await freePort();
	run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '-N']);
	const settings = [
		`-p ${port}`,
		`-k ${dir}`,
		"-c listen_addresses='127.0.0.1'",
		'-c max_connections=200',
		...(o.durable === false ? ['-c fsync=off', '-c synchronous_commit=off'] : [])
	];
	run('pg_ctl', ['-D', data, '-o', settings.join(' '), '-l', join(dir, 'log'), '-w', 'start']);
	const urlOf = (name: string): string => `postgres://postgres@127.0.0.1:${port}/${name}`;
	let stopped = false;
	return {
		url: urlOf('postgres'),
		port,
		urlOf,
		async createDatabase(name, template) {
			if (!NAME.test(name) || (template !== undefined && !NAME.test(template))) {
				throw new Error(`Not a database name: ${name}`);
			}
			const client = new pg.Client({ connectionString: urlOf('postgres') });
			await client.connect();
			try {
				// Names are checked above (identifiers cannot be parameters).
				const ddl = ['CREATE DATABASE', name, ...(template ? ['TEMPLATE', template] : [])];
				await client.query(ddl.join(' '));
			} finally {
				await client.end();
			}
			return urlOf(name);
		},
		stop() {
			if (stopped) return;
			stopped = true;
			try {
				run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		}
	};
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const cluster = await startCluster();
	console.log(`PostgreSQL is running at ${cluster.url} (Ctrl-C stops and deletes it)`);
	const stop = (): void => {
		cluster.stop();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
	// Nothing else keeps the process (and so the cluster's owner) alive.
	setInterval(() => {}, 1 << 30);
}
