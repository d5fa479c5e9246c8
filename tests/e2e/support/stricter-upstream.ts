import { join } from 'node:path';
import { createService, type Service } from '../../../server/app';
import { errorAnswer, startFaultProxy } from './fault-proxy';

/** The stricter upstream's words for a refused change: markup the screens must show as text. */
export const REFUSAL =
	'<b>Faults</b> over the federation’s limit <img src=x onerror="window.__xss=1">';

/**
 * The federation's upstream for mirror mode's screens (tests/e2e/mirror.spec.ts and the engines'
 * flow i): an embedded service with ETags on `dir`/upstream.sqlite, reached through a proxy that
 * plays the laptop's internet. `net.cut` drops every request unanswered; `net.refuse` answers a
 * PUT of that dog run with a stricter upstream's 400 (REFUSAL).
 */
export async function startStricterUpstream(dir: string): Promise<{
	upstream: Service;
	proxy: { url: string; close(): Promise<void> };
	net: { cut: boolean; refuse: number | null };
}> {
	const upstream = await createService({
		dbFile: join(dir, 'upstream.sqlite'),
		seed: 'small',
		quiet: true,
		etag: true
	});
	const net = { cut: false, refuse: null as number | null };
	const proxy = await startFaultProxy(upstream.url, (req) => {
		if (net.cut) throw new Error('internet lost');
		if (
			net.refuse !== null &&
			req.method === 'PUT' &&
			req.url === `/api/v1/dogRuns/${net.refuse}`
		) {
			return errorAnswer(400, 'Bad Request', REFUSAL, req.url);
		}
		return null;
	});
	return { upstream, proxy, net };
}
