// The service's command (`tsx server/main.ts`, `npm run serve`): starts the Competition Results
// Service from its arguments (cli-args.ts), says where it answers and how phones join, and stops
// gracefully on the first SIGINT or SIGTERM.
import { networkInterfaces } from 'node:os';
import { createService, type Service, type ServiceOptions } from './app.ts';
import { TRUST_PATH } from './tls/trust.ts';
import { isLoopbackHost, joinUrl } from './auth/auth.ts';
import { parseArgs, USAGE } from './cli-args.ts';
import { describeFaults } from './http/faults.ts';
import { formatSeedSummary } from './seed/seed.ts';
import { terminalQr } from './devices/terminal-qr.ts';
import { describeSource } from './timer/timer-source.ts';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '::1']);

/** `scheme://host[:port]`, the port left out where it is the scheme's own. */
function originOf(scheme: 'http' | 'https', address: string, port: number): string {
	const host = address.includes(':') ? `[${address}]` : address;
	const own = (scheme === 'https' && port === 443) || (scheme === 'http' && port === 80);
	return own ? `${scheme}://${host}` : `${scheme}://${host}:${port}`;
}

/**
 * The origins phones reach the service on: with HTTPS, each name and address the certificate
 * holds that is not loopback; else each non-loopback address it listens on.
 */
function networkOrigins(service: Service, host: string, port: number): string[] {
	if (service.tls) {
		return service.tls.covered
			.filter((name) => !LOOPBACK_NAMES.has(name))
			.map((name) => originOf('https', name, port));
	}
	const origin = (address: string): string => originOf('http', address, port);
	if (host === '0.0.0.0' || host === '::' || host === '') {
		const out: string[] = [];
		for (const list of Object.values(networkInterfaces())) {
			for (const a of list ?? []) {
				if (a.family === 'IPv4' && !a.internal) out.push(origin(a.address));
			}
		}
		return out;
	}
	return isLoopbackHost(host) ? [] : [origin(host)];
}

/**
 * Says who may write. With auth required: a single-use join link for the secretary's device,
 * valid 24 h, on each network address (or the local one when there is none), with a QR code.
 */
function printAuth(service: Service, opts: ServiceOptions, origins: string[]): void {
	if (service.authMode === null) {
		console.log('  auth: by the upstream (Authorization is forwarded to it)');
		return;
	}
	if (service.authMode === 'open') {
		console.log('  auth: open, anyone who reaches the service may write (--auth required)');
		return;
	}
	console.log(
		opts.openReads
			? '  auth: required for writes (devices join by link); reads are open (--open-reads)'
			: '  auth: required (devices join by link; reads too, unless --open-reads)'
	);
	const link = service.createJoinLink({ role: 'secretary', uses: 1, hours: 24 });
	const where = origins.length > 0 ? origins : [new URL(service.url).origin];
	console.log('');
	console.log(
		`Join the ring secretary's device with this link or QR code (one device, valid 24 h${where.length > 1 ? ', any of these addresses' : ''}):`
	);
	for (const origin of where) {
		const url = joinUrl(origin, link.token);
		console.log(`  ${url}`);
		console.log(terminalQr(url, process.stdout.isTTY === true));
	}
	if (!opts.appDir) {
		console.log('  (the link opens the app: serve it with --app build, as npm start does)');
	}
	console.log(
		"Then make a join link for each ring's stewards (and for viewers) on the secretary's Devices screen."
	);
	console.log('');
}

/**
 * Says how phones come to trust the HTTPS address, or, on a network address without it, what
 * plain HTTP costs them.
 */
function printTls(service: Service, origins: string[]): void {
	const tls = service.tls;
	if (!tls) {
		if (origins.length > 0) {
			console.log(
				'  plain HTTP: phones can use the app only while they reach this laptop (no install, no\n' +
					'  offline reload); for that, start with --tls local or your own certificate\n' +
					'  (README, "HTTPS at the venue")'
			);
		}
		return;
	}
	if (tls.mode === 'files') {
		console.log(
			`  HTTPS: your certificate for ${tls.covered.join(', ')}, valid until ${tls.validTo.slice(0, 10)}`
		);
		console.log("  (the Wi-Fi's DNS must answer each name with this laptop's address)");
		return;
	}
	const ca = tls.ca;
	if (!ca || !tls.local) return;
	console.log(`  HTTPS: the event's own certificate authority "${ca.name}"`);
	console.log(`    SHA-256 ${ca.fingerprint}`);
	console.log(
		`    ${tls.local.files.ca} (its key ${tls.local.files.caKey} never leaves this laptop)`
	);
	if (tls.local.madeCa) console.log('    made now: every phone trusts it once, on the trust page');
	const plainPort = service.httpPort ?? service.port;
	const pages = origins.map((o) => {
		const u = new URL(o);
		u.protocol = 'http:';
		u.port = plainPort === 80 ? '' : String(plainPort);
		return `${u.origin}${TRUST_PATH}`;
	});
	if (pages.length === 0) return;
	console.log('');
	console.log(
		'Each phone trusts this event once (Android, iPhone, Firefox): open this page or scan its code'
	);
	for (const page of pages) {
		console.log(`  ${page}`);
		console.log(terminalQr(page, process.stdout.isTTY === true));
	}
}

async function main(): Promise<void> {
	const opts = parseArgs(process.argv.slice(2), process.env);
	if (opts.help) {
		console.log(USAGE);
		return;
	}
	const service = await createService(opts);
	if (service.seeded) console.log(formatSeedSummary(service.seeded));
	console.log(`Ringside is running at ${service.url}`);
	const origins = networkOrigins(service, opts.host ?? '127.0.0.1', service.port);
	for (const origin of origins) console.log(`  on the network: ${origin}/`);
	printTls(service, origins);
	if (opts.allowHosts?.length)
		console.log(`  also serving host names: ${opts.allowHosts.join(', ')}`);
	if (opts.upstream) console.log(`  proxying /api/* to ${opts.upstream}`);
	else {
		if (opts.mirror) {
			console.log(`  mirroring ${opts.mirror}: changes are published there, its changes come here`);
		}
		console.log(`  database: ${service.store?.where ?? ''}`);
		console.log(
			opts.push === false
				? '  push channel: off (--no-push)'
				: "  push channel: on (competitions link 'changes', Server-Sent Events)"
		);
	}
	for (const t of service.timerStatus()) {
		console.log(
			`  timer: ${describeSource(t.spec)} for ring ${t.ringId} of competition ${t.competitionId} (the ring links 'timer')`
		);
	}
	if (opts.faults) console.log(`  injecting faults on /api: ${describeFaults(opts.faults)}`);
	printAuth(service, opts, origins);

	// The first SIGTERM or SIGINT stops gracefully (http-server.ts: no new connections, what is in
	// flight finishes, late requests get 503, then the database closes); a second one at once.
	let stopping = false;
	const stop = (signal: string): void => {
		if (stopping) {
			console.error(`Received ${signal} again, exiting now`);
			process.exit(1);
		}
		stopping = true;
		console.log(`Received ${signal}, shutting down (again to exit at once)`);
		service.close().then(
			() => process.exit(0),
			(e: unknown) => {
				console.error(e);
				process.exit(1);
			}
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
	console.error(e instanceof Error ? e.message : e);
	process.exit(1);
});
