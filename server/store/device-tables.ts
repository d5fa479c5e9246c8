// The statements of the `device` and `join_token` tables (server/devices/devices.ts runs them:
// joining, devices and their credentials, join links) and the rows they answer. Only hashes of
// secrets are stored.

export const ROLES = ['secretary', 'steward', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface DeviceRow {
	id: number;
	name: string;
	role: Role;
	rings: string | null;
	joined_at: string;
	last_seen_at: string | null;
	last_address: string | null;
	revoked_at: string | null;
}

export interface TokenRow {
	id: number;
	role: Role;
	rings: string | null;
	uses_left: number;
	expires_at: string;
	withdrawn_at: string | null;
}

export interface TokenListRow extends TokenRow {
	created_at: string;
}

const DEVICE_COLUMNS = 'id, name, role, rings, joined_at, last_seen_at, last_address, revoked_at';

export const DEVICE_SQL = {
	insertToken: `INSERT INTO join_token (token_hash, role, rings, uses_left, expires_at, created_at)
		VALUES (@hash, @role, @rings, @uses, @expiresAt, @createdAt) RETURNING id`,
	token: `SELECT id, role, rings, uses_left, expires_at, withdrawn_at FROM join_token
		WHERE token_hash = @hash`,
	tokens: `SELECT id, role, rings, uses_left, expires_at, withdrawn_at, created_at FROM join_token
		ORDER BY id DESC`,
	tokenById: `SELECT id, role, rings, uses_left, expires_at, withdrawn_at, created_at
		FROM join_token WHERE id = @id`,
	withdrawToken: 'UPDATE join_token SET withdrawn_at = @at WHERE id = @id AND withdrawn_at IS NULL',
	// Conditional: two joins with the last use of a link on two instances cannot both succeed.
	useToken: 'UPDATE join_token SET uses_left = uses_left - 1 WHERE id = @id AND uses_left > 0',
	insertDevice: `INSERT INTO device (name, role, rings, credential_hash, join_token_id, joined_at,
		  last_seen_at, last_address)
		VALUES (@name, @role, @rings, @hash, @tokenId, @at, @at, @address) RETURNING id`,
	byCredential: `SELECT ${DEVICE_COLUMNS} FROM device WHERE credential_hash = @hash`,
	device: `SELECT ${DEVICE_COLUMNS} FROM device WHERE id = @id`,
	revokedAt: 'SELECT revoked_at FROM device WHERE id = @id',
	list: `SELECT ${DEVICE_COLUMNS} FROM device ORDER BY id`,
	rename: 'UPDATE device SET name = @name WHERE id = @id',
	revoke: 'UPDATE device SET revoked_at = @at WHERE id = @id AND revoked_at IS NULL',
	activeSecretaries:
		"SELECT COUNT(*) AS n FROM device WHERE role = 'secretary' AND revoked_at IS NULL",
	seen: 'UPDATE device SET last_seen_at = @at, last_address = @address WHERE id = @id'
} as const;
