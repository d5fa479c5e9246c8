import { createClient } from './client';
import { replayOutbox, type ReplaySummary } from './replay';
import { createReplayRequester } from './replay-lock';

/**
 * Replays the outbox against the configured service, one replayer at a time across the tabs and
 * the worker. `origin` is the app's own origin (the page's or the worker's).
 */
export function replayer(origin: string): () => Promise<ReplaySummary> {
	return createReplayRequester(async () => replayOutbox({ client: await createClient(origin) }));
}
