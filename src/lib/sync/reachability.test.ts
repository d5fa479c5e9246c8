import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Contact } from '$lib/api/contact';
import {
	BUSY_BASE_MS,
	BUSY_MAX_MS,
	contactKind,
	isUnreachableError,
	PROBE_JITTER,
	PROBE_MS,
	Reachability,
	type ReachView
} from './reachability';

let clock = 1_000;
/** A request sent now and done `ms` later (the clock moves on). */
function contact(outcome: Partial<Contact>, ms = 10): Contact {
	const startedAt = clock;
	clock += ms;
	return { startedAt, at: clock, ...outcome };
}

function watch(r: Reachability): string[] {
	const seen: string[] = [];
	r.subscribe((view: ReachView) => seen.push(`${view.state}${view.busy ? '+busy' : ''}`));
	return seen;
}

describe('contactKind', () => {
	it.each([
		[{ code: 'network' }, 'unreachable'],
		[{ code: 'timeout' }, 'unreachable'],
		[{ code: 'foreign-origin', status: 302 }, 'unreachable'],
		[{ code: 'not-json', status: 200 }, 'unreachable'],
		[{ status: 502 }, 'unreachable'],
		[{ status: 504 }, 'unreachable'],
		[{ status: 511 }, 'unreachable'],
		[{ status: 503 }, 'busy'],
		[{ status: 500 }, 'busy'],
		[{ status: 429 }, 'busy'],
		[{ status: 200 }, 'answered'],
		[{ status: 304 }, 'answered'],
		[{ status: 400 }, 'answered'],
		[{ status: 401 }, 'answered'],
		[{ status: 404 }, 'answered'],
		[{ status: 412 }, 'answered'],
		[{ code: 'http', status: 409 }, 'answered'],
		[{ code: 'aborted' }, null],
		[{ code: 'bad-address' }, null]
	] as const)('%o is %s', (outcome, kind) => {
		expect(contactKind(outcome)).toBe(kind);
	});

	it('tells stored errors that waited only for the service from refusals and busy answers', () => {
		expect(isUnreachableError({ code: 'network' })).toBe(true);
		expect(isUnreachableError({ code: 'timeout' })).toBe(true);
		expect(isUnreachableError({ code: 'http', status: 502 })).toBe(true);
		expect(isUnreachableError({ code: 'http', status: 503 })).toBe(false);
		expect(isUnreachableError({ code: 'http', status: 429 })).toBe(false);
		expect(isUnreachableError({ code: 'http', status: 400 })).toBe(false);
		expect(isUnreachableError({ code: 'other' })).toBe(false);
		expect(isUnreachableError(null)).toBe(false);
	});
});

describe('Reachability', () => {
	it('goes unknown → reachable → unreachable → reachable as requests find the service or not', () => {
		const r = new Reachability();
		const seen = watch(r);
		expect(r.view.state).toBe('unknown');
		r.observe(contact({ status: 200 }));
		const answeredAt = clock;
		r.observe(contact({ code: 'network' }));
		expect(r.view).toEqual({ state: 'unreachable', busy: false, lastContactAt: answeredAt });
		r.observe(contact({ code: 'timeout' }));
		r.observe(contact({ status: 304 }));
		expect(seen).toEqual(['reachable', 'unreachable', 'reachable']);
		expect(r.healthy).toBe(true);
	});

	it('takes the device being offline from the browser, and starts over as unknown when it is back', () => {
		const r = new Reachability({ online: false });
		const seen = watch(r);
		expect(r.view.state).toBe('offline');
		r.observe(contact({ code: 'network' }));
		expect(r.view.state).toBe('offline');
		r.setOnline(true);
		r.setOnline(true);
		r.observe(contact({ code: 'network' }));
		r.setOnline(false);
		expect(seen).toEqual(['unknown', 'unreachable', 'offline']);
	});

	it('ignores a failure of a request sent before the last answer came', () => {
		const r = new Reachability();
		const slow = contact({ code: 'timeout' }, 15_000);
		clock -= 15_000;
		r.observe(contact({ status: 200 }, 20));
		clock += 15_000;
		r.observe(slow);
		expect(r.view.state).toBe('reachable');
	});

	it('is busy while the service answers 5xx or 429, and healthy again with its next good answer', () => {
		const r = new Reachability();
		const seen = watch(r);
		r.observe(contact({ status: 503, retryAfterMs: 1000 }));
		expect(r.view).toMatchObject({ state: 'reachable', busy: true });
		expect(r.healthy).toBe(false);
		r.observe(contact({ status: 429 }));
		r.observe(contact({ status: 200 }));
		expect(seen).toEqual(['reachable+busy', 'reachable']);
		expect(r.healthy).toBe(true);
	});

	it('keeps the time of the last answer, a refusal too, and not of a failure', () => {
		const r = new Reachability({ lastContactAt: 5 });
		expect(r.view.lastContactAt).toBe(5);
		r.observe(contact({ status: 401 }));
		const at = clock;
		r.observe(contact({ code: 'network' }));
		expect(r.view.lastContactAt).toBe(at);
	});

	it('recalls the last answer of an earlier visit, unless it knows a later one', () => {
		const r = new Reachability();
		r.recall(500);
		expect(r.view.lastContactAt).toBe(500);
		r.observe(contact({ status: 200 }));
		const at = clock;
		r.recall(600);
		expect(r.view.lastContactAt).toBe(at);
	});

	it('tells every outcome it takes to its taps, after its own state has changed', () => {
		const r = new Reachability();
		const tapped: string[] = [];
		r.onContact((c) => tapped.push(`${c.status ?? c.code}:${r.view.state}`));
		r.observe(contact({ status: 200 }));
		r.observe(contact({ code: 'aborted' }));
		r.observe(contact({ code: 'network' }));
		expect(tapped).toEqual(['200:reachable', 'network:unreachable']);
	});

	it('a listener or tap that throws breaks neither the others nor the request', () => {
		const r = new Reachability();
		const seen: string[] = [];
		const quiet = console.error;
		console.error = () => undefined;
		try {
			r.subscribe(() => {
				throw new Error('listener');
			});
			r.onContact(() => {
				throw new Error('tap');
			});
			r.subscribe((v) => seen.push(v.state));
			expect(() => r.observe(contact({ status: 200 }))).not.toThrow();
		} finally {
			console.error = quiet;
		}
		expect(seen).toEqual(['reachable']);
	});
});

