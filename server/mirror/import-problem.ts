// Why the first start of a mirror could not copy the upstream, in words for the person starting
// the laptop's service (the HAL client's errors carry codes only).
import { ApiError } from '../../src/lib/api/errors.ts';

/** Why the upstream could not be read, in words for the person starting the laptop's service. */
export function importProblem(e: unknown, upstream: string): string {
	const lead = `Could not copy the competitions from ${upstream}`;
	const tail =
		'The first start of a mirror needs the upstream service: check its address and the internet connection, then start again.';
	if (!(e instanceof ApiError))
		return `${lead}: ${e instanceof Error ? e.message : String(e)}. ${tail}`;
	const where = e.url ? ` (${e.url})` : '';
	const why: Record<string, string> = {
		network: 'no connection to it',
		timeout: 'it did not answer in time',
		http: `it answered ${e.status ?? '?'}${e.serverMessage ? `: ${e.serverMessage}` : ''}`,
		'not-json':
			'it answered with a page that is not a results service (a wrong address, or a Wi-Fi sign-in page)',
		'invalid-json': 'its answer is not readable JSON',
		'invalid-shape': `its answer does not fit the interface${e.detail ? ` (${e.detail})` : ''}`,
		'missing-link': `a link the copy needs is missing${e.detail ? ` (${e.detail})` : ''}`,
		'foreign-origin': 'it sent the request elsewhere (a Wi-Fi sign-in page?)',
		'bad-address': 'the address is not usable'
	};
	return `${lead}: ${why[e.code] ?? e.code}${where}. ${tail}`;
}
