// Several instances of the service in separate processes (`server/main.ts`, as deployed) on one
// PostgreSQL database, behind a real reverse proxy (Debian's nginx) on loopback: what the
// multi-instance tests, the end-to-end spec of the topology and the spectators' bench run
// against. The proxy's configuration is the one docs/deployment.md ships (`nginxConfig`), with
// loopback ports and a temporary folder in place of the production names.
//
// Run by hand: `npx tsx scripts/topology.ts` starts a throw-away cluster, two instances and nginx,
// prints the proxy's address and keeps them until Ctrl-C.
//
// Long because starting a throw-away cluster, the instances and nginx, waiting for each and tearing
// them down in order on every path (also on a failed start) is one job that reads best in one file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
	chmodSync,
	chownSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './free-port.ts';
import { findNginx } from './nginx-bin.ts';
import { startCluster, type Cluster } from './pg-cluster.ts';

const ROOT = resolve(import.meta.dirname, '..');

export { findNginx };

export interface Instance {
	/** `http://127.0.0.1:<port>/` */
	url: string;
	port: number;
	child: ChildProcess;
	/** Everything it printed (stdout and stderr) so far. */
	output(): string;
	/** Sends `signal` and resolves with the exit code once it exited. */
	stop(signal?: NodeJS.Signals): Promise<number | null>;
	/** Resolves with the exit code once it exited (by itself or by a signal sent elsewhere). */
	exited: Promise<number | null>;
}

export interface InstanceOptions {
	databaseUrl: string;
	/** Port to listen on (default: a free one, chosen here so that a restart can keep it). */
	port?: number;
	/** Further arguments of `server/main.ts`. */
	args?: string[];
	/** Environment additions. */
	env?: Record<string, string>;
}

/** Starts `server/main.ts` in its own process; resolves once it listens. */
export async function startInstance(o: InstanceOptions): Promise<Instance> {
	const port = o.port ?? (await freePort());
	const args = ['--import', 'tsx', join(ROOT, 'server/main.ts')];
	const opts = [
		'--port',
		String(port),
		'--host',
		'127.0.0.1',
		'--db',
		o.databaseUrl,
		...(o.args ?? [])
	];
	// Through a shell that raises the open-files limit to the hard one: an instance holds one
	// descriptor per event stream (thousands of spectators).
	const child = spawn(
		'/bin/sh',
		[
			'-c',
			'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"',
			process.execPath,
			...args,
			...opts
		],
		{ cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...o.env } }
	);
	let out = '';
	child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
	child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
	const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
	await new Promise<void>((resolveStart, reject) => {
		const timer = setTimeout(() => reject(new Error(`no start within 60 s: ${out}`)), 60_000);
		const check = (): void => {
			if (/Ringside is running at http:\/\/\S+/.test(out)) {
				clearTimeout(timer);
				child.stdout?.off('data', check);
				resolveStart();
			}
		};
		child.stdout?.on('data', check);
		void exited.then((code) => {
			clearTimeout(timer);
			reject(new Error(`instance exited (${code}): ${out}`));
		});
	});
	return {
		url: `http://127.0.0.1:${port}/`,
		port,
		child,
		output: () => out,
		exited,
		async stop(signal = 'SIGTERM') {
			if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
			child.kill(signal);
			return exited;
		}
	};
}

export interface NginxSiteOptions {
	/** `host:port` of each instance. */
	upstreams: string[];
	/** What the proxy listens on, e.g. `127.0.0.1:8080` or `80`. */
	listen: string;
	/** The public name (`server_name`); none: any. */
	serverName?: string;
}

/**
 * The site of docs/deployment.md ("Behind a reverse proxy"), as Debian's nginx includes it from
 * /etc/nginx/conf.d/ inside its `http` block: round-robin over the instances with keep-alive
 * connections, HTTP/1.1 to them, the client's Host and scheme passed on (links are built on
 * them; a proxy in front that terminates TLS may have set them already), Server-Sent Events
 * unbuffered and kept open between heartbeats, and a request that an instance refuses while it
 * stops (503) or that cannot reach it tried on the next (nginx never retries a PUT it has sent).
 */
