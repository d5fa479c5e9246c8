import { startFaultProxy } from './fault-proxy';

/**
 * A reverse proxy that puts the service under a path prefix (`/results/api/v1/...`) and passes
 * everything else (the app) through. It answers 404 for the bare `/api/` path, so an app that
 * built URIs itself instead of following the service's links would fail.
 */
export function startPrefixProxy(
	target: string,
	prefix: string
): Promise<{ url: string; close: () => Promise<void> }> {
	const upstream = new URL(target);
	return startFaultProxy(
		target,
		(req) =>
			req.url?.startsWith('/api/')
				? {
						status: 404,
						headers: { 'Content-Type': 'text/plain' },
						body: `not here: the service lives under ${prefix}`
					}
				: null,
		(req) => {
			const path = req.url ?? '/';
			if (!path.startsWith(`${prefix}/`)) {
				return { path, headers: { ...req.headers, host: upstream.host } };
			}
			return {
				path: path.slice(prefix.length),
				headers: {
					...req.headers,
					host: upstream.host,
					'x-forwarded-host': req.headers.host ?? '',
					'x-forwarded-proto': 'http',
					'x-forwarded-prefix': prefix
				}
			};
		}
	);
}
