// Devices and join links, the storage layer of "who may write" (auth.ts is the policy): the
// `device` and `join_token` tables through their statements (store/device-tables.ts), the secrets
// and their hashes. A join token and a device
// credential are random and shown once; only their SHA-256 is stored. No HTTP and no words here:
// a failed join is a JoinError with a code, put into words at the edge.
//
// Long because it is every operation of two tables (devices, join links: create, join, list,
// rename, revoke, withdraw), kept in one place so that no other file writes them.
import { createHash, randomBytes } from 'node:crypto';
import {
	DEVICE_SQL,
	ROLES,
	type DeviceRow,
	type Role,
	type TokenListRow,
	type TokenRow
} from '../store/device-tables.ts';
import type { Sql } from '../store/sql.ts';
import type { Store } from '../store/store.ts';

export { ROLES, type Role };

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

/** The lock (store.lock) under which secretaries are counted and revoked. */
const DEVICES_LOCK = 1;

/** Bytes of randomness of a device credential (43 base64url characters) and a join token. */
const CREDENTIAL_BYTES = 32;
const TOKEN_BYTES = 16;

export type JoinFailure =
	'join-token-unknown' | 'join-token-expired' | 'join-token-used-up' | 'join-token-withdrawn';

/** A join link as the secretary's list shows it (never its token, which is not stored). */
export interface JoinLinkEntry {
	id: number;
	role: Role;
	rings: number[] | null;
	usesLeft: number;
	expiresAt: string;
	createdAt: string;
	withdrawnAt: string | null;
	/** Whether a device can join with it now, else why not. */
	state: 'active' | 'expired' | 'used-up' | 'withdrawn';
}

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
	readonly #store: Store;
	readonly #now: () => number;
	/** When each device's lastSeenAt was last written (ms), so that reads do not write. */
	readonly #seenWritten = new Map<number, number>();
	/** Join links made by `createJoinLink` whose rows are being written. */
	readonly #pending = new Set<Promise<unknown>>();

	constructor(store: Store, now: () => number = Date.now) {
		this.#store = store;
		this.#now = now;
	}

	#iso(ms = this.#now()): string {
		return new Date(ms).toISOString();
	}

	/**
	 * Makes a join link (the request is validated by the caller). The link is returned at once
	 * (the start-up prints it); its row is written (in `sql`, a transaction of the caller's, or on
	 * its own) before this instance handles any join (`join` waits for it), and `saved` resolves
	 * once it is written, with the link's id.
	 */
	createJoinLink(
		req: JoinLinkRequest,
		sql: Sql = this.#store.sql
	): JoinLink & { saved: Promise<number> } {
		const token = newSecret(TOKEN_BYTES);
		const rings = req.role === 'steward' ? (req.rings ?? null) : null;
		const usesLeft = req.uses ?? JOIN_LINK_DEFAULTS.uses;
		const now = this.#now();
		const expiresAt = this.#iso(now + (req.hours ?? JOIN_LINK_DEFAULTS.hours) * 3_600_000);
		const saved = sql
			.get<{ id: number }>(DEVICE_SQL.insertToken, {
				hash: sha256(token),
				role: req.role,
				rings: rings === null ? null : JSON.stringify(rings),
				uses: usesLeft,
				expiresAt,
				createdAt: this.#iso(now)
			})
			.then((row) => Number(row?.id));
		this.#pending.add(saved);
		const settle = (): void => {
			this.#pending.delete(saved);
		};
		saved.then(settle, settle);
		return { token, role: req.role, rings, usesLeft, expiresAt, saved };
	}

	/**
	 * Joins a device with a join token: one use of the token, a new device with its role and
	 * rings, and its credential (returned once). Throws JoinError for a token that is unknown,
	 * expired or used up.
	 */
	async join(
		token: string,
		name: string | undefined,
		address: string
	): Promise<{ device: Device; credential: string }> {
		await Promise.allSettled([...this.#pending]);
		// A token that cannot join is refused on a read, without taking the write lock (a flood of
		// bad tokens must not queue behind, or in front of, the stewards' writes).
		this.#check(await this.#store.sql.get<TokenRow>(DEVICE_SQL.token, { hash: sha256(token) }));
		const joined = await this.#store.write(async (sql) => {
			const t = this.#check(await sql.get<TokenRow>(DEVICE_SQL.token, { hash: sha256(token) }));
			const now = this.#now();
			const used = await sql.run(DEVICE_SQL.useToken, { id: t.id });
			if (used.changes !== 1) throw new JoinError('join-token-used-up');
			const credential = newSecret(CREDENTIAL_BYTES);
			const at = this.#iso(now);
			const row = await sql.get<{ id: number }>(DEVICE_SQL.insertDevice, {
				name: name ?? '',
				role: t.role,
				rings: t.rings,
				hash: sha256(credential),
				tokenId: t.id,
				at,
				address
			});
			const id = Number(row?.id);
			if (name === undefined) {
				await sql.run(DEVICE_SQL.rename, { name: `${DEFAULT_NAMES[t.role]} ${id}`, id });
			}
			const device = await this.#device(sql, id);
			if (!device) throw new Error(`device ${id} vanished`);
			return { device, credential, now };
		});
		this.#seenWritten.set(joined.device.id, joined.now);
		return { device: joined.device, credential: joined.credential };
	}

	/** The token row if a device may join with it now; else throws the JoinError of why not. */
	#check(t: TokenRow | undefined): TokenRow {
		if (!t) throw new JoinError('join-token-unknown');
		if (t.withdrawn_at !== null) throw new JoinError('join-token-withdrawn');
		if (Date.parse(t.expires_at) <= this.#now()) throw new JoinError('join-token-expired');
		if (t.uses_left <= 0) throw new JoinError('join-token-used-up');
		return t;
	}

	#entry(r: TokenListRow): JoinLinkEntry {
		const state: JoinLinkEntry['state'] =
			r.withdrawn_at !== null
				? 'withdrawn'
				: r.uses_left <= 0
					? 'used-up'
					: Date.parse(r.expires_at) <= this.#now()
						? 'expired'
						: 'active';
		return {
			id: r.id,
			role: r.role,
			rings: parseRings(r.rings),
			usesLeft: r.uses_left,
			expiresAt: r.expires_at,
			createdAt: r.created_at,
			withdrawnAt: r.withdrawn_at,
			state
		};
	}

	/** Every join link made, the newest first. */
	async joinLinks(): Promise<JoinLinkEntry[]> {
		await Promise.allSettled([...this.#pending]);
		return (await this.#store.sql.all<TokenListRow>(DEVICE_SQL.tokens)).map((r) => this.#entry(r));
	}

	async joinLink(id: number, sql: Sql = this.#store.sql): Promise<JoinLinkEntry | undefined> {
		const row = await sql.get<TokenListRow>(DEVICE_SQL.tokenById, { id });
		return row && this.#entry(row);
	}

	/** Withdraws a join link (in the caller's transaction): nobody joins with it any more. */
	async withdrawJoinLink(sql: Sql, id: number): Promise<JoinLinkEntry | undefined> {
		await sql.run(DEVICE_SQL.withdrawToken, { at: this.#iso(), id });
		return this.joinLink(id, sql);
	}

	async #device(sql: Sql, id: number): Promise<Device | undefined> {
		const row = await sql.get<DeviceRow>(DEVICE_SQL.device, { id });
		return row && toDevice(row);
	}

	/** The device a credential belongs to, revoked ones too; undefined: none. */
	async byCredential(credential: string): Promise<Device | undefined> {
		const row = await this.#store.sql.get<DeviceRow>(DEVICE_SQL.byCredential, {
			hash: sha256(credential)
		});
		return row && toDevice(row);
	}

	device(id: number): Promise<Device | undefined> {
		return this.#device(this.#store.sql, id);
	}

	/** Whether the device `id` is revoked (or unknown), read in `sql` (a transaction). */
	async isRevoked(sql: Sql, id: number): Promise<boolean> {
		const row = await sql.get<{ revoked_at: string | null }>(DEVICE_SQL.revokedAt, { id });
		return !row || row.revoked_at !== null;
	}

	/** Every device that joined, revoked ones too, in the order they joined. */
	async list(): Promise<Device[]> {
		return (await this.#store.sql.all<DeviceRow>(DEVICE_SQL.list)).map(toDevice);
	}

	/** Renames a device (in the caller's transaction `sql`). */
	async rename(sql: Sql, id: number, name: string): Promise<Device | undefined> {
		await sql.run(DEVICE_SQL.rename, { name, id });
		return this.#device(sql, id);
	}

	/** Revokes a device (its row stays, with revokedAt); a revoked one keeps its first revokedAt. */
	async revoke(sql: Sql, id: number): Promise<Device | undefined> {
		await sql.run(DEVICE_SQL.revoke, { at: this.#iso(), id });
		return this.#device(sql, id);
	}

	/**
	 * Secretary devices that are not revoked. `lock`: in a revocation's transaction `sql`, first
	 * takes the devices' lock of the store, so that revocations are counted one at a time.
	 */
	async activeSecretaries(sql: Sql = this.#store.sql, lock = false): Promise<number> {
		if (lock) await this.#store.lock(sql, DEVICES_LOCK);
		const row = await sql.get<{ n: number | string }>(DEVICE_SQL.activeSecretaries);
		return Number(row?.n ?? 0);
	}

	/**
	 * Notes that `device` was seen from `address`: written at most every SEEN_INTERVAL_MS per
	 * device, so that reads (a board polls every few seconds) do not each write to the database.
	 */
	async seen(device: Device, address: string): Promise<void> {
		const now = this.#now();
		const last =
			this.#seenWritten.get(device.id) ??
			(device.lastSeenAt === null ? -Infinity : Date.parse(device.lastSeenAt));
		if (now - last < SEEN_INTERVAL_MS) return;
		this.#seenWritten.set(device.id, now);
		await this.#store.sql.run(DEVICE_SQL.seen, { at: this.#iso(now), address, id: device.id });
	}
}
