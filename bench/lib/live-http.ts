/**
 * Plain Node HTTP clients for the `live` part (no browser): a request helper, a dog-run list read
 * conditionally page by page as the app's live updates read it, and a minimal Server-Sent Events
 * client. Links are followed as the service gives them (the app's own `findLink`/`expandLink`).
 */
import { SseParser } from '../../src/lib/api/sse.ts';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { expandLink, findLink, type LinkMap } from '../../src/lib/api/links.ts';

export interface Answer {
	status: number;
	etag: string | undefined;
	text: string;
}

const TIMEOUT_MS = 15_000;

/**
 * A CA these clients trust besides the system's, for the service's `--tls local` (the `https`
 * part): a PEM file named by RINGSIDE_BENCH_CA (read when first needed; a forked load generator
 * inherits the variable).
 */
let trusted: { file: string; context: SecureContext } | null = null;
function extraCa(): { secureContext: SecureContext } | undefined {
	const file = process.env.RINGSIDE_BENCH_CA;
	if (!file) return undefined;
	// One context for every request: made per request, parsing the system's roots costs more
	// than the handshake itself and would be counted as TLS's.
	if (trusted?.file !== file) {
		const ca = [...rootCertificates, readFileSync(file, 'utf8')];
		trusted = { file, context: createSecureContext({ ca }) };
	}
	return { secureContext: trusted.context };
}

/** An agent for the URL's scheme (HTTPS with the bench's CA), as each request needs its own kind. */
export function agentFor(url: string, options: { keepAlive: boolean; maxSockets: number }): Agent {
	return url.startsWith('https:')
		? new HttpsAgent({ ...options, ...extraCa() })
		: new Agent(options);
}

/** node:http or node:https by the URL's scheme; HTTPS trusts the bench's CA too. */
function request(
	url: string,
	options: { method?: string; headers?: Record<string, string>; agent?: Agent | false },
	onResponse: Parameters<typeof httpRequest>[2]
): ReturnType<typeof httpRequest> {
	return url.startsWith('https:')
		? httpsRequest(url, { ...options, ...extraCa() }, onResponse)
		: httpRequest(url, options, onResponse);
}

export function http(
	url: string,
	options: {
		method?: string;
		headers?: Record<string, string>;
		body?: string;
		agent?: Agent;
	} = {}
): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{ method: options.method ?? 'GET', headers: options.headers, agent: options.agent },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('error', reject);
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						etag: header(res.headers, 'etag'),
						text: Buffer.concat(chunks).toString('utf8')
					})
				);
			}
		);
		req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer from ${url}`)));
		req.on('error', reject);
		req.end(options.body);
	});
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

export async function getJson<T>(url: string, agent?: Agent): Promise<T> {
	const a = await http(url, { agent, headers: { Accept: 'application/hal+json' } });
	if (a.status !== 200) throw new Error(`GET ${url} answered ${a.status}`);
	return JSON.parse(a.text) as T;
}

export async function putJson(url: string, payload: unknown, agent?: Agent): Promise<Answer> {
	return http(url, {
		method: 'PUT',
		agent,
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(payload)
	});
}

/** The `next` page of a HAL list, as its link gives it. */
export function nextOf(links: LinkMap | undefined): string | undefined {
	const link = findLink(links, 'next');
	return link ? expandLink(link) : undefined;
}

export interface DogRunItem {
	id: number;
	time: number | null;
	_links: LinkMap;
	competitionRun: { id: number; _links: LinkMap };
}

interface DogRunPage {
	_embedded?: { dogRuns?: DogRunItem[] };
	_links: LinkMap;
}

/**
 * One watched run's dog-run list, read as `LiveUpdates#readList` reads it: every page with
 * `If-None-Match` of its last tag; a 304 page is skipped and its `next` as then known followed.
 */
export class ConditionalList {
	readonly #first: string;
	readonly #agent: Agent | undefined;
	readonly #pages = new Map<string, { etag: string | undefined; next: string | undefined }>();

	constructor(first: string, agent?: Agent) {
		this.#first = first;
		this.#agent = agent;
	}

	/** Reads every page once; `onStatus` sees each answer's status, `onItems` each changed page. */
	async read(
		onStatus: (status: number) => void,
		onItems?: (items: readonly DogRunItem[]) => void
	): Promise<void> {
		const seen = new Set<string>();
		for (let href: string | undefined = this.#first; href !== undefined && !seen.has(href);) {
			seen.add(href);
			const known = this.#pages.get(href);
			const headers: Record<string, string> = { Accept: 'application/hal+json' };
			if (known?.etag) headers['If-None-Match'] = known.etag;
			const a = await http(href, { agent: this.#agent, headers });
			onStatus(a.status);
			if (a.status === 304) {
				href = known?.next;
				continue;
			}
			if (a.status !== 200) throw new Error(`GET ${href} answered ${a.status}`);
			const page = JSON.parse(a.text) as DogRunPage;
			const next = nextOf(page._links);
			this.#pages.set(href, { etag: a.etag, next });
			onItems?.(page._embedded?.dogRuns ?? []);
			href = next;
		}
	}
}

export interface SseMessage {
	/** 'message' when the block names none (as EventSource does). */
	event: string;
	data: string;
	id: string | undefined;
}

export interface SseClient {
	/** Resolves with the status once the answer's headers arrived. */
	opened: Promise<number>;
	/** Resolves when the stream ends (closed by either side, or failed). */
	ended: Promise<void>;
	close(): void;
}

/**
 * A minimal Server-Sent Events reader over node:http: `id`, `event`, `data` (joined with \n) and
 * comments; one connection of its own, no reconnection (the bench reports a dropped stream).
 */
export function openEventStream(url: string, onMessage: (m: SseMessage) => void): SseClient {
	let closing = false;
	let resolveOpened: (status: number) => void = () => undefined;
	let rejectOpened: (e: Error) => void = () => undefined;
	let resolveEnded: () => void = () => undefined;
	const opened = new Promise<number>((res, rej) => {
		resolveOpened = res;
		rejectOpened = rej;
	});
	const ended = new Promise<void>((res) => (resolveEnded = res));
	const req = request(
		url,
		{ agent: false, headers: { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' } },
		(res) => {
			resolveOpened(res.statusCode ?? 0);
			res.setEncoding('utf8');
			const parser = new SseParser((m) =>
				onMessage({ event: m.event, data: m.data, id: m.lastEventId || undefined })
			);
			res.on('data', (chunk: string) => parser.push(chunk));
			res.on('close', resolveEnded);
			res.on('error', () => resolveEnded());
		}
	);
	req.on('error', (e) => {
		if (!closing) rejectOpened(e);
		resolveEnded();
	});
	req.end();
	return {
		opened,
		ended,
		close() {
			closing = true;
			req.destroy();
		}
	};
}
