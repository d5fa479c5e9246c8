// Route 1 as the README tells it, against a real ACME server: the club's name gets its certificate
// by DNS-01 with lego (Debian's), from Pebble (Let's Encrypt's test server, Debian's) whose
// challenge DNS is pebble-challtestsrv; the service starts with lego's files, a phone trusting
// Pebble's root (as phones trust Let's Encrypt's) reaches it by the name, and a renewal copied over
// the files is taken while it runs. Project `acme` (vite.config.ts): needs pebble and lego.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createService, type Service } from '../app.ts';
import { tempDbFile } from '../test-support.ts';
import { makeCert } from './test-certs.ts';

const NAME = 'ring.club.test';
const dir = mkdtempSync(join(tmpdir(), 'ringside-acme-'));
const children: ChildProcess[] = [];
let directory = '';
let dnsPort = 0;
let managementPort = 0;
let pebbleManagement = '';
let apiCa = '';

async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise((resolve) => server.close(resolve));
	return port;
}

/** Starts a long-running tool; resolves once a line of its output matches `ready`. */
function startTool(
	command: string,
	args: string[],
	ready: RegExp,
	env: Record<string, string> = {}
): Promise<void> {
	const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: 'pipe' });
	children.push(child);
	return new Promise((resolve, reject) => {
		let output = '';
		const timer = setTimeout(
			() => reject(new Error(`${command} not ready in 20 s:\n${output}`)),
			20_000
		);
		const onData = (chunk: Buffer) => {
			output += chunk.toString();
			if (ready.test(output)) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`${command} exited (${code}):\n${output}`));
		});
	});
}

/** GET over HTTPS trusting `ca` only; `servername` as a phone asking for the name. */
function get(
	url: string,
	ca: string,
	servername?: string
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = httpsRequest(
			url,
			{
				ca,
				agent: false,
				...(servername
					? { servername, headers: { Host: `${servername}:${new URL(url).port}` } }
					: {})
			},
			(res) => {
				let body = '';
				res.setEncoding('utf8');
				res.on('data', (c: string) => (body += c));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
			}
		);
		req.on('error', reject);
		req.end();
	});
}

/** The serial number of the certificate the service shows for the name. */
function servedSerial(port: number, ca: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: '127.0.0.1', port, servername: NAME, ca }, () => {
			const serial = socket.getPeerX509Certificate()?.serialNumber ?? '';
			socket.end();
			resolve(serial);
		});
		socket.on('error', reject);
	});
}

/** lego, as the README runs it, with the exec DNS provider writing TXT records to challtestsrv. */
function lego(command: 'run' | 'renew', extra: string[] = []): void {
	try {
		legoOnce(command, extra);
	} catch (e) {
		const { stdout, stderr } = e as { stdout?: Buffer; stderr?: Buffer };
		throw new Error(`lego ${command}: ${String(e)}\n${stdout?.toString()}${stderr?.toString()}`, {
			cause: e
		});
	}
}

function legoOnce(command: 'run' | 'renew', extra: string[]): void {
	execFileSync(
		'lego',
		[
			'--server',
			directory,
			'--email',
			'secretary@club.test',
			'--accept-tos',
			'--dns',
			'exec',
			'--dns.resolvers',
			`127.0.0.1:${dnsPort}`,
			'--dns.disable-cp',
			'--domains',
			NAME,
			'--path',
			join(dir, 'lego'),
			command,
			...extra
		],
		{
			env: {
				...process.env,
				LEGO_CA_CERTIFICATES: apiCa,
				EXEC_PATH: join(dir, 'set-txt.mjs'),
				EXEC_POLLING_INTERVAL: '1',
				EXEC_PROPAGATION_TIMEOUT: '20'
			},
			stdio: ['ignore', 'pipe', 'pipe'],
			timeout: 60_000
		}
	);
}

