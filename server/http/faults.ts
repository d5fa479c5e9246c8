// Fault injection for chaos tests of the app (off unless configured). Applies to /api only.

export interface FaultOptions {
	/** 0..1: answer 503 with the error object and `Retry-After: 1`; nothing is handled. */
	error503Rate?: number;
	/**
	 * 0..1: destroy the socket without answering (a connection reset). Half of the resets happen
	 * before the request is handled (nothing applied), half after it was handled (a PUT is applied
	 * and its answer is lost).
	 */
	resetRate?: number;
	/** Random delay [min, max] in ms before the request is handled. */
	delayMs?: [number, number];
	/** Every /api request's socket is destroyed at once, as if the service were down. */
	unreachable?: boolean;
	/** Source of randomness in [0, 1) (default Math.random); for tests and reproducible runs. */
	random?: () => number;
}

export interface FaultCounts {
	/** Requests answered 503. */
	error503: number;
	/** Connections reset before the request was handled. */
	resetBefore: number;
	/** Connections reset after the request was handled (the answer was lost). */
	resetAfter: number;
	/** Requests delayed by more than 0 ms. */
	delayed: number;
	/** Requests dropped because the service was set unreachable. */
	unreachable: number;
}

/** What happens to one /api request, decided before it is handled. */
export type FaultKind = 'none' | 'unreachable' | '503' | 'reset-before' | 'reset-after';

export interface FaultDecision {
	kind: FaultKind;
	delayMs: number;
}

/**
 * Value of put_log.fault: '503', 'unreachable' and 'reset-before' were not handled (nothing
 * applied); 'reset-after-apply' was applied (status 200) and its answer lost; 'reset-after' was
 * handled without a change (e.g. a 400) and its answer lost.
 */
export type PutLogFault =
	'503' | 'unreachable' | 'reset-before' | 'reset-after' | 'reset-after-apply';

export const zeroFaultCounts = (): FaultCounts => ({
	error503: 0,
	resetBefore: 0,
	resetAfter: 0,
	delayed: 0,
	unreachable: 0
});

function checkRate(name: string, value: number | undefined): void {
	if (value === undefined) return;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
		throw new Error(`Fault option ${name} must be a number from 0 to 1, got ${String(value)}`);
	}
}

/** Throws on rates outside 0..1 or a delay range that is not 0 <= min <= max. */
export function validateFaults(f: FaultOptions): void {
	checkRate('error503Rate', f.error503Rate);
	checkRate('resetRate', f.resetRate);
	if (f.delayMs !== undefined) {
		const [min, max] = f.delayMs;
		if (!Number.isFinite(min) || !Number.isFinite(max) || min < 0 || max < min) {
			throw new Error(`Fault option delayMs must be [min, max] with 0 <= min <= max`);
		}
	}
}

/**
 * Decides the fault of one request. Draws from `random`, in this order and only for the options
 * that are set: 503 (one draw), reset (one draw, then one for the flavour: < 0.5 before, else
 * after), delay (one draw, min + u * (max - min), rounded).
 */
export function decideFault(f: FaultOptions | null): FaultDecision {
	if (!f) return { kind: 'none', delayMs: 0 };
	if (f.unreachable) return { kind: 'unreachable', delayMs: 0 };
	const random = f.random ?? Math.random;
	let kind: FaultKind = 'none';
	const r503 = f.error503Rate ?? 0;
	const rReset = f.resetRate ?? 0;
	if (r503 > 0 && random() < r503) kind = '503';
	else if (rReset > 0 && random() < rReset) {
		kind = random() < 0.5 ? 'reset-before' : 'reset-after';
	}
	let delayMs = 0;
	if (f.delayMs !== undefined && f.delayMs[1] > 0) {
		const [min, max] = f.delayMs;
		delayMs = Math.round(min + random() * (max - min));
	}
	return { kind, delayMs };
}

/** Parses the CLI form of a delay: `300` or `0-300` (ms). */
export function parseDelayRange(text: string): [number, number] | null {
	const m = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text);
	if (!m) return null;
	const min = Number(m[1]);
	const max = m[2] === undefined ? min : Number(m[2]);
	return max >= min ? [min, max] : null;
}

export function describeFaults(f: FaultOptions): string {
	const parts: string[] = [];
	if (f.unreachable) parts.push('unreachable');
	if (f.error503Rate) parts.push(`503 ${Math.round(f.error503Rate * 1000) / 10} %`);
	if (f.resetRate) parts.push(`reset ${Math.round(f.resetRate * 1000) / 10} %`);
	if (f.delayMs && f.delayMs[1] > 0) parts.push(`delay ${f.delayMs[0]}-${f.delayMs[1]} ms`);
	return parts.length ? parts.join(', ') : 'none';
}
