import { createClient } from './client';
import { replayOutbox, type ReplaySummary } from './replay';
import { createReplayRequester } from './replay-lock';

/**
 * Replays the outbox against the configured service, one replayer at a time across the tabs and
 * the worker. `origin` is the app's own origin (the page's or the worker's). Once `signal()` is
 * aborted, a replay under way stops (its request in flight is cancelled; what is left stays in
 * the outbox for the next replayer), and a request to replay rejects with the signal's reason
 * instead of starting or waiting for the lock.
 */
export function replayer(
	origin: string,
	signal: () => AbortSignal | undefined = () => undefined
): () => Promise<ReplaySummary> {
	return createReplayRequester(
		async () => replayOutbox({ client: await createClient(origin), signal: signal() }),
		signal
	);
}
