// A new empty database on the postgres project's throw-away cluster (global-setup.ts provides
// `pgUrl`), for the tests and the engine setup.
import pg from 'pg';
import { inject } from 'vitest';

let created = 0;

/** Creates `<prefix>_<pid>_<n>` and answers its URL. */
export async function newDatabase(prefix: string): Promise<string> {
	const admin = inject('pgUrl');
	const name = `${prefix}_${process.pid}_${++created}`;
	const client = new pg.Client({ connectionString: admin });
	await client.connect();
	try {
		await client.query(`CREATE DATABASE ${name}`);
	} finally {
		await client.end();
	}
	return admin.replace(/\/postgres$/, `/${name}`);
}
