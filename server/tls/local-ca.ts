// `--tls local`: the event's own certificate authority, for a venue without a domain name. The
// first start makes a CA and keeps it beside the database (its key never leaves the laptop);
// every start makes sure a server certificate signed by it names every address and name of the
// laptop, and issues one again when they change (a new Wi-Fi lease) or its end comes near.
//
// The CA is name-constrained (RFC 5280 §4.2.1.10, critical): a phone that trusts it trusts it
// for the laptop's names and for private and local addresses only, never for a bank's site.
// Private ranges rather than today's addresses alone, so that the laptop getting another address
// at the venue than at home needs a new server certificate, not a new CA on every phone.
// Built with @peculiar/x509 (X.509 on WebCrypto): Node has no certificate generation of its own.
import { X509Certificate as NodeX509 } from 'node:crypto';
import { webcrypto, type webcrypto as WebCrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { BlockList } from 'node:net';
import { join } from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
	GeneralName,
	GeneralSubtree,
	GeneralSubtrees,
	NameConstraints,
	id_ce_nameConstraints
} from '@peculiar/asn1-x509';
// @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

// Node's WebCrypto is the standard one; the library types it with the DOM's.
x509.cryptoProvider.set(webcrypto as never);

type CryptoKey = WebCrypto.CryptoKey;
type CryptoKeyPair = WebCrypto.CryptoKeyPair;

/** The curve and hash of every key and signature: supported by every phone browser. */
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
/** The CA lasts long enough for many events; the phones trust it once. */
const CA_DAYS = 5 * 365;
/** At most 397 days: the limit browsers put on a server certificate's life. */
export const SERVER_DAYS = 397;
/** A server certificate with fewer days left than this is issued again at the next check. */
const RENEW_DAYS = 30;
/** Clocks of phones are often off: certificates start two days before they are made. */
const BACKDATE_MS = 2 * DAY;

/**
 * Address ranges the CA may vouch for besides the laptop's own: loopback, RFC 1918, shared
 * (RFC 6598, some 4G routers), link-local, and IPv6 unique-local and link-local.
 */
export const LOCAL_RANGES = [
	'127.0.0.0/8',
	'10.0.0.0/8',
	'172.16.0.0/12',
	'192.168.0.0/16',
	'100.64.0.0/10',
	'169.254.0.0/16',
	'::1/128',
	'fc00::/7',
	'fe80::/10'
];

/** The names and addresses a server certificate must name. */
export interface LocalNames {
	/** Host names: the laptop's, `<host>.local`, localhost, `--allow-host` names. */
	dns: string[];
	/** Every address of the laptop's interfaces. */
	ips: string[];
}

/** What `ensureLocalTls` hands the server: PEM texts, and what it did. */
export interface LocalTls {
	/** The server certificate followed by the CA (the chain a phone is sent). */
	certPem: string;
	keyPem: string;
	/** The CA certificate (PEM), for the trust page. */
	caPem: string;
	/** The CA certificate as DER, for Android's and Firefox's `.crt`. */
	caDer: Buffer;
	/** The name phones show for the CA (its CommonName). */
	caName: string;
	/** SHA-256 fingerprint of the CA certificate, colon-separated hex, as phones show it. */
	caFingerprint: string;
	/** Where the files are. */
	files: { ca: string; caKey: string; cert: string; key: string };
	/** True when this call made the CA (the first start). */
	madeCa: boolean;
	/** True when this call issued a server certificate (first start, new addresses, renewal). */
	issued: boolean;
}

export const localTlsFiles = (dir: string) => ({
	ca: join(dir, 'ringside-ca.pem'),
	caKey: join(dir, 'ringside-ca.key'),
	cert: join(dir, 'ringside-tls.pem'),
	key: join(dir, 'ringside-tls.key')
});

const pem = (der: ArrayBuffer, label: string): string =>
	x509.PemConverter.encode(der, label).replace(/\r\n/g, '\n') + '\n';

