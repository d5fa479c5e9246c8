// The read budget per client: a token bucket per client address, charged with the number of
// items each answer of the local API carried (a list page counts its items, any other read 1).
// A client whose bucket is empty gets 429 with Retry-After until it has refilled, so one heavy
// reader cannot keep the event loop busy and slow everyone's writes. Writes are not charged.
// A client that asks again while refused (it ignores Retry-After) gets its next 429s only after
// a pause (`holdMs`): answering thousands of 429s a second would cost the event loop what the
// budget saves. The first refusal is answered at once, so a client that waits as told loses
// nothing; at most `maxHeld` answers are held at a time (beyond that they go at once).
import { HttpError } from '../http/errors.ts';
import { limitKey } from '../http/client-address.ts';
import { clientAddress, type Exchange } from './exchange.ts';

export interface ReadBudgetOptions {
	/** Items a client may read per second, sustained (default 2,000). */
	perSecond?: number;
	/** Items a client may read at once after a quiet while (default 10,000). */
	burst?: number;
	/** How long a repeated refusal is held before it is answered, in ms (default 1,000). */
	holdMs?: number;
	/** Refusals held at a time (default 256). */
	maxHeld?: number;
	/** The clock, in ms (tests). */
	now?: () => number;
}

export const READ_BUDGET_DEFAULTS = {
	perSecond: 2_000,
	burst: 10_000,
	holdMs: 1_000,
	maxHeld: 256
} as const;

/** A 429 of the read budget, to be answered after `holdMs` (0: at once). */
export class BudgetRefusal extends HttpError {
	constructor(
		message: string,
		seconds: number,
		readonly holdMs: number
	) {
		super(429, message, { 'Retry-After': String(seconds) });
	}
}

/** Buckets kept before the full (idle) ones are forgotten. */
const MAX_BUCKETS = 10_000;

/**
 * Settles an admitted read: with the items it answered (at least 1 is charged), or null when it
 * failed (nothing is charged).
 */
export type Settle = (items: number | null) => void;

export interface ReadBudget {
	/**
	 * Throws 429 (Retry-After) when the client's bucket is empty. Else takes `estimate` items
	 * (what the read may answer, e.g. its page size) from the bucket at once, so that reads of
	 * the client admitted meanwhile see them, and returns the settlement, which gives back or
	 * takes the difference once the read is answered. The bucket may go below zero: the next read
	 * waits.
	 */
	admit(ex: Exchange, estimate?: number): Settle;
	/**
	 * Waits as a refusal asks (`BudgetRefusal.holdMs`), unless `maxHeld` refusals already wait;
	 * then throws it.
	 */
	refuse(refusal: BudgetRefusal): Promise<never>;
}

interface Bucket {
	tokens: number;
	at: number;
	/** Refusals since the client's last admitted read. */
	refused: number;
}

export function checkReadBudget(o: ReadBudgetOptions): void {
	for (const k of ['perSecond', 'burst'] as const) {
		const v = o[k];
		if (v !== undefined && (!Number.isFinite(v) || v <= 0)) {
			throw new Error(`readBudget.${k} must be a number > 0, got ${String(v)}`);
		}
	}
	for (const k of ['holdMs', 'maxHeld'] as const) {
		const v = o[k];
		if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
			throw new Error(`readBudget.${k} must be a whole number ≥ 0, got ${String(v)}`);
		}
	}
}

export function createReadBudget(options: ReadBudgetOptions = {}): ReadBudget {
	checkReadBudget(options);
	const perSecond = options.perSecond ?? READ_BUDGET_DEFAULTS.perSecond;
	const burst = options.burst ?? READ_BUDGET_DEFAULTS.burst;
	const holdMs = options.holdMs ?? READ_BUDGET_DEFAULTS.holdMs;
	const maxHeld = options.maxHeld ?? READ_BUDGET_DEFAULTS.maxHeld;
	const now = options.now ?? (() => performance.now());
	const buckets = new Map<string, Bucket>();
	let held = 0;

	const bucketOf = (key: string): Bucket => {
		const t = now();
		let b = buckets.get(key);
		if (!b) {
			if (buckets.size >= MAX_BUCKETS) forgetIdle(t);
			b = { tokens: burst, at: t, refused: 0 };
			buckets.set(key, b);
			return b;
		}
		b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * perSecond);
		b.at = t;
		return b;
	};
	const forgetIdle = (t: number): void => {
		for (const [key, b] of buckets) {
			if (b.tokens + ((t - b.at) / 1000) * perSecond >= burst) buckets.delete(key);
		}
	};
	return {
		admit(ex, estimate = 1) {
			const key = limitKey(clientAddress(ex.req));
			const b = bucketOf(key);
			if (b.tokens <= 0) {
				const seconds = Math.max(1, Math.ceil((1 - b.tokens) / perSecond));
				b.refused++;
				throw new BudgetRefusal(
					`Read budget of this client used up (${perSecond} items per second); retry in ${seconds} s`,
					seconds,
					b.refused > 1 ? Math.min(holdMs, seconds * 1000) : 0
				);
			}
			b.refused = 0;
			const reserved = Math.max(1, estimate);
			b.tokens -= reserved;
			let settled = false;
			return (items) => {
				if (settled) return;
				settled = true;
				const charged = items === null ? 0 : Math.max(1, items);
				bucketOf(key).tokens += reserved - charged;
			};
		},
		async refuse(refusal) {
			if (refusal.holdMs > 0 && held < maxHeld) {
				held++;
				try {
					await new Promise((r) => setTimeout(r, refusal.holdMs));
				} finally {
					held--;
				}
			}
			throw refusal;
		}
	};
}
