// HTTPS for the service (README, "HTTPS at the venue"): which certificate, the names it must
// hold, and keeping it current while the service runs. Two sources:
//   files  `--tls-cert FILE --tls-key FILE`: the club's own name with a publicly trusted
//          certificate; read again when the files change (a renewal)
//   local  `--tls local`: the event's own CA beside the database (local-ca.ts); the server
//          certificate is issued again when the laptop's addresses change
import { hostname, networkInterfaces } from 'node:os';
import { dirname } from 'node:path';
import { isIP } from 'node:net';
import type { TlsContext } from '../http/http-server.ts';
import { checkCertFor, readCertPair, watchCertPair, type CertPair } from './cert-files.ts';
import { coversAll, ensureLocalTls, type LocalNames, type LocalTls } from './local-ca.ts';
import type { TrustCa } from './trust.ts';

export interface TlsOptions {
	/** `--tls local`: the event's own certificate authority. */
	tls?: 'local';
	/** `--tls-cert`: PEM, the server's certificate first, then its chain. */
	tlsCert?: string;
	/** `--tls-key`: the PEM private key of that certificate. */
	tlsKey?: string;
	/** Where `--tls local` keeps its CA and certificate (default: beside the SQLite file). */
	tlsDir?: string;
	/** `--http-port`: plain HTTP (redirects, the trust page) on this port too. */
	httpPort?: number;
}

/** Throws on TLS options that cannot work (before anything is opened). */
export function checkTlsOptions(o: TlsOptions & { upstream?: string }): void {
	if (o.tls !== undefined && o.tls !== 'local') {
		throw new Error(`tls must be 'local' (or give tlsCert and tlsKey), got '${String(o.tls)}'`);
	}
	if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) {
		throw new Error('give both tlsCert and tlsKey (--tls-cert FILE --tls-key FILE)');
	}
	if (o.tls && o.tlsCert) {
		throw new Error(
			"--tls local and --tls-cert exclude each other: the event's CA or your own certificate"
		);
	}
	if (o.httpPort !== undefined && !o.tls && !o.tlsCert) {
		throw new Error(
			'httpPort needs HTTPS (--tls local or --tls-cert): without it the port is plain HTTP already'
		);
	}
}

export const tlsWanted = (o: TlsOptions): boolean => o.tls === 'local' || o.tlsCert !== undefined;

/** The addresses of this machine's interfaces (IPv6 link-local ones left out: no URL holds them). */
export function machineAddresses(): { address: string; internal: boolean }[] {
	const out: { address: string; internal: boolean }[] = [];
	for (const list of Object.values(networkInterfaces())) {
		for (const a of list ?? []) {
			if (a.family === 'IPv6' && a.address.toLowerCase().startsWith('fe80')) continue;
			out.push({ address: a.address, internal: a.internal });
		}
	}
	return out;
}

const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '';

/**
 * The names and addresses the service answers on, phones' first: the network addresses (every
 * one with a wildcard host), the `--allow-host` names, then loopback.
 */
export function servedNames(host: string, allowHosts: readonly string[] = []): string[] {
	const addresses = machineAddresses();
	const extra = allowHosts.map((h) => h.trim().toLowerCase()).filter((h) => h !== '' && h !== '*');
	const own = isWildcard(host)
		? addresses.filter((a) => !a.internal).map((a) => a.address)
		: [host.replace(/^\[|\]$/g, '')];
	return [...new Set([...extra, ...own, '127.0.0.1', 'localhost', '::1'])];
}

export interface VenueTls {
	/** Which source. */
	mode: 'files' | 'local';
	/** The key and chain to serve now. */
	context: TlsContext;
	/** The served names the certificate holds, phones' names first. */
	covered: string[];
	/** The event's CA (`local`); null with the organiser's own certificate. */
	ca: TrustCa | null;
	/** Where `local` keeps its files; null with `files`. */
	local: LocalTls | null;
	/** The certificate's last day, ISO. */
	validTo: string;
	/**
	 * Keeps the certificate current, calling `apply` with each new pair (a renewal of the files,
	 * new addresses); refusals and what was done go to `log`. Returns the stop.
	 */
	watch(apply: (c: TlsContext) => void, log: (line: string) => void): () => void;
}

