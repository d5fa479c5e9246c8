import { HalClient } from '$lib/api/hal-client';
import { authorizationOf, readCredentials } from './credentials';
import { serviceUrl } from './service-address';

/** A client for the configured service, signed in as set; `origin` is the app's own. */
export async function createClient(origin: string): Promise<HalClient> {
	const [url, credentials] = await Promise.all([serviceUrl(origin), readCredentials()]);
	return new HalClient({ serviceUrl: url, authorization: authorizationOf(credentials) });
}