beforeAll(async () => {
	// Pebble's own API over HTTPS with a certificate lego is told to trust.
	const api = makeCert(dir, ['localhost', '127.0.0.1'], 30, 'pebble-api');
	apiCa = api.cert;
	const [acmePort, mgmtPort, dns, challMgmt, http01, tlsAlpn] = await Promise.all(
		Array.from({ length: 6 }, freePort)
	);
	dnsPort = dns!;
	managementPort = challMgmt!;
	directory = `https://127.0.0.1:${acmePort}/dir`;
	pebbleManagement = `https://127.0.0.1:${mgmtPort}`;
	writeFileSync(
		join(dir, 'pebble.json'),
		JSON.stringify({
			pebble: {
				listenAddress: `127.0.0.1:${acmePort}`,
				managementListenAddress: `127.0.0.1:${mgmtPort}`,
				certificate: api.cert,
				privateKey: api.key,
				httpPort: http01,
				tlsPort: tlsAlpn,
				ocspResponderURL: '',
				externalAccountBindingRequired: false
			}
		})
	);
	// The exec provider's script: `present|cleanup <fqdn> <value>` → challtestsrv's management API.
	writeFileSync(
		join(dir, 'set-txt.mjs'),
		`#!/usr/bin/env node
const [action, host, value] = process.argv.slice(2);
const path = action === 'present' ? '/set-txt' : '/clear-txt';
const answer = await fetch('http://127.0.0.1:${managementPort}' + path, {
	method: 'POST',
	body: JSON.stringify(action === 'present' ? { host, value } : { host })
});
if (!answer.ok) { console.error(path, answer.status); process.exit(1); }
`
	);
	chmodSync(join(dir, 'set-txt.mjs'), 0o755);
	await startTool(
		'pebble-challtestsrv',
		[
			'-dns01',
			`127.0.0.1:${dnsPort}`,
			'-http01',
			'',
			'-https01',
			'',
			'-tlsalpn01',
			'',
			'-management',
			`127.0.0.1:${managementPort}`,
			'-defaultIPv6',
			''
		],
		/Answering A questions|management/i
	);
	await startTool(
		'pebble',
		['-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`],
		/ACME directory available|Listening on/i,
		{ PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' }
	);
}, 60_000);

afterAll(() => {
	for (const child of children) child.kill('SIGKILL');
});

let service: Service | undefined;
afterAll(async () => {
	await service?.close();
});

it('gets the club name its certificate by DNS-01 with lego, serves it, and takes a renewal while running', async () => {
	lego('run');
	const files = join(dir, 'lego', 'certificates');
	const chain = readFileSync(join(files, `${NAME}.crt`), 'utf8');
	// The chain, as certbot's fullchain.pem: the name's certificate, then its issuer.
	expect(chain.match(/BEGIN CERTIFICATE/g)?.length).toBeGreaterThanOrEqual(2);
	expect(new X509Certificate(chain).subjectAltName).toBe(`DNS:${NAME}`);

	// The phone trusts Pebble's root as a phone trusts Let's Encrypt's.
	const root = (await get(`${pebbleManagement}/roots/0`, readFileSync(apiCa, 'utf8'))).body;
	expect(root).toContain('BEGIN CERTIFICATE');

	// The README's step 2: copied where the service reads them; step 4: the start.
	const tlsDir = mkdtempSync(join(tmpdir(), 'ringside-acme-tls-'));
	const cert = join(tlsDir, 'fullchain.pem');
	const key = join(tlsDir, 'privkey.pem');
	copyFileSync(join(files, `${NAME}.crt`), cert);
	copyFileSync(join(files, `${NAME}.key`), key);
	service = await createService({
		port: 0,
		seed: 'small',
		quiet: true,
		dbFile: tempDbFile(),
		allowHosts: [NAME],
		// Phones by the name are off loopback: reads open, as for the spectators.
		openReads: true,
		tlsCert: cert,
		tlsKey: key
	});
	const port = service.port;
	const entry = await get(`https://127.0.0.1:${port}/api/v1/competitions`, root, NAME);
	expect(entry.status).toBe(200);
	expect(entry.body).toContain(`https://${NAME}:${port}/api/v1/competitions`);
	const first = await servedSerial(port, root);

	// Renewed before the event (lego renews within --days of the end), copied over the files.
	lego('renew', ['--days', '100000', '--no-random-sleep']);
	const renewed = new X509Certificate(readFileSync(join(files, `${NAME}.crt`)));
	expect(renewed.serialNumber).not.toBe(first);
	copyFileSync(join(files, `${NAME}.key`), key);
	copyFileSync(join(files, `${NAME}.crt`), cert);
	await expect
		.poll(() => servedSerial(port, root), { timeout: 10_000, interval: 250 })
		.toBe(renewed.serialNumber);
	expect((await get(`https://127.0.0.1:${port}/api/v1/competitions`, root, NAME)).status).toBe(200);
}, 120_000);