async function exportKeyPem(key: CryptoKey): Promise<string> {
	return pem(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

async function importKeyPair(certPem: string, keyPem: string): Promise<CryptoKeyPair> {
	const cert = new x509.X509Certificate(certPem);
	const publicKey = await cert.publicKey.export(ALG, ['verify']);
	const privateKey = await webcrypto.subtle.importKey(
		'pkcs8',
		x509.PemConverter.decodeFirst(keyPem),
		ALG,
		true,
		['sign']
	);
	return { publicKey, privateKey };
}

/** Writes a file whole or not at all (a power cut halfway leaves the old one). */
function writeAtomic(path: string, text: string, mode: number): void {
	const tmp = `${path}.tmp-${process.pid}`;
	writeFileSync(tmp, text, { mode });
	renameSync(tmp, path);
}

const serial = (): string =>
	Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
		.toString('hex')
		.replace(/^[89a-f]/, '1');

function nameConstraints(names: LocalNames): x509.Extension {
	const ownAddresses = names.ips.filter((ip) => !isLocalAddress(ip));
	const subtrees = [
		...names.dns.map((dNSName) => new GeneralSubtree({ base: new GeneralName({ dNSName }) })),
		...[...LOCAL_RANGES, ...ownAddresses.map((ip) => `${ip}/${ip.includes(':') ? 128 : 32}`)].map(
			(iPAddress) => new GeneralSubtree({ base: new GeneralName({ iPAddress }) })
		)
	];
	const value = AsnConvert.serialize(
		new NameConstraints({ permittedSubtrees: new GeneralSubtrees(subtrees) })
	);
	return new x509.Extension(id_ce_nameConstraints, true, value);
}

async function makeCa(names: LocalNames, hostName: string, now: number) {
	const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
	const day = new Date(now).toISOString().slice(0, 10);
	// What iOS shows under Certificate Trust Settings and Android under trusted credentials.
	const caName = `Ringside event CA ${hostName} ${day}`;
	const cert = await x509.X509CertificateGenerator.createSelfSigned({
		serialNumber: serial(),
		name: [{ CN: [caName] }, { O: ['Ringside'] }],
		notBefore: new Date(now - BACKDATE_MS),
		notAfter: new Date(now + CA_DAYS * DAY),
		signingAlgorithm: ALG,
		keys,
		extensions: [
			new x509.BasicConstraintsExtension(true, 0, true),
			new x509.KeyUsagesExtension(
				x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
				true
			),
			await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
			nameConstraints(names)
		]
	});
	return { cert, keys };
}

async function issueServer(
	ca: x509.X509Certificate,
	caKeys: CryptoKeyPair,
	names: LocalNames,
	hostName: string,
	now: number
): Promise<{ certPem: string; keyPem: string }> {
	const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
	const notAfter = Math.min(now + SERVER_DAYS * DAY - BACKDATE_MS, ca.notAfter.getTime());
	const cert = await x509.X509CertificateGenerator.create({
		serialNumber: serial(),
		subject: [{ CN: [`Ringside ${hostName}`] }, { O: ['Ringside'] }],
		issuer: ca.subject,
		notBefore: new Date(now - BACKDATE_MS),
		notAfter: new Date(notAfter),
		signingAlgorithm: ALG,
		publicKey: keys.publicKey,
		signingKey: caKeys.privateKey,
		extensions: [
			new x509.BasicConstraintsExtension(false, undefined, true),
			new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
			new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
			new x509.SubjectAlternativeNameExtension([
				...names.dns.map((value) => ({ type: 'dns' as const, value })),
				...names.ips.map((value) => ({ type: 'ip' as const, value }))
			]),
			await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
			await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey)
		]
	});
	return { certPem: cert.toString('pem') + '\n', keyPem: await exportKeyPem(keys.privateKey) };
}

const localRanges = new BlockList();
for (const range of LOCAL_RANGES) {
	const [address = '', prefix = ''] = range.split('/');
	localRanges.addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
}

/** Whether an address is in LOCAL_RANGES. */
export function isLocalAddress(ip: string): boolean {
	return localRanges.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
}

/** Whether the server certificate in `certPem` names every one of `names` and lasts a while. */
export function coversAll(certPem: string, names: LocalNames, now: number): boolean {
	let cert: NodeX509;
	try {
		cert = new NodeX509(certPem);
	} catch {
		return false;
	}
	if (Date.parse(cert.validTo) - now < RENEW_DAYS * DAY) return false;
	return (
		names.dns.every((n) => cert.checkHost(n, { subject: 'never' }) !== undefined) &&
		names.ips.every((ip) => cert.checkIP(ip) !== undefined)
	);
}

/**
 * The event's CA and a server certificate for `names`, from `dir` (made there when missing).
 * The CA is made once; the server certificate is issued again when it does not name every one
 * of `names` or ends within 30 days. Keys are written readable by this user only.
 */
export async function ensureLocalTls(
	dir: string,
	names: LocalNames,
	hostName: string,
	now = Date.now()
): Promise<LocalTls> {
	const files = localTlsFiles(dir);
	mkdirSync(dir, { recursive: true });
	let madeCa = false;
	let ca: x509.X509Certificate;
	let caKeys: CryptoKeyPair;
	if (existsSync(files.ca) && existsSync(files.caKey)) {
		const caPem = readFileSync(files.ca, 'utf8');
		caKeys = await importKeyPair(caPem, readFileSync(files.caKey, 'utf8'));
		ca = new x509.X509Certificate(caPem);
	} else {
		const made = await makeCa(names, hostName, now);
		ca = made.cert;
		caKeys = made.keys;
		writeAtomic(files.caKey, await exportKeyPem(caKeys.privateKey), 0o600);
		writeAtomic(files.ca, ca.toString('pem') + '\n', 0o644);
		madeCa = true;
	}
	let issued = false;
	const current = existsSync(files.cert) ? readFileSync(files.cert, 'utf8') : '';
	if (
		madeCa ||
		!existsSync(files.key) ||
		!coversAll(current, names, now) ||
		!signedBy(current, ca)
	) {
		const server = await issueServer(ca, caKeys, names, hostName, now);
		writeAtomic(files.key, server.keyPem, 0o600);
		writeAtomic(files.cert, server.certPem, 0o644);
		issued = true;
	}
	const caPem = ca.toString('pem') + '\n';
	const nodeCa = new NodeX509(caPem);
	return {
		certPem: readFileSync(files.cert, 'utf8').trimEnd() + '\n' + caPem,
		keyPem: readFileSync(files.key, 'utf8'),
		caPem,
		caDer: nodeCa.raw,
		caName: ca.subjectName.getField('CN')[0] ?? 'Ringside event CA',
		caFingerprint: nodeCa.fingerprint256,
		files,
		madeCa,
		issued
	};
}

function signedBy(certPem: string, ca: x509.X509Certificate): boolean {
	try {
		return new NodeX509(certPem).checkIssued(new NodeX509(ca.toString('pem')));
	} catch {
		return false;
	}
}
