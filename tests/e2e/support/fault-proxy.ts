import {
	createServer,
	request,
	type IncomingMessage,
	type OutgoingHttpHeaders,
	type Server
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CannedAnswer {
	status: number;
	headers?: Record<string, string>;
	body: string;
}

/** Where a forwarded request goes on the target, and with which headers. */
export type Rewrite = (req: IncomingMessage) => { path: string; headers: OutgoingHttpHeaders };

/**
 * Serves the app and the service through one origin and lets a test answer some requests itself
 * (a 503 from an overloaded gateway, a 400 from a stricter service). By default the Host header
 * passes through, so the service builds its links with the proxy's own address; `rewrite` changes
 * the path and headers of what is forwarded.
 */
export async function startFaultProxy(
	target: string,
	intercept: (req: IncomingMessage) => CannedAnswer | null | Promise<CannedAnswer | null>,
	rewrite: Rewrite = (req) => ({ path: req.url ?? '/', headers: req.headers })
): Promise<{ url: string; close: () => Promise<void> }> {
	const upstream = new URL(target);
	const server: Server = createServer(async (req, res) => {
		let canned: CannedAnswer | null;
		try {
			canned = await intercept(req);
		} catch {
			// The client gave up (a time-out) or the service is gone: nothing left to answer.
			res.destroy();
			return;
		}
		if (canned) {
			req.resume();
			if (res.destroyed) return;
			res.writeHead(canned.status, {
				'Content-Length': Buffer.byteLength(canned.body),
				...canned.headers
			});
			res.end(canned.body);
			return;
		}
		const { path, headers } = rewrite(req);
		const out = request(
			{ hostname: upstream.hostname, port: upstream.port, method: req.method, path, headers },
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

/** The service's own error object, as a stricter or overloaded service would answer. */
export function errorAnswer(
	status: number,
	error: string,
	message: string,
	path: string,
	headers: Record<string, string> = {}
): CannedAnswer {
	return {
		status,
		headers: { 'Content-Type': 'application/hal+json', ...headers },
		body: JSON.stringify({
			timestamp: new Date().toISOString(),
			status,
			error,
			message,
			path,
			traceId: 'e2e0000000000000000000000000000'
		})
	};
}

/** The service's real answer to the request (a PUT is applied), as it would reach the app. */
export async function upstreamAnswer(
	target: string,
	req: IncomingMessage
): Promise<{ status: number; contentType: string; text: string }> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
	const headers: Record<string, string> = {
		Accept: req.headers.accept ?? 'application/json',
		'X-Forwarded-Host': req.headers.host ?? '',
		'X-Forwarded-Proto': 'http'
	};
	if (req.headers['content-type']) headers['Content-Type'] = req.headers['content-type'];
	const answer = await fetch(new URL(req.url ?? '/', target), {
		method: req.method,
		headers,
		body
	});
	return {
		status: answer.status,
		contentType: answer.headers.get('content-type') ?? '',
		text: await answer.text()
	};
}
