// The service's checks of what a request sends, each failure a 400 (or 404) with its words: ids,
// dates and pages of a query, text no database stores (path, query, JSON bodies), the PUT bodies
// through the contract's valibot schemas (src/lib/contract/put-bodies.ts), and the bodies of the
// device endpoints (join, rename, join links).
//
// Long because it is the one place where every route's input is checked; its parts share the
// 400s and the rule of storable text.
import {
	checkBody,
	DogRunPutSchema,
	hasAtMostDecimals,
	RunPutSchema
} from '../src/lib/contract/put-bodies.ts';
import { ROLES, type JoinLinkRequest, type Role } from './devices/devices.ts';
import { badRequest, notFound } from './http/errors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageRequest } from './http/hal.ts';

const INT_RE = /^\d+$/;
/** The largest id: ids are 32-bit integers on both engines (PostgreSQL's INTEGER). */
export const MAX_ID = 2_147_483_647;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Largest accepted `page` number. */
export const MAX_PAGE = 999_999_999;

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** True for a real (proleptic Gregorian) calendar date written YYYY-MM-DD, years 0000 to 9999. */
export function isCalendarDate(value: string): boolean {
	const m = DATE_RE.exec(value);
	if (!m) return false;
	const y = Number(m[1]);
	const mo = Number(m[2]);
	const d = Number(m[3]);
	if (mo < 1 || mo > 12 || d < 1) return false;
	// Not Date.UTC: it maps years 0..99 to 1900..1999, which made 0000-02-29 invalid.
	const days = mo === 2 ? (isLeapYear(y) ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
	return d <= days;
}

export function parseDateParam(name: string, value: string | null): string | undefined {
	if (value === null) return undefined;
	if (!isCalendarDate(value)) {
		throw badRequest(
			`Query parameter '${name}' must be a calendar date in the form YYYY-MM-DD, got '${value}'`
		);
	}
	return value;
}

export function parseIdParam(name: string, value: string | null): number | undefined {
	if (value === null) return undefined;
	const id = parseId(name, value, 'Query parameter');
	return id;
}

/** `text` as an id that can be stored (1 to MAX_ID), else null. */
export function storedId(text: string): number | null {
	if (!INT_RE.test(text)) return null;
	const n = Number(text);
	return n >= 1 && n <= MAX_ID ? n : null;
}

/**
 * Parses a positive integer identifier; anything else is a 400 naming the parameter. A path id
 * above MAX_ID names no resource (404, as an unknown id); a query parameter's is a 400.
 */
export function parseId(name: string, value: string, what = 'Path parameter'): number {
	const id = storedId(value);
	if (id !== null) return id;
	if (!INT_RE.test(value) || /^0+$/.test(value)) {
		throw badRequest(`${what} '${name}' must be a positive integer, got '${value}'`);
	}
	if (what === 'Path parameter') throw notFound(`Nothing has ${name} ${value}`);
	throw badRequest(`${what} '${name}' must be a positive integer up to ${MAX_ID}, got '${value}'`);
}

export function parsePage(query: URLSearchParams): PageRequest {
	const pageRaw = query.get('page');
	const sizeRaw = query.get('size');
	let page = 0;
	let size = DEFAULT_PAGE_SIZE;
	if (pageRaw !== null) {
		if (!INT_RE.test(pageRaw) || Number(pageRaw) > MAX_PAGE) {
			throw badRequest(
				`Query parameter 'page' must be an integer from 0 to ${MAX_PAGE}, got '${pageRaw}'`
			);
		}
		page = Number(pageRaw);
	}
	if (sizeRaw !== null) {
		if (!INT_RE.test(sizeRaw) || Number(sizeRaw) < 1) {
			throw badRequest(`Query parameter 'size' must be an integer >= 1, got '${sizeRaw}'`);
		}
		size = Math.min(Number(sizeRaw), MAX_PAGE_SIZE);
	}
	return { page, size };
}

// ---- PUT bodies -------------------------------------------------------------------------

// The schemas, fields and limits are the contract's, shared with the app (src/lib/contract).
export { hasAtMostDecimals };

// ---- text that can be stored ----------------------------------------------------------

/** NUL, a high surrogate not followed by a low one, a low one not after a high one. */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** Whether a text can be stored as it is: no NUL (PostgreSQL refuses it) and no unpaired surrogate. */
export const isStorable = (text: string): boolean => !UNSTORABLE.test(text);

/**
 * `text` with NUL and unpaired surrogates each replaced by U+FFFD: what a log keeps of a request
 * that held them (the request itself is refused).
 */
export const storableText = (text: string): string => text.replace(UNSTORABLE_ALL, '\uFFFD');

const WHY_NOT_STORABLE =
	'a character that cannot be stored (NUL, an unpaired surrogate or a byte that is not UTF-8)';

/** A percent-encoded component decoded strictly (`+` as a space); null when it is malformed. */
function decodeStrictly(component: string): string | null {
	try {
		return decodeURIComponent(component.replaceAll('+', ' '));
	} catch {
		return null;
	}
}

/**
 * Throws 400 when the path or a query parameter holds malformed percent-encoding, bytes that are
 * not UTF-8, NUL or an unpaired surrogate: bad input on every route and engine, refused before
 * anything is read (SQLite would store or compare it, PostgreSQL refuse it with an error).
 */
export function checkRequestTarget(pathname: string, search: string): void {
	const path = decodeStrictly(pathname);
	if (path === null || !isStorable(path)) {
		throw badRequest(`The path holds ${WHY_NOT_STORABLE}`);
	}
	for (const part of search.replace(/^\?/, '').split('&')) {
		if (part === '') continue;
		const eq = part.indexOf('=');
		const rawName = eq < 0 ? part : part.slice(0, eq);
		const name = decodeStrictly(rawName);
		if (name === null || !isStorable(name)) {
			throw badRequest(`The name of a query parameter holds ${WHY_NOT_STORABLE}`);
		}
		const value = eq < 0 ? '' : decodeStrictly(part.slice(eq + 1));
		if (value === null || !isStorable(value)) {
			throw badRequest(`Query parameter '${name}' holds ${WHY_NOT_STORABLE}`);
		}
	}
}

/** The body's bytes as UTF-8 text; throws 400 when they are not UTF-8. */
export function utf8Text(buf: Buffer): string {
	try {
		return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf);
	} catch {
		throw badRequest(`The request body holds ${WHY_NOT_STORABLE}`);
	}
}

