// Where Debian's nginx is (no dependencies: vite.config.ts asks it at start).
import { existsSync } from 'node:fs';

/** The nginx binary: RINGSIDE_NGINX, else Debian's; null when it is not installed. */
export function findNginx(): string | null {
	const candidates = [process.env.RINGSIDE_NGINX, '/usr/sbin/nginx', '/usr/bin/nginx'];
	for (const c of candidates) if (c && existsSync(c)) return c;
	return null;
}
