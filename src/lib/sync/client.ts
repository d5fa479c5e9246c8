import { HalClient } from '$lib/api/hal-client';
import { CompetitionSchema } from '$lib/api/schemas';
import { authorizationOf, readCredentials } from './credentials';
import { reachability } from './reachability';
import { serviceUrl } from './service-address';

/**
 * A client for the configured service, signed in as set; `origin` is the app's own. What each of
 * its requests learns of the service goes to this context's reachability.
 */
export async function createClient(origin: string, timeoutMs?: number): Promise<HalClient> {
	const [url, credentials] = await Promise.all([serviceUrl(origin), readCredentials()]);
	return new HalClient({
		serviceUrl: url,
		authorization: authorizationOf(credentials),
		observe: reachability.observe,
		...(timeoutMs === undefined ? {} : { timeoutMs })
	});
}

/** A probe gives up sooner than a request with a body: it is tried again in a few seconds. */
export const PROBE_TIMEOUT_MS = 4_000;
let probeEtag: string | undefined;

/**
 * Whether the service is there: a conditional GET of the entry point's first item (a 304 where
 * it gives ETags), its outcome observed by the reachability. Never throws.
 */
export async function probeService(origin: string): Promise<void> {
	try {
		const client = await createClient(origin, PROBE_TIMEOUT_MS);
		const href = client.competitionsUrl({ size: 1 });
		const page = await client.getPageIfChanged(href, 'competitions', CompetitionSchema, probeEtag);
		if (page) probeEtag = page.etag;
	} catch {
		// The outcome is the reachability's business; a probe has nothing else to say.
	}
}