/** Throws 400 naming the first field (or key) of `value` whose text cannot be stored. */
function checkStorable(value: unknown, field: string | null): void {
	if (typeof value === 'string') {
		if (!isStorable(value)) {
			throw badRequest(
				field === null
					? `The request body holds ${WHY_NOT_STORABLE}`
					: `Field '${storableText(field)}' holds ${WHY_NOT_STORABLE}`
			);
		}
	} else if (Array.isArray(value)) {
		for (const v of value) checkStorable(v, field);
	} else if (value !== null && typeof value === 'object') {
		for (const [k, v] of Object.entries(value)) {
			if (!isStorable(k)) throw badRequest(`A field name holds ${WHY_NOT_STORABLE}`);
			checkStorable(v, field === null ? k : `${field}.${k}`);
		}
	}
}

export function parseJsonObject(text: string): Record<string, unknown> {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (e) {
		throw badRequest(`Malformed JSON in request body: ${storableText((e as Error).message)}`);
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw badRequest('Request body must be a JSON object');
	}
	checkStorable(parsed, null);
	return parsed as Record<string, unknown>;
}

export interface DogRunPatch {
	/** Hundredths of a second, or null to clear. */
	timeCs?: number | null;
	refusals?: number;
	faults?: number;
	disqualified?: boolean;
	absence?: boolean;
}

export {
	COURSE_FIELDS as COMPETITION_RUN_FIELDS,
	DOG_RUN_FIELDS
} from '../src/lib/contract/fields.ts';

/** A dog run's PUT body as the store writes it; 400 with the contract's words when it is not one. */
export function validateDogRunPatch(body: Record<string, unknown>): DogRunPatch {
	const checked = checkBody(DogRunPutSchema, body);
	if (!checked.ok) throw badRequest(checked.message);
	const { time, ...rest } = checked.value;
	const patch: DogRunPatch = {};
	if (time !== undefined) patch.timeCs = time === null ? null : Math.round(time * 100);
	for (const field of ['refusals', 'faults', 'disqualified', 'absence'] as const) {
		if (rest[field] !== undefined) (patch as Record<string, unknown>)[field] = rest[field];
	}
	return patch;
}

export interface CompetitionRunPatch {
	trackLength?: number;
	/** Thousandths of a second. */
	standardTimeMs?: number;
	maximalTimeMs?: number;
}

