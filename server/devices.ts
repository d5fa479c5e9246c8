// Devices and join links, the storage layer of "who may write" (auth.ts is the policy): all SQL of
// the `device` and `join_token` tables, the secrets and their hashes. A join token and a device
// credential are random and shown once; only their SHA-256 is stored. No HTTP and no words here:
// a failed join is a JoinError with a code, put into words at the edge.
import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { DB } from './db.ts';

export const ROLES = ['secretary', 'steward', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** A joined device as the secretary sees it (never its credential). */
export interface Device {
	id: number;
	name: string;
	role: Role;
	/** The rings a steward may write; null: every ring (and for other roles). */
	rings: number[] | null;
	joinedAt: string;
	lastSeenAt: string | null;
	lastAddress: string | null;
	revokedAt: string | null;
}

/** What a join link gives; validated before it reaches the store (routes/devices.ts). */
export interface JoinLinkRequest {
	role: Role;
	rings?: number[] | null;
	/** How many devices may join with it (default 10). */
	uses?: number;
	/** How long it is valid, in hours (default 12). */
	hours?: number;
}

export interface JoinLink {
	/** The secret of the link; shown once, stored hashed. */
	token: string;
	role: Role;
	rings: number[] | null;
	usesLeft: number;
	expiresAt: string;
}

export const JOIN_LINK_DEFAULTS = { uses: 10, hours: 12 } as const;

/** A device's lastSeenAt and lastAddress are written at most this often. */
export const SEEN_INTERVAL_MS = 30_000;

/** Bytes of randomness of a device credential (43 base64url characters) and a join token. */
const CREDENTIAL_BYTES = 32;
const TOKEN_BYTES = 16;

export type JoinFailure = 'join-token-unknown' | 'join-token-expired' | 'join-token-used-up';

export class JoinError extends Error {
	readonly code: JoinFailure;

	constructor(code: JoinFailure) {
		super(code);
		this.name = 'JoinError';
		this.code = code;
	}
}

export const sha256 = (secret: string): string =>
	createHash('sha256').update(secret, 'utf8').digest('hex');

const newSecret = (bytes: number): string => randomBytes(bytes).toString('base64url');

/** A default name, until the secretary gives one: "Ring steward 4". */
const DEFAULT_NAMES: Record<Role, string> = {
	secretary: 'Secretary',
	steward: 'Ring steward',
	viewer: 'Viewer'
};

interface DeviceRow {
	id: number;
	name: string;
	role: Role;
	rings: string | null;
	joined_at: string;
	last_seen_at: string | null;
	last_address: string | null;
	revoked_at: string | null;
}

interface TokenRow {
	id: number;
	role: Role;
	rings: string | null;
	uses_left: number;
	expires_at: string;
}

const DEVICE_COLUMNS = 'id, name, role, rings, joined_at, last_seen_at, last_address, revoked_at';

const parseRings = (text: string | null): number[] | null =>
	text === null ? null : (JSON.parse(text) as number[]);

function toDevice(r: DeviceRow): Device {
	return {
		id: r.id,
		name: r.name,
		role: r.role,
		rings: parseRings(r.rings),
		joinedAt: r.joined_at,
		lastSeenAt: r.last_seen_at,
		lastAddress: r.last_address,
		revokedAt: r.revoked_at
	};
}

export class DeviceStore {
	readonly #db: DB;
	readonly #now: () => number;
	readonly #s: Record<string, Database.Statement>;
	/** When each device's lastSeenAt was last written (ms), so that reads do not write. */
	readonly #seenWritten = new Map<number, number>();

	constructor(db: DB, now: () => number = Date.now) {
		this.#db = db;
		this.#now = now;
		const p = (sql: string): Database.Statement => db.prepare(sql);
		this.#s = {
			insertToken: p(
				`INSERT INTO join_token (token_hash, role, rings, uses_left, expires_at, created_at)
				 VALUES (?, ?, ?, ?, ?, ?)`
			),
			token: p(
				'SELECT id, role, rings, uses_left, expires_at FROM join_token WHERE token_hash = ?'
			),
			useToken: p('UPDATE join_token SET uses_left = uses_left - 1 WHERE id = ?'),
			insertDevice: p(
				`INSERT INTO device (name, role, rings, credential_hash, join_token_id, joined_at,
				   last_seen_at, last_address)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
			),
			byCredential: p(`SELECT ${DEVICE_COLUMNS} FROM device WHERE credential_hash = ?`),
			device: p(`SELECT ${DEVICE_COLUMNS} FROM device WHERE id = ?`),
			list: p(`SELECT ${DEVICE_COLUMNS} FROM device ORDER BY id`),
			rename: p('UPDATE device SET name = ? WHERE id = ?'),
			revoke: p('UPDATE device SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
			activeSecretaries: p(
				"SELECT COUNT(*) AS n FROM device WHERE role = 'secretary' AND revoked_at IS NULL"
			),
			seen: p('UPDATE device SET last_seen_at = ?, last_address = ? WHERE id = ?')
		};
	}

	#st(name: string): Database.Statement {
		const s = this.#s[name];
		if (!s) throw new Error(`No statement ${name}`);
		return s;
	}

	#iso(ms = this.#now()): string {
		return new Date(ms).toISOString();
	}

	/** Makes a join link (the request is validated by the caller). */
	createJoinLink(req: JoinLinkRequest): JoinLink {
		const token = newSecret(TOKEN_BYTES);
		const rings = req.role === 'steward' ? (req.rings ?? null) : null;
		const usesLeft = req.uses ?? JOIN_LINK_DEFAULTS.uses;
		const now = this.#now();
		const expiresAt = this.#iso(now + (req.hours ?? JOIN_LINK_DEFAULTS.hours) * 3_600_000);
		this.#st('insertToken').run(
			sha256(token),
			req.role,
			rings === null ? null : JSON.stringify(rings),
			usesLeft,
			expiresAt,
			this.#iso(now)
		);
		return { token, role: req.role, rings, usesLeft, expiresAt };
	}

	/**
	 * Joins a device with a join token: one use of the token, a new device with its role and
	 * rings, and its credential (returned once). Throws JoinError for a token that is unknown,
	 * expired or used up.
	 */
	join(
		token: string,
		name: string | undefined,
		address: string
	): { device: Device; credential: string } {
		return this.#db.transaction(() => {
			const t = this.#st('token').get(sha256(token)) as TokenRow | undefined;
			if (!t) throw new JoinError('join-token-unknown');
			const now = this.#now();
			if (Date.parse(t.expires_at) <= now) throw new JoinError('join-token-expired');
			if (t.uses_left <= 0) throw new JoinError('join-token-used-up');
			this.#st('useToken').run(t.id);
			const credential = newSecret(CREDENTIAL_BYTES);
			const at = this.#iso(now);
			const { lastInsertRowid } = this.#st('insertDevice').run(
				name ?? '',
				t.role,
				t.rings,
				sha256(credential),
				t.id,
				at,
				at,
				address
			);
			const id = Number(lastInsertRowid);
			if (name === undefined) this.#st('rename').run(`${DEFAULT_NAMES[t.role]} ${id}`, id);
			this.#seenWritten.set(id, now);
			const device = this.device(id);
			if (!device) throw new Error(`device ${id} vanished`);
			return { device, credential };
		})();
	}

	/** The device a credential belongs to, revoked ones too; undefined: none. */
	byCredential(credential: string): Device | undefined {
		const row = this.#st('byCredential').get(sha256(credential)) as DeviceRow | undefined;
		return row && toDevice(row);
	}

	device(id: number): Device | undefined {
		const row = this.#st('device').get(id) as DeviceRow | undefined;
		return row && toDevice(row);
	}

	/** Every device that joined, revoked ones too, in the order they joined. */
	list(): Device[] {
		return (this.#st('list').all() as DeviceRow[]).map(toDevice);
	}

	rename(id: number, name: string): Device | undefined {
		this.#st('rename').run(name, id);
		return this.device(id);
	}

	/** Revokes a device (its row stays, with revokedAt); a revoked one keeps its first revokedAt. */
	revoke(id: number): Device | undefined {
		this.#st('revoke').run(this.#iso(), id);
		return this.device(id);
	}

	/** Secretary devices that are not revoked. */
	activeSecretaries(): number {
		return (this.#st('activeSecretaries').get() as { n: number }).n;
	}

	/**
	 * Notes that `device` was seen from `address`: written at most every SEEN_INTERVAL_MS per
	 * device, so that reads (a board polls every few seconds) do not each write to the database.
	 */
	seen(device: Device, address: string): void {
		const now = this.#now();
		const last =
			this.#seenWritten.get(device.id) ??
			(device.lastSeenAt === null ? -Infinity : Date.parse(device.lastSeenAt));
		if (now - last < SEEN_INTERVAL_MS) return;
		this.#seenWritten.set(device.id, now);
		this.#st('seen').run(this.#iso(now), address, device.id);
	}
}