describe('backgroundDelayMs: the one wait for background requests', () => {
	it('is nothing while the service answers', () => {
		const r = new Reachability();
		r.observe(contact({ status: 200 }));
		expect(r.backgroundDelayMs(() => 0.9)).toBe(0);
	});

	it('is about PROBE_MS, with jitter, while the service cannot be reached (or is not known yet)', () => {
		const r = new Reachability();
		expect(r.backgroundDelayMs(() => 0)).toBe(PROBE_MS * (1 - PROBE_JITTER));
		r.observe(contact({ code: 'network' }));
		expect(r.backgroundDelayMs(() => 0)).toBe(PROBE_MS * (1 - PROBE_JITTER));
		expect(r.backgroundDelayMs(() => 0.5)).toBe(PROBE_MS);
		expect(r.backgroundDelayMs(() => 0.9999999)).toBeCloseTo(PROBE_MS * (1 + PROBE_JITTER), -1);
	});

	it('doubles per busy answer up to its ceiling and honours a longer Retry-After', () => {
		const r = new Reachability();
		const ceilings: number[] = [];
		for (let i = 0; i < 8; i++) {
			r.observe(contact({ status: 503 }));
			ceilings.push(r.backgroundDelayMs(() => 0.9999999999));
		}
		expect(ceilings.map((c) => Math.round(c / 1000))).toEqual([5, 10, 20, 40, 60, 60, 60, 60]);
		expect(r.backgroundDelayMs(() => 0)).toBe(BUSY_MAX_MS / 2);
		r.observe(contact({ status: 429, retryAfterMs: 120_000 }));
		expect(r.backgroundDelayMs(() => 0)).toBe(120_000);
		r.observe(contact({ status: 503, retryAfterMs: 24 * 3_600_000 }));
		expect(r.backgroundDelayMs(() => 0)).toBe(15 * 60_000);
		r.observe(contact({ status: 200 }));
		r.observe(contact({ status: 503 }));
		expect(r.backgroundDelayMs(() => 0.9999999999)).toBeCloseTo(BUSY_BASE_MS, -1);
	});

	it('against a service that only ever answers 503, averages at least 10 s after the first minute', () => {
		fc.assert(
			fc.property(
				fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
					minLength: 60,
					maxLength: 60
				}),
				(rs) => {
					const r = new Reachability();
					let t = 0;
					let sentAfterMinute = 0;
					for (const x of rs) {
						r.observe({ startedAt: t, at: t, status: 503 });
						t += r.backgroundDelayMs(() => x);
						if (t > 60_000 && t <= 600_000) sentAfterMinute++;
					}
					// From minute 1 to minute 10 (540 s): at most one request per 10 s.
					return sentAfterMinute <= 54;
				}
			)
		);
	});
});