/** A run's PUT body as the store writes it; 400 with the contract's words when it is not one. */
export function validateCompetitionRunPatch(body: Record<string, unknown>): CompetitionRunPatch {
	const checked = checkBody(RunPutSchema, body);
	if (!checked.ok) throw badRequest(checked.message);
	const { trackLength, standardTime, maximalTime } = checked.value;
	const patch: CompetitionRunPatch = {};
	if (trackLength !== undefined) patch.trackLength = Math.round(trackLength * 100) / 100;
	if (standardTime !== undefined) patch.standardTimeMs = Math.round(standardTime * 1000);
	if (maximalTime !== undefined) patch.maximalTimeMs = Math.round(maximalTime * 1000);
	return patch;
}

// ---- device endpoints (routes/devices.ts) -----------------------------------------------

/** Throws 400 for a field not in `allowed`. */
function checkFields(body: Record<string, unknown>, allowed: readonly string[]): void {
	for (const key of Object.keys(body)) {
		if (!allowed.includes(key)) {
			throw badRequest(`Unknown field '${key}'; allowed fields: ${allowed.join(', ')}`);
		}
	}
}

/** Longest device name. */
export const MAX_DEVICE_NAME = 60;

/** A device name: 1 to 60 characters once trimmed, no control characters. */
function deviceName(value: unknown): string {
	const name = typeof value === 'string' ? value.trim() : '';
	// eslint-disable-next-line no-control-regex
	if (name.length === 0 || name.length > MAX_DEVICE_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
		throw badRequest(
			`Field 'name' must be a text of 1 to ${MAX_DEVICE_NAME} characters without control characters`
		);
	}
	return name;
}

export function validateJoin(body: Record<string, unknown>): { token: string; name?: string } {
	checkFields(body, ['token', 'name']);
	const token = body.token;
	if (typeof token !== 'string' || token.length === 0 || token.length > 200) {
		throw badRequest("Field 'token' must be the token of the join link (a text)");
	}
	return body.name === undefined ? { token } : { token, name: deviceName(body.name) };
}

export function validateDeviceRename(body: Record<string, unknown>): { name: string } {
	checkFields(body, ['name']);
	if (!('name' in body)) throw badRequest("Request body has nothing to update; send 'name'");
	return { name: deviceName(body.name) };
}

export const JOIN_LINK_LIMITS = { maxUses: 1000, maxHours: 720, maxRings: 100 } as const;

/**
 * A join link request: `role` (required), `rings` (stewards only: ring ids, or null/absent for
 * every ring), `uses` and `hours` (defaults applied by the store). `ringExists` checks each id.
 */
export function validateJoinLinkRequest(
	body: Record<string, unknown>,
	ringExists: (id: number) => boolean
): JoinLinkRequest {
	checkFields(body, ['role', 'rings', 'uses', 'hours']);
	const role = body.role;
	if (typeof role !== 'string' || !ROLES.includes(role as Role)) {
		throw badRequest(`Field 'role' must be one of ${ROLES.join(', ')}`);
	}
	const out: JoinLinkRequest = { role: role as Role, rings: null };
	const rings = body.rings;
	if (rings !== undefined && rings !== null) {
		if (role !== 'steward') {
			throw badRequest(
				"Field 'rings' applies to ring stewards only; leave it out for a secretary or a viewer"
			);
		}
		if (
			!Array.isArray(rings) ||
			rings.length === 0 ||
			rings.length > JOIN_LINK_LIMITS.maxRings ||
			!rings.every((r) => typeof r === 'number' && Number.isSafeInteger(r) && r > 0)
		) {
			throw badRequest(
				`Field 'rings' must list 1 to ${JOIN_LINK_LIMITS.maxRings} ring ids, or be null for every ring`
			);
		}
		const ids = [...new Set(rings as number[])].sort((a, b) => a - b);
		const unknown = ids.find((id) => !ringExists(id));
		if (unknown !== undefined) throw badRequest(`Field 'rings': ring ${unknown} does not exist`);
		out.rings = ids;
	}
	if (body.uses !== undefined) {
		const uses = body.uses;
		if (
			typeof uses !== 'number' ||
			!Number.isInteger(uses) ||
			uses < 1 ||
			uses > JOIN_LINK_LIMITS.maxUses
		) {
			throw badRequest(`Field 'uses' must be an integer from 1 to ${JOIN_LINK_LIMITS.maxUses}`);
		}
		out.uses = uses;
	}
	if (body.hours !== undefined) {
		const hours = body.hours;
		if (
			typeof hours !== 'number' ||
			!Number.isFinite(hours) ||
			hours <= 0 ||
			hours > JOIN_LINK_LIMITS.maxHours
		) {
			throw badRequest(
				`Field 'hours' must be a number of hours greater than 0 and at most ${JOIN_LINK_LIMITS.maxHours}`
			);
		}
		out.hours = hours;
	}
	return out;
}
