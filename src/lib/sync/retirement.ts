/**
 * A worker being replaced stops replaying: the page that took the update sends it RETIRE
 * (src/service-worker.ts), and the new worker, which resumes the replay, takes over only once the
 * old one is idle. The browser may stop the old worker and start it again before the switch (to
 * deliver a Background Sync event, say), and a worker started again remembers nothing of RETIRE:
 * so the time of the last one is kept in the database, and a worker that finds it recent while a
 * new version waits starts no replay.
 */
import { getSetting, setSetting, SETTING_RETIRE_AT } from '$lib/db/settings-store';

/** How long a RETIRE holds: should the switch not happen, replays resume after it. */
export const RETIRE_MS = 30_000;

export async function noteRetire(now: number): Promise<void> {
	await setSetting(SETTING_RETIRE_AT, now);
}

/**
 * Whether a worker should leave replaying to the version that waits: one is waiting (`waiting`,
 * the registration's waiting worker) and a RETIRE came less than RETIRE_MS ago.
 */
export async function isRetired(now: number, waiting: boolean): Promise<boolean> {
	if (!waiting) return false;
	const at = await getSetting<unknown>(SETTING_RETIRE_AT);
	return typeof at === 'number' && at <= now && now - at < RETIRE_MS;
}
