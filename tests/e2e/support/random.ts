/**
 * Seeded randomness for the randomised end-to-end tests: every run prints its seed, and the same
 * seed replays the same run (RINGSIDE_SEED / RINGSIDE_WALK_SEEDS).
 */
export type Random = () => number;

/** A small, fast 32-bit PRNG (mulberry32): the same seed gives the same sequence everywhere. */
export function mulberry32(seed: number): Random {
	let a = seed | 0;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** An integer in [min, max]. */
export function between(random: Random, min: number, max: number): number {
	return min + Math.floor(random() * (max - min + 1));
}

/** One of the options, chosen by weight. */
export function weighted<T>(random: Random, options: readonly (readonly [T, number])[]): T {
	const total = options.reduce((sum, [, w]) => sum + w, 0);
	let r = random() * total;
	for (const [option, w] of options) {
		r -= w;
		if (r < 0) return option;
	}
	return options[options.length - 1]![0];
}

/** Seeds from an environment variable ("1,2,3"), or the defaults. */
export function seedsFrom(name: string, defaults: readonly number[]): number[] {
	const raw = process.env[name];
	if (!raw) return [...defaults];
	const seeds = raw
		.split(',')
		.map((s) => Number(s.trim()))
		.filter((n) => Number.isInteger(n));
	if (seeds.length === 0) throw new Error(`${name} holds no whole-number seed: "${raw}"`);
	return seeds;
}
