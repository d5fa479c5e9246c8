/**
 * For tests only: documents shaped like the interface's resources, and a fake fetch answering with
 * real Response objects.
 */
import type { FetchLike } from './hal-client';

export const SERVICE = 'http://127.0.0.1:4173';
export const API = `${SERVICE}/api/v1`;
export const HAL_FORMS = 'application/prs.hal-forms+json';

export function judgeJson(id = 5, competitionId = 1) {
	return {
		id,
		firstname: 'Jana',
		lastname: 'Nováková',
		country: 'CZ',
		_links: {
			competitionRuns: {
				href: `${API}/competitions/${competitionId}/runs?judgeId=${id}{&ringId}`,
				templated: true
			}
		}
	};
}

export function ringJson(id = 2, competitionId = 1) {
	return {
		id,
		name: 'Ring A',
		_links: {
			competitionRuns: {
				href: `${API}/competitions/${competitionId}/runs?ringId=${id}{&judgeId}`,
				templated: true
			},
			nextDogRuns: { href: `${API}/competitions/${competitionId}/nextDogRunsForRing/${id}` }
		}
	};
}

export function competitionJson(id = 1) {
	return {
		id,
		name: 'Spring Cup',
		dateFrom: '2025-05-10',
		dateTo: '2025-05-11',
		details: null,
		fees: null,
		state: 'IN_PROGRESS',
		judges: [judgeJson(5, id)],
		rings: [ringJson(2, id)],
		_links: {
			self: { href: `${API}/competitions/${id}` },
			competitions: { href: `${API}/competitions` },
			competitionRuns: { href: `${API}/competitions/${id}/runs` }
		}
	};
}

export function competitionRunJson(id = 11, competitionId = 1) {
	return {
		id,
		name: 'Agility A3 Large',
		date: '2025-05-10',
		startTime: '09:30:00',
		standardTime: 38.5,
		maximalTime: 57.75,
		trackLength: 180,
		progress: 40,
		dogSizeClass: { id: 3, name: 'L' },
		competitionRunLevel: { id: 3, name: 'A3' },
		judge: judgeJson(5, competitionId),
		competitionRing: ringJson(2, competitionId),
		_links: {
			self: { href: `${API}/competitionRuns/${id}` },
			competition: { href: `${API}/competitions/${competitionId}` },
			competitionRuns: { href: `${API}/competitions/${competitionId}/runs` },
			dogRuns: { href: `${API}/competitionRuns/${id}/dogRuns` }
		}
	};
}

export function dogRunJson(id = 101, runId = 11) {
	return {
		id,
		time: null,
		refusals: 0,
		faults: 0,
		disqualified: false,
		absence: false,
		competitionRun: competitionRunJson(runId),
		dog: {
			id: 7,
			name: 'Bára',
			homeName: 'z Lesní paseky',
			workbookNo: '12345',
			birthday: '2019-04-02',
			competitionLevel: { id: 3, name: 'A3' },
			dogSizeClass: { id: 3, name: 'L' }
		},
		competitor: {
			id: 9,
			firstname: 'Petr',
			lastname: 'Svoboda',
			identifier: 'CZ-0042',
			country: null
		},
		_links: {
			self: { href: `${API}/dogRuns/${id}` },
			competitionRun: { href: `${API}/competitionRuns/${runId}` },
			competition: { href: `${API}/competitions/1` }
		}
	};
}

/** A paged list envelope (2.1): `_embedded` left out when there are no items. */
export function pageJson(
	listUrl: string,
	collection: string,
	items: unknown[],
	page: { number: number; size: number; totalElements: number }
) {
	const totalPages = Math.ceil(page.totalElements / page.size);
	const at = (n: number) => ({ href: `${listUrl}?page=${n}&size=${page.size}` });
	const links: Record<string, { href: string }> = {
		first: at(0),
		self: at(page.number)
	};
	if (page.number + 1 < totalPages) links.next = at(page.number + 1);
	links.last = at(Math.max(0, totalPages - 1));
	return {
		...(items.length > 0 ? { _embedded: { [collection]: items } } : {}),
		_links: links,
		page: { size: page.size, totalElements: page.totalElements, totalPages, number: page.number }
	};
}

/** The error object of section 7. */
export function errorJson(status: number, error: string, message: string, path: string) {
	return {
		timestamp: '2025-05-10T08:15:30.123Z',
		status,
		error,
		message,
		path,
		traceId: '6f1c2a9e4b7d3f10'
	};
}

export function halResponse(
	body: unknown,
	init: { status?: number; headers?: Record<string, string> } = {}
): Response {
	const status = init.status ?? 200;
	return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
		status,
		headers: { 'Content-Type': status >= 400 ? 'application/hal+json' : HAL_FORMS, ...init.headers }
	});
}

/**
 * Sets what fetch would report after following redirects (Response.url cannot be set otherwise).
 */
export function redirectedTo(response: Response, url: string): Response {
	Object.defineProperty(response, 'url', { value: url });
	Object.defineProperty(response, 'redirected', { value: true });
	return response;
}

export interface FetchCall {
	url: string;
	init: RequestInit;
}

export type Handler = (url: string, init: RequestInit) => Response | Promise<Response>;

/** A fetch that records its calls and answers from `routes` (exact URL) or `fallback` (404). */
export function fakeFetch(routes: Record<string, Handler | unknown> = {}, fallback?: Handler) {
	const calls: FetchCall[] = [];
	const fetch: FetchLike = async (url, init) => {
		calls.push({ url, init });
		const route = routes[url];
		if (typeof route === 'function') return (route as Handler)(url, init);
		if (route !== undefined) return halResponse(route);
		if (fallback !== undefined) return fallback(url, init);
		return halResponse(errorJson(404, 'Not Found', 'No such resource', new URL(url).pathname), {
			status: 404
		});
	};
	return { fetch, calls };
}

/** A fetch that never answers, but rejects when its signal aborts (as fetch does). */
export function hangingFetch() {
	const calls: FetchCall[] = [];
	const fetch: FetchLike = (url, init) => {
		calls.push({ url, init });
		return new Promise<Response>((_resolve, reject) => {
			init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
		});
	};
	return { fetch, calls };
}