export function nginxSite(o: NginxSiteOptions): string {
	return [
		'map $http_x_forwarded_host $ringside_host { default $http_x_forwarded_host; "" $http_host; }',
		'map $http_x_forwarded_proto $ringside_proto { default $http_x_forwarded_proto; "" $scheme; }',
		'upstream ringside {',
		...o.upstreams.map((u) => `\tserver ${u};`),
		'\tkeepalive 64;',
		// Shorter than the instances' own keep-alive (5 s): nginx never sends a request on a
		// connection the instance is closing (a reset, a 502, the instance marked down).
		'\tkeepalive_timeout 4s;',
		'}',
		'server {',
		`\tlisten ${o.listen};`,
		...(o.serverName ? [`\tserver_name ${o.serverName};`] : []),
		'\tlocation / {',
		'\t\tproxy_pass http://ringside;',
		'\t\tproxy_http_version 1.1;',
		'\t\tproxy_set_header Connection "";',
		'\t\tproxy_set_header Host $http_host;',
		'\t\tproxy_set_header X-Forwarded-Proto $ringside_proto;',
		'\t\tproxy_set_header X-Forwarded-Host $ringside_host;',
		'\t\tproxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
		'\t\tproxy_buffering off;',
		'\t\tproxy_read_timeout 1h;',
		'\t\tproxy_next_upstream error timeout http_503;',
		'\t\tproxy_next_upstream_tries 2;',
		'\t}',
		'}',
		''
	].join('\n');
}

export interface NginxConfigOptions extends NginxSiteOptions {
	/** Extra lines of the `http` block (temporary folders of a test run). */
	httpExtra?: string[];
	/** Lines before the `http` block (pid, error log of a test run). */
	mainExtra?: string[];
	/** Worker processes (default 1); connections per worker (default 4096). */
	workers?: number;
	workerConnections?: number;
}

/** A whole nginx configuration around `nginxSite` (what the tests start nginx with). */
export function nginxConfig(o: NginxConfigOptions): string {
	const workers = o.workers ?? 1;
	const conns = o.workerConnections ?? 4096;
	const indent = (text: string): string[] =>
		text
			.trimEnd()
			.split('\n')
			.map((l) => `\t${l}`);
	return [
		...(o.mainExtra ?? []),
		`worker_processes ${workers};`,
		`worker_rlimit_nofile ${conns * 2 + 64};`,
		`events { worker_connections ${conns}; }`,
		'http {',
		...(o.httpExtra ?? []).map((l) => `\t${l}`),
		...indent(nginxSite(o)),
		'}',
		''
	].join('\n');
}

export interface Proxy {
	/** `http://127.0.0.1:<port>/` */
	url: string;
	port: number;
	/** The configuration it runs. */
	config: string;
	/** Its error log so far. */
	errors(): string;
	/** The pid of nginx's master process (its workers are its children); null before it wrote it. */
	masterPid(): number | null;
	stop(): Promise<void>;
}

/** The uid, gid and name to run as when root (nginx's workers and PostgreSQL drop to it). */
function unprivileged(): { user: string; uid: number; gid: number } | null {
	if (process.getuid?.() !== 0) return null;
	const user = process.env.RINGSIDE_PG_USER ?? 'nobody';
	const id = (flag: string): number =>
		Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
	return { user, uid: id('-u'), gid: id('-g') };
}

/**
 * Starts Debian's nginx from a temporary configuration on a loopback port, in the foreground of
 * a child process, as an unprivileged user when this runs as root. Throws when nginx is missing.
 */
