import { execFileSync } from 'node:child_process';

// End-to-end tests run against the production build: the only build with the service worker.
export default function globalSetup(): void {
	if (process.env.RINGSIDE_E2E_SKIP_BUILD === '1') return;
	execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
}
