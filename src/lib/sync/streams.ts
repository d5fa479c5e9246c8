/**
 * The app's push streams (a competition's `changes`, a ring's `timer`) as signed in: read over
 * fetch so that the device credential goes with them (EventSource cannot send one), the same way
 * with or without a credential.
 */
import { FetchEventSource } from '$lib/api/event-source';
import { authorizationOf, readCredentials } from './credentials';

export function openSignedStream(url: string): FetchEventSource {
	return new FetchEventSource(url, {
		authorization: async () => authorizationOf(await readCredentials())
	});
}
