// Calendar dates as the service and its seed use them: YYYY-MM-DD, the laptop's local day.

/** Today's local calendar date as YYYY-MM-DD. */
export function localToday(now = new Date()): string {
	const p = (n: number): string => String(n).padStart(2, '0');
	return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

export function addDays(date: string, days: number): string {
	const d = new Date(`${date}T00:00:00Z`);
	d.setUTCDate(d.getUTCDate() + days);
	return d.toISOString().slice(0, 10);
}
