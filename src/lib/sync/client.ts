import { HalClient } from '$lib/api/hal-client';
import { serviceUrl } from './service-address';

/** A client for the configured service; `origin` is the app's own (page or worker). */
export async function createClient(origin: string): Promise<HalClient> {
	return new HalClient({ serviceUrl: await serviceUrl(origin) });
}
