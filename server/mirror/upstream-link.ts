// The laptop's link to the upstream, on the phone's sync core: every request (the publisher's,
// the puller's, the import's and the probe's) goes through one fetch that carries the laptop's
// User-Agent and the credential, is watched for hanging (src/lib/sync/hung-requests.ts) and ends
// when the mirror closes; every outcome feeds the phone's Reachability, and the phone's Prober
// asks for the entry point while the upstream does not answer, or when a request hangs.
import * as v from 'valibot';
import { HalClient, type FetchLike } from '../../src/lib/api/hal-client.ts';
import { HungRequests } from '../../src/lib/sync/hung-requests.ts';
import { Prober } from '../../src/lib/sync/prober.ts';
import { Reachability } from '../../src/lib/sync/reachability.ts';
import type { Clock } from '../../src/lib/sync/scheduler.ts';
import { MIRROR_USER_AGENT, type MirrorOptions } from './mirror-types.ts';

/**
 * How often the upstream is asked whether it is back, how long the probe may take, and how long
 * a request may go unanswered before the probe looks (ms): one laptop, not a field of phones.
 */
export const PROBE_MS = 2_000;

export interface UpstreamLink {
	/** The client of every request but the probe (15 s time-out unless the options say). */
	client: HalClient;
	reachability: Reachability;
	prober: Prober;
	hung: HungRequests;
}

export function openUpstreamLink(
	options: MirrorOptions,
	deps: { clock: Clock; random: () => number; closing: AbortSignal }
): UpstreamLink {
	const { clock, random, closing } = deps;
	const reachability = new Reachability({ probeMs: PROBE_MS });
	const hung = new HungRequests({
		hangAfterMs: PROBE_MS,
		onSuspect: () => prober.check(),
		clock
	});
	reachability.onContact(hung.observe);
	const link: FetchLike = hung.wrap((input, init) => {
		// The federation's logs tell the laptop's requests from a browser's; a gateway in front of
		// the upstream sees the credential on every request, the probe's too.
		const headers = new Headers(init.headers);
		headers.set('User-Agent', MIRROR_USER_AGENT);
		if (options.authorization) headers.set('Authorization', options.authorization);
		return (options.fetch ?? fetch)(input, {
			...init,
			headers,
			signal: init.signal ? AbortSignal.any([init.signal, closing]) : closing
		});
	});
	const client = new HalClient({
		serviceUrl: options.upstream,
		timeoutMs: options.timeoutMs ?? 15_000,
		observe: reachability.observe,
		fetch: link
	});
	// The probe: the entry point, with a short time-out, through the same link.
	const probeClient = new HalClient({
		serviceUrl: options.upstream,
		timeoutMs: PROBE_MS,
		observe: reachability.observe,
		fetch: link
	});
	const prober = new Prober({
		reachability,
		probe: () =>
			probeClient.get(probeClient.entryPoint, v.unknown()).then(
				() => undefined,
				() => undefined
			),
		clock,
		random
	});
	return { client, reachability, prober, hung };
}
