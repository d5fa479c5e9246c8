// Fault injection on /api requests (chaos tests; off unless configured): applies the fault that
// faults.ts decides for each request, counts what was injected, and notes faults for put_log.
import { readBody } from './body.ts';
import { sendError } from './error-answer.ts';
import { finish, resetConnection, type Exchange, type PutInfo } from './exchange.ts';
import {
	decideFault,
	validateFaults,
	zeroFaultCounts,
	type FaultCounts,
	type FaultDecision,
	type FaultOptions
} from '../http/faults.ts';
import { withSender } from './put-log.ts';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface FaultInjector {
	/** Replaces the settings; null turns faults off. Throws on invalid settings. */
	set(f: FaultOptions | null): void;
	/** How many faults were injected since the start (a copy). */
	counts(): FaultCounts;
	/** Decides the fault of one /api request (as it arrives, so a seeded dice stays reproducible). */
	decide(): FaultDecision;
	/**
	 * Applies the fault `decide` gave, before the request touches the database. Returns true when
	 * the request is finished (dropped or answered 503); false to handle it normally. A 503 is
	 * answered with the headers already set on `ex.res` (CORS) and the security headers.
	 */
	apply(ex: Exchange, decision: FaultDecision): Promise<boolean>;
}

/** `putTarget` names the resource of a PUT path, for put_log rows of requests not handled. */
export function createFaultInjector(
	initial: FaultOptions | null,
	putTarget: (pathname: string) => PutInfo
): FaultInjector {
	let faults: FaultOptions | null = null;
	const counts = zeroFaultCounts();
	const set = (f: FaultOptions | null): void => {
		if (f) validateFaults(f);
		faults = f ? { ...f } : null;
	};
	set(initial);

	async function apply(ex: Exchange, decision: FaultDecision): Promise<boolean> {
		const { req } = ex;
		if (req.method === 'PUT') ex.put = withSender(putTarget(ex.pathname), req);
		if (decision.kind === 'unreachable') {
			counts.unreachable++;
			drop(ex, 'unreachable');
			return true;
		}
		if (decision.delayMs > 0) {
			counts.delayed++;
			await sleep(decision.delayMs);
		}
		if (decision.kind === 'reset-after') {
			ex.dropAnswer = (status) => {
				counts.resetAfter++;
				ex.fault = ex.put && status >= 200 && status < 300 ? 'reset-after-apply' : 'reset-after';
				finish(ex, () => resetConnection(req));
			};
			return false;
		}
		if (decision.kind === 'none') return false;
		// 503 and reset-before: the PUT body is read for put_log only, never applied.
		let closeAfter = false;
		if (ex.put) {
			const body = await readBody(req);
			closeAfter = body.tooLarge;
			ex.put.body = body.tooLarge ? null : body.buf.toString('utf8');
			ex.put.bodyBytes = body.tooLarge ? null : body.buf.length;
		}
		if (decision.kind === '503') {
			counts.error503++;
			ex.fault = '503';
			sendError(
				ex,
				503,
				'The service is temporarily unavailable (injected fault); retry later',
				closeAfter ? { 'Retry-After': '1', Connection: 'close' } : { 'Retry-After': '1' }
			);
			return true;
		}
		counts.resetBefore++;
		drop(ex, 'reset-before');
		return true;
	}

	return {
		set,
		counts: () => ({ ...counts }),
		decide: () => decideFault(faults),
		async apply(ex, decision) {
			return (decision.kind !== 'none' || decision.delayMs > 0) && (await apply(ex, decision));
		}
	};
}

/** Resets the connection of a request that is not handled. */
function drop(ex: Exchange, fault: 'unreachable' | 'reset-before'): void {
	ex.fault = fault;
	ex.status = 0;
	finish(ex, () => resetConnection(ex.req));
}
