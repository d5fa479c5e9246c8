/**
 * The app's push streams (a competition's `changes`, a ring's `timer`) as signed in: read over
 * fetch so that the device credential goes with them (EventSource cannot send one), the same way
 * with or without a credential. Each connection tells the reachability what it found, and a
 * reconnection waits as long as the one backoff policy for background requests says.
 */
import { FetchEventSource } from '$lib/api/event-source';
import { authorizationOf, readCredentials } from './credentials';
import { reachability } from './reachability';

export function openSignedStream(url: string): FetchEventSource {
	return new FetchEventSource(url, {
		authorization: async () => authorizationOf(await readCredentials()),
		observe: reachability.observe,
		reconnectDelayMs: () => reachability.backgroundDelayMs(Math.random)
	});
}
