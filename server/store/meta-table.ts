// The meta table: named values of the database as a whole, one text each (the seed's size and
// date, the feed's epoch; in mirror mode the upstream it mirrors and when it was imported).
import type { Sql } from './sql.ts';

const SQL = {
	value: 'SELECT value FROM meta WHERE key = @key',
	set: `INSERT INTO meta (key, value) VALUES (@key, @value)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`
} as const;

/** The value of `key`, or undefined. */
export async function metaValue(sql: Sql, key: string): Promise<string | undefined> {
	return (await sql.get<{ value: string }>(SQL.value, { key }))?.value;
}

/** Sets `key` to `value`, over what it held. */
export async function setMetaValue(sql: Sql, key: string, value: string): Promise<void> {
	await sql.run(SQL.set, { key, value });
}
