import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';

/** Largest accepted page size; bigger `size` values are clamped to it. */
export const MAX_PAGE_SIZE = 2000;
export const DEFAULT_PAGE_SIZE = 20;

export const HAL_FORMS = 'application/prs.hal-forms+json';
export const HAL_JSON = 'application/hal+json';

export interface Link {
	href: string;
	templated?: boolean;
}

function firstHeader(req: IncomingMessage, name: string): string | undefined {
	const raw = req.headers[name];
	const value = Array.isArray(raw) ? raw[0] : raw;
	if (value === undefined) return undefined;
	const first = value.split(',')[0]?.trim();
	return first === '' ? undefined : first;
}

/** Whether the request came over TLS to this service itself (`--tls`). */
export const isEncrypted = (req: IncomingMessage): boolean =>
	(req.socket as { encrypted?: boolean }).encrypted === true;

/** Normalises a prefix such as `results/`, `/results` or `/` to `/results` or ``. */
export function normalisePrefix(prefix: string | undefined): string {
	if (!prefix) return '';
	let p = prefix.trim();
	if (p === '' || p === '/') return '';
	if (!p.startsWith('/')) p = '/' + p;
	return p.replace(/\/+$/, '');
}

/**
 * The origin (scheme://host) and prefix the client used, from the request's own Host header,
 * honouring X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-Prefix.
 */
export function requestBase(req: IncomingMessage): { origin: string; prefix: string } {
	// A request that came over TLS to this service is HTTPS, whatever a header says.
	const proto = (
		isEncrypted(req) ? 'https' : (firstHeader(req, 'x-forwarded-proto') ?? 'http')
	).toLowerCase();
	const host =
		firstHeader(req, 'x-forwarded-host') ??
		firstHeader(req, 'host') ??
		`${req.socket.localAddress ?? '127.0.0.1'}:${req.socket.localPort ?? 80}`;
	const scheme = proto === 'https' ? 'https' : 'http';
	return {
		origin: `${scheme}://${host}`,
		prefix: normalisePrefix(firstHeader(req, 'x-forwarded-prefix'))
	};
}

/** Absolute base of the API (…/api/v1) as the client sees it. */
export function apiBase(req: IncomingMessage): string {
	const { origin, prefix } = requestBase(req);
	return `${origin}${prefix}/api/v1`;
}

/**
 * Stands for the API base in representations as routes build them (`api` of a route call); never
 * answered, never stored: `stringifyHal` turns it into BASE_MARK. Random per process, so that no
 * text a client sends can be taken for it.
 */
export const API_BASE = `@@api${randomBytes(4).toString('hex')}@@`;

/**
 * Stands for the API base in a template (the text of `stringifyHal`), the same in every process
 * and after every restart: a control character, which JSON text never holds as itself (JSON
 * escapes it as \u0001), so no data can be taken for it. A template is the representation
 * independent of the address it is answered on: its ETag is computed on it (the same through
 * 127.0.0.1, a LAN address, a proxy prefix, on every instance and after a restart), and a change
 * event is stored and relayed as one, and given each stream's own base (`renderBase`) by the
 * instance that sends it.
 */
export const BASE_MARK = '\u0001';

/**
 * Puts `api` in place of BASE_MARK in a template from `stringifyHal`. JSON escapes strings
 * character by character, so this gives exactly the text the representation built on `api`
 * would give.
 */
export function renderBase(template: string, api: string): string {
	return template.split(BASE_MARK).join(stringifyJson(api).slice(1, -1));
}

// ---- decimal serialisation -------------------------------------------------------------

const DEC_TOKEN = `@@dec${randomBytes(4).toString('hex')}@@`;
const DEC_RE = new RegExp(`"${DEC_TOKEN}(-?\\d+\\.\\d+)${DEC_TOKEN}"`, 'g');

/** Formats thousandths as a decimal with 2 fraction digits, or 3 when the last one is not 0. */
export function formatThousandths(thousandths: number): string {
	const negative = thousandths < 0;
	const abs = Math.abs(Math.round(thousandths));
	const whole = Math.floor(abs / 1000);
	const frac = abs % 1000;
	const fracText =
		frac % 10 === 0 ? String(frac / 10).padStart(2, '0') : String(frac).padStart(3, '0');
	return `${negative ? '-' : ''}${whole}.${fracText}`;
}

/**
 * A placeholder that `stringifyHal` turns into a bare JSON decimal number such as `65.00`.
 * (JSON.stringify alone would print 65.)
 */
export function decimal(thousandths: number): unknown {
	return `${DEC_TOKEN}${formatThousandths(thousandths)}${DEC_TOKEN}`;
}

/**
 * JSON text with `<` and `>` written as \u003c and \u003e (the same JSON value), so that text
 * reflected from a request (a path, a header, a query value) never reads as markup, even if a
 * client were to show an answer as HTML.
 */
export function stringifyJson(value: unknown): string {
	return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

/** The template of a representation built on API_BASE: JSON text with BASE_MARK for the base. */
export function stringifyHal(value: unknown): string {
	return stringifyJson(value).replace(DEC_RE, '$1').split(API_BASE).join(BASE_MARK);
}

// ---- paged envelope --------------------------------------------------------------------

export interface PageRequest {
	page: number;
	size: number;
}

export interface PagedArgs<T> {
	/** Absolute URL of the collection without query. */
	href: string;
	/** Filter parameters to keep in every link, in order (undefined values are left out). */
	params: [string, string | undefined][];
	page: PageRequest;
	total: number;
	collection: 'competitions' | 'competitionRuns' | 'dogRuns';
	items: T[];
}

export function pageLink(
	href: string,
	params: [string, string | undefined][],
	page: number,
	size: number
): Link {
	const q = new URLSearchParams();
	for (const [k, v] of params) if (v !== undefined) q.append(k, v);
	q.append('page', String(page));
	q.append('size', String(size));
	return { href: `${href}?${q.toString()}` };
}

export function pagedEnvelope<T>(args: PagedArgs<T>): Record<string, unknown> {
	const { href, params, page, total, collection, items } = args;
	const totalPages = total === 0 ? 0 : Math.ceil(total / page.size);
	const links: Record<string, Link> = {};
	if (totalPages > 0) links.first = pageLink(href, params, 0, page.size);
	links.self = pageLink(href, params, page.page, page.size);
	if (page.page + 1 < totalPages) links.next = pageLink(href, params, page.page + 1, page.size);
	if (totalPages > 0) links.last = pageLink(href, params, totalPages - 1, page.size);
	const out: Record<string, unknown> = {};
	if (items.length > 0) out._embedded = { [collection]: items };
	out._links = links;
	out.page = { size: page.size, totalElements: total, totalPages, number: page.page };
	return out;
}
