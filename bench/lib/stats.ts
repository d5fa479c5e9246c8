/** Median, min and max of a sample; the figure every table row reports. */
export interface Spread {
	median: number;
	min: number;
	max: number;
	n: number;
}

export function spread(values: readonly number[]): Spread {
	if (values.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
	const sorted = [...values].sort((a, b) => a - b);
	return {
		median: quantile(sorted, 0.5),
		min: sorted[0] ?? NaN,
		max: sorted[sorted.length - 1] ?? NaN,
		n: sorted.length
	};
}

/** Linear interpolation between closest ranks; `sorted` ascending. */
export function quantile(sorted: readonly number[], q: number): number {
	if (sorted.length === 0) return NaN;
	const pos = (sorted.length - 1) * q;
	const lo = Math.floor(pos);
	const hi = Math.ceil(pos);
	const a = sorted[lo] ?? NaN;
	const b = sorted[hi] ?? NaN;
	return a + (b - a) * (pos - lo);
}

export function percentile(values: readonly number[], q: number): number {
	return quantile(
		[...values].sort((a, b) => a - b),
		q
	);
}
