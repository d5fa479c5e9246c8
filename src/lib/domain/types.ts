/**
 * Shared shapes of the domain core. Field names match the results service (sections 2.7 and 2.11 of
 * competition-results-api.md), so a `Partial<DogRunResult>` is also a valid PUT body (4.8).
 */

/** The result fields of one dog run, as the service stores them. */
export interface DogRunResult {
	/** Seconds, hundredths; null before a time is recorded. */
	time: number | null;
	faults: number;
	refusals: number;
	disqualified: boolean;
	absence: boolean;
	/**
	 * On public views only, while the run's results are not released: whether the dog has run
	 * (the result fields are then empty; $lib/contract/publication).
	 */
	withheld?: { done: boolean };
}

/** The three editable parameters of a competition run. */
export interface CourseParams {
	/** Metres (the interface document says seconds; in practice it is metres). */
	trackLength: number;
	/** Standard course time (SCT), seconds. */
	standardTime: number;
	/** Maximal course time (MCT), seconds. */
	maximalTime: number;
}

export type DogRunField = keyof DogRunResult;
export type CourseField = keyof CourseParams;