export async function startNginx(
	upstreams: string[],
	o: { workers?: number; workerConnections?: number; listenOptions?: string } = {}
): Promise<Proxy> {
	const bin = findNginx();
	if (!bin) throw new Error('nginx is not installed; apt-get install nginx');
	const dir = mkdtempSync(join(tmpdir(), 'ringside-nginx-'));
	const as = unprivileged();
	for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
	const port = await freePort();
	const config = nginxConfig({
		upstreams,
		listen: `127.0.0.1:${port}${o.listenOptions ? ` ${o.listenOptions}` : ''}`,
		workers: o.workers,
		workerConnections: o.workerConnections,
		mainExtra: ['daemon off;', `pid ${dir}/nginx.pid;`, `error_log ${dir}/error.log warn;`],
		httpExtra: [
			'access_log off;',
			`client_body_temp_path ${dir}/body;`,
			`proxy_temp_path ${dir}/proxy;`,
			`fastcgi_temp_path ${dir}/fastcgi;`,
			`uwsgi_temp_path ${dir}/uwsgi;`,
			`scgi_temp_path ${dir}/scgi;`
		]
	});
	const file = join(dir, 'nginx.conf');
	writeFileSync(file, config);
	if (as) {
		for (const p of [
			dir,
			...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((s) => join(dir, s))
		])
			chownSync(p, as.uid, as.gid);
		chownSync(file, as.uid, as.gid);
		chmodSync(dir, 0o700);
	}
	const args = ['-e', join(dir, 'error.log'), '-p', dir, '-c', file];
	const child = as
		? spawn('runuser', ['-u', as.user, '--', bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
		: spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
	child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	// Up once it answers on its port (a 502 before the instances listen is an answer too).
	const deadline = Date.now() + 15_000;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${out}`);
		try {
			await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
			break;
		} catch {
			if (Date.now() > deadline) throw new Error(`nginx did not answer within 15 s: ${out}`);
			await new Promise((r) => setTimeout(r, 100));
		}
	}
	return {
		url: `http://127.0.0.1:${port}/`,
		port,
		config,
		errors: () => {
			try {
				return readFileSync(join(dir, 'error.log'), 'utf8');
			} catch {
				return '';
			}
		},
		masterPid: () => {
			try {
				return Number(readFileSync(join(dir, 'nginx.pid'), 'utf8').trim()) || null;
			} catch {
				return null;
			}
		},
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				// runuser passes the signal on; nginx's QUIT would wait for open streams.
				child.kill('SIGTERM');
				await exited;
			}
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

export interface Topology {
	cluster: Cluster | null;
	databaseUrl: string;
	instances: Instance[];
	proxy: Proxy;
	/** The proxy's address: what clients use. */
	url: string;
	/** Stops instance `i` (SIGTERM) and starts it again on the same port and arguments. */
	restart(i: number): Promise<Instance>;
	stop(): Promise<void>;
}

export interface TopologyOptions {
	/** A database to use (default: a new cluster, stopped with the topology). */
	databaseUrl?: string;
	/** Instances (default 2). */
	instances?: number;
	/** Arguments of every instance (`--seed small` …). */
	args?: string[];
	env?: Record<string, string>;
	workers?: number;
	workerConnections?: number;
	/** Added to nginx's `listen` (e.g. `reuseport`, to spread connections over its workers). */
	listenOptions?: string;
}

/**
 * A throw-away cluster (unless a database is given), the instances started one after another
 * (the first migrates and seeds, the others find it done) and nginx round-robin in front.
 */
export async function startTopology(o: TopologyOptions = {}): Promise<Topology> {
	const cluster = o.databaseUrl ? null : await startCluster({ durable: false });
	const instances: Instance[] = [];
	let proxy: Proxy | null = null;
	const stopAll = async (): Promise<void> => {
		await proxy?.stop();
		await Promise.all(instances.map((i) => i.stop('SIGTERM')));
		cluster?.stop();
	};
	try {
		const databaseUrl = o.databaseUrl ?? (await cluster!.createDatabase('ringside'));
		// The instances trust the proxy in front (nginx on 127.0.0.1), as docs/deployment.md
		// starts them: each client is the one its X-Forwarded-For names.
		const args = ['--trust-proxy', '127.0.0.1', ...(o.args ?? [])];
		const start = (port?: number): Promise<Instance> =>
			startInstance({ databaseUrl, args, env: o.env, ...(port ? { port } : {}) });
		for (let i = 0; i < (o.instances ?? 2); i++) instances.push(await start());
		proxy = await startNginx(
			instances.map((i) => `127.0.0.1:${i.port}`),
			{
				workers: o.workers,
				workerConnections: o.workerConnections,
				listenOptions: o.listenOptions
			}
		);
		return {
			cluster,
			databaseUrl,
			instances,
			proxy,
			url: proxy.url,
			async restart(i) {
				const old = instances[i];
				if (!old) throw new Error(`no instance ${i}`);
				await old.stop('SIGTERM');
				const next = await start(old.port);
				instances[i] = next;
				return next;
			},
			stop: stopAll
		};
	} catch (e) {
		await stopAll();
		throw e;
	}
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const t = await startTopology({ args: process.argv.slice(2) });
	console.log(`Two instances on ${t.databaseUrl} behind nginx at ${t.url} (Ctrl-C stops them)`);
	for (const i of t.instances) console.log(`  instance ${i.url} (pid ${i.child.pid})`);
	const stop = (): void => {
		void t.stop().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}
