// The guard before every write: refused with 507 while the disk that holds the data has less free
// space than `minFreeBytes`, before anything is read or stored. A database server's disk is not
// this machine's (the store has no `dataDir`): that server refuses writes itself when full.
import { statfsSync } from 'node:fs';
import { HttpError } from '../http/errors.ts';

/** Default of `minFreeBytes`. */
export const MIN_FREE_BYTES = 200 * 1024 * 1024;

/** Throws 507 when `dataDir` has less than `minFreeBytes` free (null: nothing to guard). */
export function createDiskGuard(
	dataDir: string | null,
	minFreeBytes = MIN_FREE_BYTES,
	freeSpace: (dir: string) => number = (d) => {
		const st = statfsSync(d);
		return st.bavail * st.bsize;
	}
): () => void {
	if (dataDir === null || minFreeBytes <= 0) return () => {};
	const mib = (n: number): string => (n / 1024 / 1024).toFixed(0);
	return () => {
		let free: number;
		try {
			free = freeSpace(dataDir);
		} catch {
			return; // A file system that cannot tell: the write goes ahead.
		}
		if (free >= minFreeBytes) return;
		throw new HttpError(
			507,
			`Not enough free disk space for the results database (${mib(free)} MiB free, ${mib(minFreeBytes)} MiB needed); nothing was stored. Free some disk space and send again`
		);
	};
}
