// `--tls-cert FILE --tls-key FILE`: a certificate the service is given (the club's own name, from
// a public CA by ACME DNS-01 before the event). Read and checked at the start, with the refusals
// in words an organiser can act on, and read again when the files change (a renewal), keeping
// the old pair while the new one is half-written or does not fit.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { isIP } from 'node:net';

/** A key and its certificate chain as read from the files. */
export interface CertPair {
	/** The certificate file's text: the server's certificate first, then the chain. */
	cert: string;
	key: string;
	leaf: X509Certificate;
}

/** A refusal of the files, in words, with a code for tests. */
export class TlsFileError extends Error {
	constructor(
		readonly code:
			| 'unreadable'
			| 'not-a-certificate'
			| 'not-a-key'
			| 'key-mismatch'
			| 'names'
			| 'expires'
			| 'not-yet-valid',
		message: string
	) {
		super(message);
	}
}

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function readText(file: string, what: string): string {
	try {
		return readFileSync(file, 'utf8');
	} catch (e) {
		const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(e);
		throw new TlsFileError('unreadable', `Cannot read the ${what} ${file}: ${why}`);
	}
}

/** Reads and pairs the files: PEM, the key the certificate's, the certificate first. */
export function readCertPair(certFile: string, keyFile: string): CertPair {
	const cert = readText(certFile, 'certificate file');
	const key = readText(keyFile, 'key file');
	const first = cert.match(CERT_BLOCK)?.[0];
	let leaf: X509Certificate;
	try {
		if (!first) throw new Error('no PEM certificate');
		leaf = new X509Certificate(first);
	} catch {
		throw new TlsFileError(
			'not-a-certificate',
			`${certFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the full chain file (certbot: fullchain.pem)`
		);
	}
	let privateKey;
	try {
		privateKey = createPrivateKey(key);
	} catch {
		throw new TlsFileError(
			'not-a-key',
			`${keyFile} holds no PEM private key (unencrypted; certbot: privkey.pem)`
		);
	}
	if (!leaf.checkPrivateKey(privateKey)) {
		throw new TlsFileError(
			'key-mismatch',
			`The key in ${keyFile} is not the key of the certificate in ${certFile} (the first certificate of the file must be the server's own)`
		);
	}
	return { cert, key, leaf };
}

/** The names a certificate is for: its DNS and IP subject alternative names. */
export function certNames(leaf: X509Certificate): string[] {
	return (leaf.subjectAltName ?? '')
		.split(/,\s*/)
		.map((entry) => entry.replace(/^(DNS|IP Address):/, ''))
		.filter((name) => name !== '');
}

/** Whether the certificate is valid for `name` (a host name or an address). */
export function certCovers(leaf: X509Certificate, name: string): boolean {
	return isIP(name)
		? leaf.checkIP(name) !== undefined
		: leaf.checkHost(name, { subject: 'never' }) !== undefined;
}

/**
 * Refuses a certificate that names none of `served` (the names and addresses this service
 * answers on), that is not valid yet, or that expires before `until` (the end of the event's last
 * day). Returns the served names it is valid for.
 */
export function checkCertFor(
	leaf: X509Certificate,
	served: readonly string[],
	until: Date,
	now = Date.now()
): string[] {
	const covered = served.filter((name) => certCovers(leaf, name));
	if (covered.length === 0) {
		const names = certNames(leaf);
		const hint = names.find((n) => !isIP(n) && !n.startsWith('*.'));
		throw new TlsFileError(
			'names',
			`The certificate is for ${names.join(', ') || '(no names)'}, and this service answers on ${served.join(', ')}.` +
				(hint
					? ` Start it with --allow-host ${hint}, and let the Wi-Fi's DNS answer ${hint} with this laptop's address (README, "HTTPS at the venue").`
					: ' Give the certificate of the name the phones open.')
		);
	}
	const from = Date.parse(leaf.validFrom);
	if (from > now) {
		throw new TlsFileError(
			'not-yet-valid',
			`The certificate is valid only from ${leaf.validFrom}: check this laptop's clock, or wait`
		);
	}
	const to = Date.parse(leaf.validTo);
	if (to < until.getTime()) {
		const day = until.toISOString().slice(0, 10);
		throw new TlsFileError(
			'expires',
			to < now
				? `The certificate expired on ${leaf.validTo}: renew it (README, "HTTPS at the venue")`
				: `The certificate expires on ${leaf.validTo}, before the event ends (${day}): renew it before the event (README, "HTTPS at the venue")`
		);
	}
	return covered;
}

/** How often the files are looked at for a change (stat, so a renewed symlink counts). */
const WATCH_MS = 2_000;
/** Both files of a renewal are given this long to be written before they are read. */
const SETTLE_MS = 500;

/**
 * Calls `onChange` with the new pair when either file changes and the two fit together, and
 * `onRefused` with the reason when they do not (the old pair stays in use). Returns the stop.
 */
export function watchCertPair(
	certFile: string,
	keyFile: string,
	onChange: (pair: CertPair) => void,
	onRefused: (error: Error) => void
): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const changed = (): void => {
		clearTimeout(timer);
		timer = setTimeout(() => {
			try {
				onChange(readCertPair(certFile, keyFile));
			} catch (e) {
				onRefused(e instanceof Error ? e : new Error(String(e)));
			}
		}, SETTLE_MS);
	};
	const opts = { interval: WATCH_MS, persistent: false };
	watchFile(certFile, opts, changed);
	watchFile(keyFile, opts, changed);
	return () => {
		clearTimeout(timer);
		unwatchFile(certFile, changed);
		unwatchFile(keyFile, changed);
	};
}
