// Helpers shared by the service tests (not part of the running service).
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createService, type Service, type ServiceOptions } from './app.ts';

export const SEED_DATE = '2026-05-12';

export interface Started {
	svc: Service;
	dbFile: string;
	entry: string;
}

export function tempDbFile(): string {
	return join(mkdtempSync(join(tmpdir(), 'ringside-test-')), 'ringside.sqlite');
}

/** Starts a service on a free port with a fresh small seed in a temp file. */
export async function startSmall(extra: ServiceOptions = {}): Promise<Started> {
	const dbFile = extra.dbFile ?? tempDbFile();
	const svc = await createService({
		port: 0,
		seed: 'small',
		seedDate: SEED_DATE,
		quiet: true,
		...extra,
		dbFile
	});
	return { svc, dbFile, entry: `${svc.url}api/v1/competitions` };
}

/**
 * A `start` for one test file: each service it starts is closed after its test. Call at the top
 * level of the file (it registers an afterEach).
 */
export function useServices(): (extra?: ServiceOptions) => Promise<Started> {
	const started: Started[] = [];
	afterEach(async () => {
		while (started.length) await started.pop()!.svc.close();
	});
	return async (extra = {}) => {
		const s = await startSmall(extra);
		started.push(s);
		return s;
	};
}

/** Resolves once `done()` holds, checking every 10 ms; throws after `ms`. */
export async function waitFor(done: () => boolean, ms = 3000): Promise<void> {
	const until = Date.now() + ms;
	while (!done()) {
		if (Date.now() > until) throw new Error(`not done within ${ms} ms`);
		await new Promise((r) => setTimeout(r, 10));
	}
}

// ---- an event where only joined devices read (docs/service.md, "Devices and roles") -----------

export type DeviceRole = 'secretary' | 'steward' | 'viewer';

/** What a joined device sends with each request: its credential as the Authorization header. */
export type DeviceHeaders = Record<string, string>;

/**
 * Joins a device to `s` by a join link of `role` for one use (a steward's of `rings`, or of every
 * ring), named "<role> phone"; answers the headers of its credential.
 */
export async function joinDevice(
	s: Started,
	role: DeviceRole,
	rings?: number[]
): Promise<DeviceHeaders> {
	const link = s.svc.createJoinLink({ role, uses: 1, ...(rings ? { rings } : {}) });
	const res = await call<{ credential: string }>(`${s.svc.url}api/v1/devices/join`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ token: link.token, name: `${role} phone` })
	});
	return { Authorization: `Bearer ${res.body.credential}` };
}

/**
 * A service `start` starts where only joined devices read (`auth: 'required'`, with `extra`), a
 * device joined as `role` (its headers: `device`) and the first competition in progress as that
 * device reads it; `join` joins more.
 */
