import { execFileSync } from 'node:child_process';

// End-to-end tests run against the production build: the only build with the service worker.
// The tests also run services on other loopback ports (CORS), which the build's CSP must allow.
export default function globalSetup(): void {
	if (process.env.RINGSIDE_E2E_SKIP_BUILD === '1') return;
	execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
		stdio: 'inherit',
		env: { ...process.env, RINGSIDE_CONNECT_SRC: 'http://127.0.0.1:*' }
	});
}
