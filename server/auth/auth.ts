// Who may do what, the policy over devices.ts (docs/service.md, "Devices and roles"): the auth
// mode, the caller of each /api request (identified by its device credential, sent as
// `Authorization: Bearer …`), and the checks the router makes. Each refusal is an HttpError with
// a code; the words for every code are in MESSAGES, the one place they live.
//
// Long because the policy is one closure (createAuth) over its state, the failure budget and the
// streams to close on a revocation, with the words of its refusals beside it.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../http/errors.ts';
import { apiBase } from '../http/hal.ts';
import { limitKey } from '../http/client-address.ts';
import { clientAddress, type Exchange } from '../middleware/exchange.ts';
import {
	ROLES,
	type Device,
	type DeviceStore,
	type JoinFailure,
	type Role
} from '../devices/devices.ts';
import type { Sql } from '../store/sql.ts';

export { ROLES, type Role };

export const AUTH_MODES = ['required', 'open'] as const;
/** `required`: device credentials and roles; `open`: every caller acts as secretary. */
export type AuthMode = (typeof AUTH_MODES)[number];

/** Whom an answer is for: the event's staff, or the public (a viewer, an open read). */
export type Audience = 'staff' | 'public';

/**
 * What a route's method asks of its caller: `public` nothing (joining), `read` a credential
 * unless reads are open, `member` any valid credential, `write` a role that records results
 * (secretary or steward; the steward's rings are checked with the resource), `secretary` the
 * secretary.
 */
export type Access = 'public' | 'read' | 'member' | 'write' | 'secretary';

type CredentialFailure =
	'credential-missing' | 'credential-malformed' | 'credential-unknown' | 'credential-revoked';

export type AuthCode =
	| CredentialFailure
	| JoinFailure
	| 'read-only'
	| 'ring-not-assigned'
	| 'secretary-only'
	| 'last-secretary'
	| 'too-many-failures';

/** The caller of one request, as its credential identifies it. */
export interface Caller {
	/** The device whose valid credential came with the request; null: none. */
	device: Device | null;
	/** The role the request acts with: the device's in required mode; null in open mode or without a device. */
	role: Role | null;
	/** Why the credential that came with the request is not valid; null: none came, or it is. */
	refused: CredentialFailure | null;
}

interface MessageDetail {
	role?: Role;
	rings?: string;
	ring?: string;
}

const ROLE_NAMES: Record<Role, string> = {
	secretary: 'the ring secretary',
	steward: 'a ring steward',
	viewer: 'a viewer'
};

/** The words of every code (the edge of the service: what a steward or the app shows). */
const MESSAGES: Record<AuthCode, (d: MessageDetail) => string> = {
	'credential-missing': () =>
		'This service needs a device credential: join this device with the link or QR code from the ring secretary',
	'credential-malformed': () =>
		"Send the device credential as 'Authorization: Bearer <credential>'; join this device with a link from the ring secretary to get one",
	'credential-unknown': () =>
		'This device credential is not known to this service; join again with a link from the ring secretary',
	'credential-revoked': () =>
		'This device was removed by the ring secretary; join again with a new link',
	'join-token-unknown': () => 'This join link is not valid; ask the ring secretary for a new one',
	'join-token-expired': () => 'This join link has expired; ask the ring secretary for a new one',
	'join-token-used-up': () =>
		'This join link has been used up; ask the ring secretary for a new one',
	'join-token-withdrawn': () =>
		'This join link was withdrawn by the ring secretary; ask the ring secretary for a new one',
	'too-many-failures': () =>
		'Too many failed joins or unknown credentials from this address; wait a moment and try again',
	'read-only': () => 'This device is a viewer: it may read results but not record them',
	'ring-not-assigned': ({ rings, ring }) =>
		`This device is a ring steward for ${rings ?? 'other rings'}; this run is in ${ring ?? 'another ring'}`,
	'secretary-only': ({ role }) =>
		`Only the ring secretary may manage devices and join links; this device is ${ROLE_NAMES[role ?? 'viewer']}`,
	'last-secretary': () =>
		'This is the last secretary device: join another secretary device before removing this one'
};

export const authMessage = (code: AuthCode, detail: MessageDetail = {}): string =>
	MESSAGES[code](detail);