export async function joinedEvent(
	start: (extra?: ServiceOptions) => Promise<Started>,
	role: DeviceRole,
	extra: ServiceOptions = {}
) {
	const s = await start({ auth: 'required', ...extra });
	const join = (as: DeviceRole, rings?: number[]) => joinDevice(s, as, rings);
	const device = await join(role);
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`, { headers: device });
	const competition = list.body._embedded!.competitions[0]!;
	return { s, join, device, competition };
}

// ---- the JSON shapes the tests read (competition-results-api.md, sections 2 and 7) ----------

export interface HalLink {
	href: string;
	templated?: boolean;
}

/** Competition level, competition run level, dog size class and ring as embedded in a run. */
export interface NamedJson {
	id: number;
	name: string;
}

export interface PageJson {
	size: number;
	totalElements: number;
	totalPages: number;
	number: number;
}

export interface ListLinks {
	self: HalLink;
	first?: HalLink;
	next?: HalLink;
	last?: HalLink;
}

/** The paged list envelope; `_embedded` is left out when the list is empty. */
export interface PagedList<T, K extends string = string> {
	_embedded?: Record<K, T[]>;
	_links: ListLinks;
	page: PageJson;
}

export interface PersonJson {
	id: number;
	firstname: string;
	lastname: string;
	country: string;
}

export interface JudgeJson extends PersonJson {
	_links: { competitionRuns: HalLink };
}

export interface RingJson extends NamedJson {
	_links: { competitionRuns: HalLink; nextDogRuns: HalLink };
}

export interface CompetitionJson {
	id: number;
	name: string;
	dateFrom: string;
	dateTo: string;
	details: string | null;
	fees: string | null;
	state: string;
	judges: JudgeJson[];
	rings: RingJson[];
	_links: { self: HalLink; competitions: HalLink; competitionRuns: HalLink };
}

export interface RunJson {
	id: number;
	name: string;
	date: string;
	startTime: string;
	standardTime: number;
	maximalTime: number;
	trackLength: number;
	progress: number;
	dogSizeClass: NamedJson;
	competitionRunLevel: NamedJson;
	judge: PersonJson;
	competitionRing: NamedJson;
	_links: { self: HalLink; competition: HalLink; competitionRuns: HalLink; dogRuns: HalLink };
}

export interface DogJson {
	id: number;
	name: string;
	homeName: string;
	workbookNo: string;
	birthday: string;
	competitionLevel: NamedJson;
	dogSizeClass: NamedJson;
}

export interface CompetitorJson {
	id: number;
	firstname: string;
	lastname: string;
	identifier: string;
	country: string | null;
}

export interface DogRunJson {
	id: number;
	time: number | null;
	refusals: number;
	faults: number;
	disqualified: boolean;
	absence: boolean;
	competitionRun: RunJson;
	dog: DogJson;
	competitor: CompetitorJson;
	_links: { self: HalLink; competitionRun: HalLink; competition: HalLink };
}

export interface ErrorJson {
	timestamp: string;
	status: number;
	error: string;
	message: string;
	path: string;
	traceId: string;
}

/** The item type of each collection name, as embedded in its paged list. */
export interface Collections {
	competitions: CompetitionJson;
	competitionRuns: RunJson;
	dogRuns: DogRunJson;
}

export type ListOf<K extends keyof Collections> = PagedList<Collections[K], K>;
export type CompetitionList = ListOf<'competitions'>;
export type RunList = ListOf<'competitionRuns'>;
export type DogRunList = ListOf<'dogRuns'>;

/**
 * Parses a JSON text into the shape the caller names; undefined when the text is empty or not
 * JSON. This is the one unchecked cast of the tests: a test helper reading the service's own
 * JSON, whose shape the assertions then check.
 */
export function parseJson<T>(text: string): T {
	let value: unknown;
	try {
		value = text ? JSON.parse(text) : undefined;
	} catch {
		value = undefined;
	}
	return value as T;
}

export interface JsonAnswer<T = unknown> {
	res: Response;
	status: number;
	text: string;
	/** The parsed body; undefined when the body is empty or not JSON. */
	body: T;
}

/** Fetches `url`; `T` names the JSON shape the test expects (unknown when it reads no body). */
export async function call<T = unknown>(
	url: string,
	init: RequestInit = {}
): Promise<JsonAnswer<T>> {
	const res = await fetch(url, init);
	const text = await res.text();
	return { res, status: res.status, text, body: parseJson<T>(text) };
}

export async function put<T = unknown>(
	url: string,
	payload: unknown,
	headers: Record<string, string> = {}
): Promise<JsonAnswer<T>> {
	return call<T>(url, {
		method: 'PUT',
		headers: { 'Content-Type': 'application/json', ...headers },
		body: typeof payload === 'string' ? payload : JSON.stringify(payload)
	});
}

/** Minimal RFC 6570 expansion of `{&a,b}` and `{?a,b}` form-style query expressions. */
export function expand(href: string, vars: Record<string, string | number | undefined>): string {
	return href.replace(/\{([?&])([^}]+)\}/g, (_m, op: string, names: string) => {
		const parts = names
			.split(',')
			.filter((n) => vars[n] !== undefined)
			.map((n) => `${encodeURIComponent(n)}=${encodeURIComponent(String(vars[n]))}`);
		return parts.length === 0 ? '' : op + parts.join('&');
	});
}

export interface Walked<K extends keyof Collections> {
	items: Collections[K][];
	pages: ListOf<K>[];
	totalElements: number;
}

/** Follows `next` links from `url` to the end; returns every embedded item and the pages seen. */
export async function walk<K extends keyof Collections>(
	url: string,
	collection: K
): Promise<Walked<K>> {
	const items: Collections[K][] = [];
	const pages: ListOf<K>[] = [];
	let next: string | undefined = url;
	let totalElements = -1;
	while (next) {
		const { status, body }: JsonAnswer<ListOf<K>> = await call<ListOf<K>>(next);
		if (status !== 200) throw new Error(`GET ${next} answered ${status}`);
		pages.push(body);
		totalElements = body.page.totalElements;
		items.push(...(body._embedded?.[collection] ?? []));
		next = body._links.next?.href;
		if (pages.length > 10000) throw new Error('too many pages');
	}
	return { items, pages, totalElements };
}

export const isDone = (d: {
	time: number | null;
	disqualified: boolean;
	absence: boolean;
}): boolean => d.time !== null || d.disqualified || d.absence;

// ---- Server-Sent Events (the push extension, docs/service.md) ---------------------------------

/** One message of an event stream: a dispatched event, or a block of comments only. */
export interface SseMessage {
	/** The `event:` field; 'message' when absent (as EventSource names it). */
	event: string;
	data: string;
	id?: string;
	retry?: number;
	/** Comment lines (`: …`), without the colon. */
	comments: string[];
}

export interface SseStream {
	res: Response;
	status: number;
	/** The next message (comment-only blocks too); null once the stream ended. */
	next(timeoutMs?: number): Promise<SseMessage | null>;
	/** The next message that carries an event (data), skipping comments; null once it ended. */
	nextEvent(timeoutMs?: number): Promise<SseMessage | null>;
	/** Aborts the request (as a closed browser tab would). */
	close(): void;
}

function parseSseBlock(block: string): SseMessage {
	const msg: SseMessage = { event: 'message', data: '', comments: [] };
	const data: string[] = [];
	for (const line of block.split('\n')) {
		if (line.startsWith(':')) {
			msg.comments.push(line.slice(1).trim());
			continue;
		}
		const colon = line.indexOf(':');
		const field = colon < 0 ? line : line.slice(0, colon);
		const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
		if (field === 'event') msg.event = value;
		else if (field === 'data') data.push(value);
		else if (field === 'id') msg.id = value;
		else if (field === 'retry') msg.retry = Number(value);
	}
	msg.data = data.join('\n');
	return msg;
}

/** Opens an event stream with fetch (so that tests can send Last-Event-ID themselves). */
export async function openSse(
	url: string,
	headers: Record<string, string> = {}
): Promise<SseStream> {
	const controller = new AbortController();
	const res = await fetch(url, {
		headers: { Accept: 'text/event-stream', ...headers },
		signal: controller.signal
	});
	const reader = res.body?.getReader();
	const decoder = new TextDecoder();
	let buffer = '';
	let ended = !reader;
	let pending: Promise<void> | null = null;
	const queue: SseMessage[] = [];
	const readMore = (): Promise<void> => {
		pending ??= reader!.read().then(
			({ done, value }) => {
				pending = null;
				if (done) ended = true;
				else buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
				let end: number;
				while ((end = buffer.indexOf('\n\n')) >= 0) {
					const block = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					if (block.length > 0) queue.push(parseSseBlock(block));
				}
			},
			() => {
				pending = null;
				ended = true;
			}
		);
		return pending;
	};
	const next = async (timeoutMs = 3000): Promise<SseMessage | null> => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const msg = queue.shift();
			if (msg) return msg;
			if (ended) return null;
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`no event-stream message within ${timeoutMs} ms`);
			let timer: ReturnType<typeof setTimeout> | undefined;
			const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), left)));
			await Promise.race([readMore(), timeout]);
			clearTimeout(timer);
		}
	};
	return {
		res,
		status: res.status,
		next,
		async nextEvent(timeoutMs = 3000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const msg = await next(Math.max(1, deadline - Date.now()));
				if (!msg || msg.data !== '' || msg.event !== 'message') return msg;
			}
		},
		close: () => controller.abort()
	};
}

/**
 * One request from a given local address (127.0.0.x): the service, or the proxy in front of it,
 * sees that address as the client. Answers the status, headers and parsed JSON body ({} if none).
 */
export function fromAddress<T = unknown>(
	address: string,
	method: string,
	url: string,
	body?: unknown,
	headers: Record<string, string> = {}
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: T }> {
	return new Promise((resolve, reject) => {
		const text = body === undefined ? undefined : JSON.stringify(body);
		const req = request(
			url,
			{
				method,
				localAddress: address,
				headers: { ...(text ? { 'Content-Type': 'application/json' } : {}), ...headers }
			},
			(res) => {
				let got = '';
				res.setEncoding('utf8');
				res.on('data', (c: string) => (got += c));
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						body: (got ? JSON.parse(got) : {}) as T
					})
				);
			}
		);
		req.on('error', reject);
		req.end(text);
	});
}
