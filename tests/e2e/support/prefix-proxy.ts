import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reverse proxy that puts the service under a path prefix (`/results/api/v1/...`) and passes
 * everything else (the app) through. It answers 404 for the bare `/api/` path, so an app that
 * built URIs itself instead of following the service's links would fail.
 */
export async function startPrefixProxy(
	target: string,
	prefix: string
): Promise<{ url: string; close: () => Promise<void> }> {
	const upstream = new URL(target);
	const server: Server = createServer((req, res) => {
		const path = req.url ?? '/';
		if (path.startsWith('/api/')) {
			res.writeHead(404, { 'Content-Type': 'text/plain' });
			res.end('not here: the service lives under ' + prefix);
			return;
		}
		const underPrefix = path.startsWith(`${prefix}/`);
		const forwardedPath = underPrefix ? path.slice(prefix.length) : path;
		const headers = { ...req.headers, host: upstream.host };
		if (underPrefix) {
			Object.assign(headers, {
				'x-forwarded-host': req.headers.host ?? '',
				'x-forwarded-proto': 'http',
				'x-forwarded-prefix': prefix
			});
		}
		const out = request(
			{
				hostname: upstream.hostname,
				port: upstream.port,
				method: req.method,
				path: forwardedPath,
				headers
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			}
		);
		out.on('error', () => {
			res.writeHead(502);
			res.end();
		});
		req.pipe(out);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
}
