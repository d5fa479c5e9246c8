import { execFileSync } from 'node:child_process';
import { prepareVenueTls, VENUE_CA_FILE, VENUE_TLS_DIR } from '../support/venue';

// End-to-end tests run against the production build: the only build with the service worker.
// The tests also run services on other loopback ports (CORS), which the build's CSP must allow.
// The venue's tests open the app by the network address over HTTPS: their test CA is made here
// (tests/support/venue.ts), and the workers' own requests trust it (read at their start).
export default async function globalSetup(): Promise<void> {
	await prepareVenueTls();
	process.env.RINGSIDE_VENUE_TLS_DIR = VENUE_TLS_DIR;
	process.env.NODE_EXTRA_CA_CERTS = VENUE_CA_FILE;
	if (process.env.RINGSIDE_E2E_SKIP_BUILD === '1') return;
	execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
		stdio: 'inherit',
		env: { ...process.env, RINGSIDE_CONNECT_SRC: 'http://127.0.0.1:*' }
	});
}