/** Where `--tls local` keeps its files: `tlsDir`, else beside the SQLite file, else ./data. */
export function localTlsDir(o: TlsOptions & { dbFile?: string }): string {
	if (o.tlsDir) return o.tlsDir;
	if (o.dbFile && o.dbFile !== ':memory:') return dirname(o.dbFile);
	return 'data';
}

/** The names a `--tls local` server certificate holds. */
export function localNames(allowHosts: readonly string[] = []): LocalNames {
	const host = hostname().toLowerCase();
	const extra = allowHosts.map((h) => h.trim().toLowerCase()).filter((h) => h !== '' && h !== '*');
	const dns = [host, `${host}.local`, 'localhost', ...extra.filter((h) => !isIP(h))];
	const ips = [...machineAddresses().map((a) => a.address), ...extra.filter((h) => isIP(h))];
	return { dns: [...new Set(dns)], ips: [...new Set(ips)] };
}

/** How often `--tls local` looks for new addresses. */
const ADDRESS_CHECK_MS = 10_000;

/**
 * Reads (files) or makes (local) the certificate and checks it for the names served. `until`:
 * the end of the event's last day; the organiser's certificate must last that long.
 */
export async function openVenueTls(
	o: TlsOptions & { dbFile?: string; host?: string; allowHosts?: string[] },
	until: Date
): Promise<VenueTls> {
	const served = servedNames(o.host ?? '127.0.0.1', o.allowHosts);
	if (o.tlsCert && o.tlsKey) {
		const certFile = o.tlsCert;
		const keyFile = o.tlsKey;
		const pair = readCertPair(certFile, keyFile);
		const covered = checkCertFor(pair.leaf, served, until);
		return {
			mode: 'files',
			context: { cert: pair.cert, key: pair.key },
			covered,
			ca: null,
			local: null,
			validTo: new Date(pair.leaf.validTo).toISOString(),
			watch(apply, log) {
				const take = (next: CertPair): void => {
					try {
						checkCertFor(next.leaf, served, new Date());
					} catch (e) {
						log(`TLS: the renewed certificate is not taken: ${(e as Error).message}`);
						return;
					}
					apply({ cert: next.cert, key: next.key });
					log(`TLS: certificate renewed from ${certFile}, valid until ${next.leaf.validTo}`);
				};
				return watchCertPair(certFile, keyFile, take, (e) =>
					log(
						`TLS: the changed files are not taken yet (${e.message}); the previous certificate stays`
					)
				);
			}
		};
	}
	const dir = localTlsDir(o);
	const host = hostname().toLowerCase();
	const local = await ensureLocalTls(dir, localNames(o.allowHosts), host);
	const ca = { name: local.caName, der: local.caDer, fingerprint: local.caFingerprint };
	return {
		mode: 'local',
		context: { cert: local.certPem, key: local.keyPem },
		covered: served,
		ca,
		local,
		validTo: '',
		watch(apply, log) {
			let busy = false;
			const timer = setInterval(() => {
				if (busy) return;
				const names = localNames(o.allowHosts);
				if (coversAll(local.certPem, names, Date.now())) return;
				busy = true;
				ensureLocalTls(dir, names, host)
					.then((next) => {
						local.certPem = next.certPem;
						local.keyPem = next.keyPem;
						apply({ cert: next.certPem, key: next.keyPem });
						log(`TLS: new server certificate for ${names.ips.join(', ')}`);
					})
					.catch((e: unknown) => log(`TLS: could not issue a new certificate: ${String(e)}`))
					.finally(() => (busy = false));
			}, ADDRESS_CHECK_MS);
			timer.unref();
			return () => clearInterval(timer);
		}
	};
}
