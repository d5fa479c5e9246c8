/** Which day of a competition a screen opens on. Dates are the service's YYYY-MM-DD strings. */

/** The device's local calendar date as YYYY-MM-DD (not UTC: just after midnight it is the new day). */
export function localDate(now: Date): string {
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * The day to show first: today if the competition runs today, else the nearest day to come, else
 * (the competition is over) its last day. undefined when there are no days.
 */
export function pickDay(days: readonly string[], today: string): string | undefined {
	const sorted = [...new Set(days)].sort();
	if (sorted.includes(today)) return today;
	return sorted.find((day) => day > today) ?? sorted.at(-1);
}
