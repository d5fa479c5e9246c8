/**
 * The one place a screen gets its client of the results service: the configured service, signed
 * in as set, every request reported to the page's reachability ($lib/sync/client). The screens
 * that talk to a service before it is the configured one (joining with a QR code, trying a new
 * address in Settings, the board joining its ring) build theirs with that address: see there.
 */
import type { HalClient } from '$lib/api/hal-client';
import { createClient } from '$lib/sync/client';

export function serviceClient(timeoutMs?: number): Promise<HalClient> {
	return createClient(location.origin, timeoutMs);
}
