/**
 * Asking again when the service answers busy (503, 429): after the one backoff policy's wait
 * ($lib/sync/reachability), up to BUSY_TRIES times in a row, for a read and for a list read page
 * by page (it resumes at the page answered busy). Used by the download and the search (./locate).
 */
import type { HalClient, PageResult } from '$lib/api/hal-client';
import { expandLink, findLink } from '$lib/api/links';
import type * as v from 'valibot';
import { contactKind } from './reachability';

/** A request answered busy (503, 429) is asked again, up to this many times in all. */
export const BUSY_TRIES = 3;

export interface Patience {
	signal: AbortSignal | undefined;
	busyDelayMs: () => number;
}

/** The wait, or AbortError as soon as the download is cancelled. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(signal.reason);
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', stop);
			resolve();
		}, ms);
		const stop = () => {
			clearTimeout(timer);
			reject(signal?.reason);
		};
		signal?.addEventListener('abort', stop, { once: true });
	});
}

/** One read, asked again after the policy's wait while the service answers busy. */
export async function patiently<T>(read: () => Promise<T>, patience: Patience): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await read();
		} catch (error) {
			if (attempt >= BUSY_TRIES || contactKind(asContact(error)) !== 'busy') throw error;
			await pause(patience.busyDelayMs(), patience.signal);
		}
	}
}

/**
 * Every page of a list, as `client.pages` reads them; a page answered busy is asked again from
 * that page on after the policy's wait (up to BUSY_TRIES times in a row), not the whole download
 * failed for one 503.
 */
export async function* patientPages<const TName extends string, T>(
	client: HalClient,
	href: string,
	collection: TName,
	item: v.GenericSchema<unknown, T>,
	patience: Patience
): AsyncGenerator<PageResult<T>, void, undefined> {
	let from = href;
	let attempt = 1;
	for (;;) {
		try {
			for await (const page of client.pages(from, collection, item, { signal: patience.signal })) {
				attempt = 1;
				yield page;
				const next = findLink(page.links, 'next');
				if (next) from = expandLink(next);
			}
			return;
		} catch (error) {
			if (attempt >= BUSY_TRIES || contactKind(asContact(error)) !== 'busy') throw error;
			attempt++;
			await pause(patience.busyDelayMs(), patience.signal);
		}
	}
}

/** An error's code and status, as the reachability reads an outcome. */
function asContact(error: unknown): { code?: never; status?: number } {
	const e = error as { code?: unknown; status?: unknown } | null;
	if (e?.code !== 'http' || typeof e.status !== 'number') return {};
	return { status: e.status };
}
