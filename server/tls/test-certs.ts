// Certificates made with openssl for the tests of HTTPS (the service's and the end-to-end
// ones): what a third party's tool makes, standing in for a public CA's certificate.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** openssl, for what a third party would do with the files (verify, sign). */
export const openssl = (args: string[]): string =>
	execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A self-signed certificate for `names` lasting `days` (standing in for a public CA's). */
export function makeCert(
	dir: string,
	names: string[],
	days: number,
	tag = 'c'
): { cert: string; key: string } {
	const cert = join(dir, `${tag}.pem`);
	const key = join(dir, `${tag}.key`);
	const san = names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
	openssl([
		'req',
		'-x509',
		'-newkey',
		'ec',
		'-pkeyopt',
		'ec_paramgen_curve:P-256',
		'-nodes',
		'-keyout',
		key,
		'-out',
		cert,
		'-subj',
		`/CN=${names[0]}`,
		'-days',
		String(days),
		'-addext',
		`subjectAltName=${san}`
	]);
	return { cert, key };
}
