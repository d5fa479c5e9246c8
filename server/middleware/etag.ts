// ETags and If-Match (on with the `etag` option): the tag of each resource version, the ETag
// header of an answer, and the 412 of a PUT whose If-Match names another version.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors.ts';
import type { DogRunRow, RunRow } from '../resources.ts';

export const runEtag = (r: RunRow): string => `"competitionRun-${r.id}-${r.version}"`;
export const dogRunEtag = (d: DogRunRow): string => `"dogRun-${d.id}-${d.version}"`;

export interface Etags {
	/** The ETag header of an answer carrying `tag`; none when ETags are off. */
	header(tag: string): Record<string, string>;
	/** Throws 412 when ETags are on and the request's If-Match does not match `current`. */
	checkIfMatch(req: IncomingMessage, current: string): void;
}

export function createEtags(on: boolean): Etags {
	return {
		header: (tag): Record<string, string> => (on ? { ETag: tag } : {}),
		checkIfMatch(req, current) {
			const ifMatch = req.headers['if-match'];
			if (on && ifMatch && !etagMatches(ifMatch, current)) {
				throw new HttpError(
					412,
					`If-Match ${ifMatch} does not match the current version ${current}`
				);
			}
		}
	};
}

function etagMatches(header: string, current: string): boolean {
	const trimmed = header.trim();
	if (trimmed === '*') return true;
	return trimmed
		.split(',')
		.map((t) => t.trim().replace(/^W\//, ''))
		.some((t) => t === current);
}