const REALM = 'Bearer realm="ringside"';

/** "Ring 1", "Ring 1 and Ring 2", "Ring 1, Ring 2 and Ring 3". */
function listNames(names: string[]): string {
	if (names.length <= 1) return names[0] ?? '';
	return `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/** Whether every address the service listens on is a loopback address. */
export function isLoopbackHost(host: string): boolean {
	const h = host
		.trim()
		.toLowerCase()
		.replace(/^\[|\]$/g, '');
	return (
		h === 'localhost' ||
		h === '::1' ||
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
		/^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
	);
}

/** The app's join address on `origin` (scheme://host[/prefix]); the token is in the fragment. */
export const joinUrl = (origin: string, token: string): string => `${origin}/join#t=${token}`;

/** The join link of the API as the client reached it (for a 401's `_links.join`). */
const joinHrefOf = (req: IncomingMessage): string => `${apiBase(req)}/devices/join`;

export interface Auth {
	readonly mode: AuthMode;
	readonly openReads: boolean;
	readonly store: DeviceStore;
	/**
	 * Identifies the caller by its credential (notes when the device was seen, without waiting
	 * for that write). Rejects only with the 429 of an address past its failure budget, for a
	 * credential that is malformed, or unknown or revoked once looked up.
	 */
	identify(ex: Exchange): Promise<Caller>;
	/** Throws 401 or 403 unless `caller` may call a method that asks `access`. */
	authorize(ex: Exchange, caller: Caller, access: Access): void;
	/**
	 * For a write to a run on the ring `ringOf` gives (read only for a steward of some rings; it
	 * throws 404 when the resource does not exist): throws 403 unless the caller may write there.
	 * `ringName` names the rings in the message (qualified where a name alone is ambiguous).
	 */
	checkRing(
		caller: Caller,
		ringOf: () => Promise<{ id: number; name: string }>,
		ringName: (id: number) => Promise<string>
	): Promise<void>;
	/**
	 * In a write's transaction `sql`: throws the 401 of a revoked credential when the caller's
	 * device was revoked since its request arrived (auth required; one read by primary key).
	 */
	confirm(ex: Exchange, caller: Caller, sql: Sql): Promise<void>;
	/** Throws 403 unless the caller is the secretary or the device `id` itself. */
	checkSelfOrSecretary(caller: Caller, id: number): void;
	/** Whether the caller acts as the secretary (shown the devices link, the settings form; anyone in open mode). */
	actsAsSecretary(caller: Caller): boolean;
	/**
	 * Whom an answer is for: `public` for a viewer and, where reads are open, a reader without a
	 * credential (they see what public views show: hidden names are never sent); `staff` for
	 * the secretary and stewards, and for everyone in open mode.
	 */
	audienceOf(caller: Caller): Audience;
	/** The 401 of `code`, with WWW-Authenticate and the join link. */
	unauthorized(ex: Exchange, code: CredentialFailure | JoinFailure): HttpError;
	forbidden(code: AuthCode, detail?: MessageDetail): HttpError;
	/**
	 * Keeps an event stream of the caller's device, to be closed when the device is revoked;
	 * throws the 401 of a revoked credential when it was revoked since the request was
	 * identified (a stream registered later would not be closed).
	 */
	watchStream(caller: Caller, ex: Exchange): void;
	/** Closes the event streams of a revoked device. */
	revoked(id: number): void;
	/**
	 * Throws 429 (`too-many-failures`, Retry-After) when the request's address has used up its
	 * budget of failures (failed joins, unknown, malformed or revoked credentials).
	 */
	checkFailures(ex: Exchange): void;
	/** Counts a failure against the request's address. */
	failed(ex: Exchange): void;
}

/**
 * The budget of failures per client address (failed joins; credentials that are malformed,
 * unknown or revoked): `burst` at once, refilled at `perMinute`. Past it, the address's joins and
 * unknown credentials are answered 429 (joins before anything is read; a credential after its
 * indexed lookup, so that a good one works from a limited address, on every instance and after
 * a restart: a steward behind the same address). `false`: no limit.
 */
export interface FailureLimitOptions {
	burst?: number;
	perMinute?: number;
}

export const FAILURE_LIMIT_DEFAULTS: Required<FailureLimitOptions> = { burst: 20, perMinute: 30 };

/** Addresses whose budgets are kept (the least recently failing ones are dropped first). */
const FAILURE_LIMIT_MAX_ADDRESSES = 10_000;

interface Bucket {
	tokens: number;
	at: number;
}

function createFailureLimit(o: Required<FailureLimitOptions>, now: () => number) {
	const buckets = new Map<string, Bucket>();
	const perMs = o.perMinute / 60_000;
	const current = (address: string): Bucket | undefined => {
		const b = buckets.get(address);
		if (!b) return undefined;
		const t = now();
		b.tokens = Math.min(o.burst, b.tokens + (t - b.at) * perMs);
		b.at = t;
		if (b.tokens >= o.burst) {
			buckets.delete(address);
			return undefined;
		}
		return b;
	};
	return {
		/** Seconds to wait before the next attempt; 0: go ahead. */
		wait(address: string): number {
			const b = current(address);
			if (!b || b.tokens >= 1) return 0;
			return Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
		},
		failed(address: string): void {
			const b = current(address) ?? { tokens: o.burst, at: now() };
			b.tokens = Math.max(-o.burst, b.tokens - 1);
			buckets.delete(address);
			buckets.set(address, b);
			if (buckets.size > FAILURE_LIMIT_MAX_ADDRESSES) {
				const oldest = buckets.keys().next();
				if (!oldest.done) buckets.delete(oldest.value);
			}
		}
	};
}

export interface AuthOptions {
	mode: AuthMode;
	openReads: boolean;
	store: DeviceStore;
	logError: (line: string) => void;
	/** The budget of failures per address (default FAILURE_LIMIT_DEFAULTS; false: none). */
	failureLimit?: false | FailureLimitOptions;
	/** The clock of the failure budget (default Date.now). */
	now?: () => number;
}

export function createAuth({
	mode,
	openReads,
	store,
	logError,
	failureLimit,
	now = Date.now
}: AuthOptions): Auth {
	const limit =
		failureLimit === false
			? null
			: createFailureLimit({ ...FAILURE_LIMIT_DEFAULTS, ...failureLimit }, now);
	const tooMany = (seconds: number): HttpError =>
		new HttpError(
			429,
			authMessage('too-many-failures'),
			{ 'Retry-After': String(seconds) },
			{ code: 'too-many-failures' }
		);
	const checkFailures = (ex: Exchange): void => {
		const wait = limit?.wait(limitKey(clientAddress(ex.req))) ?? 0;
		if (wait > 0) throw tooMany(wait);
	};
	const failed = (ex: Exchange): void => limit?.failed(limitKey(clientAddress(ex.req)));
	const streams = new Map<number, Set<Exchange>>();
	/** Devices revoked while this process runs (earlier ones are refused by `identify`). */
	const revokedIds = new Set<number>();
	const unauthorized = (ex: Exchange, code: CredentialFailure | JoinFailure): HttpError =>
		new HttpError(
			401,
			authMessage(code),
			{
				// RFC 6750 3.1: a credential that came and is not valid is an invalid_token.
				'WWW-Authenticate':
					code === 'credential-unknown' || code === 'credential-revoked'
						? `${REALM}, error="invalid_token"`
						: REALM
			},
			{ code, links: { join: { href: joinHrefOf(ex.req) } } }
		);
	const forbidden = (code: AuthCode, detail: MessageDetail = {}): HttpError =>
		new HttpError(code === 'last-secretary' ? 409 : 403, authMessage(code, detail), {}, { code });

	return {
		mode,
		openReads,
		store,
		unauthorized,
		forbidden,
		checkFailures,
		failed,
		async identify(ex) {
			const header = ex.req.headers.authorization;
			if (header === undefined) return { device: null, role: null, refused: null };
			const m = /^Bearer +([A-Za-z0-9_-]{1,200}) *$/i.exec(header);
			if (!m?.[1]) {
				checkFailures(ex);
				failed(ex);
				return { device: null, role: null, refused: 'credential-malformed' };
			}
			// A well-formed credential is looked up (one indexed read), also from an address that
			// keeps failing: a device's credential is good on every instance and after a restart,
			// whatever others at its address (one venue's Wi-Fi behind one public address) sent.
			// What the limit holds back is the failures: past it, an unknown or revoked one is 429.
			const device = await store.byCredential(m[1]);
			if (!device || device.revokedAt !== null) {
				checkFailures(ex);
				failed(ex);
				const refused = device ? 'credential-revoked' : 'credential-unknown';
				return { device: null, role: null, refused };
			}
			// Only a note: a full disk or a busy database must not refuse the request.
			store.seen(device, clientAddress(ex.req)).catch((e: unknown) => {
				logError(
					JSON.stringify({ ts: new Date().toISOString(), msg: 'device seen', error: String(e) })
				);
			});
			return { device, role: mode === 'required' ? device.role : null, refused: null };
		},
		authorize(ex, caller, access) {
			if (mode === 'open' || access === 'public') return;
			if (caller.refused) throw unauthorized(ex, caller.refused);
			if (!caller.device) {
				if (access === 'read' && openReads) return;
				throw unauthorized(ex, 'credential-missing');
			}
			const role = caller.device.role;
			if (access === 'write' && role === 'viewer') throw forbidden('read-only');
			if (access === 'secretary' && role !== 'secretary')
				throw forbidden('secretary-only', { role });
		},
		async checkRing(caller, ringOf, ringName) {
			const device = caller.device;
			if (mode === 'open' || device?.role !== 'steward' || device.rings === null) return;
			const ring = await ringOf();
			if (device.rings.includes(ring.id)) return;
			const names = await Promise.all(device.rings.map(ringName));
			const here = await ringName(ring.id);
			throw forbidden('ring-not-assigned', { rings: listNames(names), ring: here });
		},
		async confirm(ex, caller, sql) {
			const device = caller.device;
			if (mode === 'open' || !device) return;
			if (await store.isRevoked(sql, device.id)) throw unauthorized(ex, 'credential-revoked');
		},
		checkSelfOrSecretary(caller, id) {
			if (mode === 'open' || caller.role === 'secretary' || caller.device?.id === id) return;
			throw forbidden('secretary-only', { role: caller.role ?? 'viewer' });
		},
		actsAsSecretary: (caller) => mode === 'open' || caller.role === 'secretary',
		audienceOf: (caller) =>
			mode === 'required' && (caller.role === null || caller.role === 'viewer')
				? 'public'
				: 'staff',
		watchStream(caller, ex) {
			const id = caller.device?.id;
			if (id === undefined) return;
			if (mode === 'required' && revokedIds.has(id)) throw unauthorized(ex, 'credential-revoked');
			let set = streams.get(id);
			if (!set) streams.set(id, (set = new Set()));
			set.add(ex);
			ex.res.once('close', () => {
				set.delete(ex);
				if (set.size === 0 && streams.get(id) === set) streams.delete(id);
			});
		},
		revoked(id) {
			revokedIds.add(id);
			const set = streams.get(id);
			streams.delete(id);
			for (const ex of set ?? []) ex.res.destroy();
		}
	};
}

/** Checks the auth options of createService (before anything is opened). */
export function checkAuthOptions(o: {
	auth?: unknown;
	openReads?: unknown;
	upstream?: string | undefined;
}): void {
	if (o.auth !== undefined && !AUTH_MODES.includes(o.auth as AuthMode)) {
		throw new Error(`auth must be ${AUTH_MODES.join(' or ')}, got '${String(o.auth)}'`);
	}
	if (o.upstream && (o.auth !== undefined || o.openReads !== undefined)) {
		throw new Error(
			'auth and openReads have no effect in proxy mode: the upstream authenticates (Authorization is forwarded)'
		);
	}
}

/**
 * The auth mode of a service listening on `host` and serving the host names `allowHosts`: open
 * when all of them are loopback, else required. A loopback service that serves another name (or
 * `*`) is reached through a reverse proxy on the same machine, by every client of that proxy.
 */
export const defaultAuthMode = (host: string, allowHosts: readonly string[] = []): AuthMode =>
	isLoopbackHost(host) && allowHosts.every((h) => h !== '*' && isLoopbackHost(h))
		? 'open'
		: 'required';
