// The venue as the tests see it: the app opened by this machine's network address over HTTPS,
// as a phone at the event opens the ring laptop (stack-notes.md, "The venue is not loopback").
// One test CA for the whole run, made by the service's own `--tls local` code and kept between
// runs, trusted the way each engine allows:
//   Chromium  --ignore-certificate-errors-spki-list with the CA's key (a secure origin: the
//             worker registers, where Playwright's ignoreHTTPSErrors is not enough)
//   Firefox   the profile's NSS database (certutil, Debian's libnss3-tools)
//   WebKitGTK the system store (update-ca-certificates), which GnuTLS reads
//   Node      NODE_EXTRA_CA_CERTS, for the tests' own requests to the service
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLocalTls } from '../../server/tls/local-ca';
import { localNames } from '../../server/tls/venue-tls';

/** Where the run's test CA and the service's certificate are kept (reused by later runs). */
export const VENUE_TLS_DIR =
	process.env.RINGSIDE_VENUE_TLS_DIR ?? join(tmpdir(), 'ringside-venue-tls');
export const VENUE_CA_FILE = join(VENUE_TLS_DIR, 'ringside-ca.pem');

/** This machine's first IPv4 address that is not loopback: where phones reach the laptop. */
export function networkAddress(): string {
	for (const list of Object.values(networkInterfaces())) {
		for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
	}
	throw new Error('This machine has no network address but loopback: the venue tests need one');
}

/** base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as Chromium's SPKI list takes it. */
export function spkiHash(pem: string): string {
	const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
	return createHash('sha256').update(der).digest('base64');
}

/** Makes (or keeps) the test CA and a server certificate for this machine's names. */
export async function prepareVenueTls(): Promise<void> {
	await ensureLocalTls(VENUE_TLS_DIR, localNames(), hostname().toLowerCase());
}

const SYSTEM_CA = '/usr/local/share/ca-certificates/ringside-test-venue-ca.crt';

/**
 * Puts the test CA in the system store for WebKitGTK (root only). It stays there between runs:
 * it is name-constrained to this machine's names and local addresses.
 */
export function trustInSystemStore(): void {
	const pem = readFileSync(VENUE_CA_FILE, 'utf8');
	if (existsSync(SYSTEM_CA) && readFileSync(SYSTEM_CA, 'utf8') === pem) return;
	try {
		mkdirSync('/usr/local/share/ca-certificates', { recursive: true });
		writeFileSync(SYSTEM_CA, pem);
		execFileSync('update-ca-certificates', [], { stdio: 'ignore' });
	} catch (e) {
		throw new Error(
			`WebKitGTK trusts only the system store: put ${VENUE_CA_FILE} there as root (${String(e)})`,
			{ cause: e }
		);
	}
}

/** A new Firefox profile whose NSS database trusts the test CA for websites. */
export function firefoxProfileTrustingCa(): string {
	const dir = mkdtempSync(join(tmpdir(), 'ringside-firefox-'));
	try {
		execFileSync('certutil', ['-N', '-d', `sql:${dir}`, '--empty-password'], { stdio: 'pipe' });
		execFileSync(
			'certutil',
			['-A', '-d', `sql:${dir}`, '-n', 'Ringside test venue CA', '-t', 'C,,', '-i', VENUE_CA_FILE],
			{ stdio: 'pipe' }
		);
	} catch (e) {
		throw new Error(
			`certutil (Debian's libnss3-tools) could not make Firefox's profile: ${String(e)}`,
			{ cause: e }
		);
	}
	return dir;
}
