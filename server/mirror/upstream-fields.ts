// The editable fields of the upstream's representations, in the interface's names and units
// (the same shape as the local rows give them: routes/dog-runs.ts dogRunFields, routes/runs.ts
// runFields), so a local change and the upstream's value compare field by field.
import type { CompetitionRun, DogRun } from '../../src/lib/api/schemas.ts';
import type { Fields } from '../../src/lib/domain/merge.ts';

export function dogRunFieldsOf(
	d: Pick<DogRun, 'time' | 'faults' | 'refusals' | 'disqualified' | 'absence'>
): Fields {
	return {
		time: d.time,
		faults: d.faults,
		refusals: d.refusals,
		disqualified: d.disqualified,
		absence: d.absence
	};
}

export function runFieldsOf(
	r: Pick<CompetitionRun, 'trackLength' | 'standardTime' | 'maximalTime'>
): Fields {
	return { trackLength: r.trackLength, standardTime: r.standardTime, maximalTime: r.maximalTime };
}
