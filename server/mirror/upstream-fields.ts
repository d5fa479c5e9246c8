// The editable fields of the upstream's representations, in the interface's names and units
// (the same shape as the local rows give them: routes/dog-runs.ts dogRunFields, routes/runs.ts
// runFields), so a local change and the upstream's value compare field by field. Which fields
// they are is the contract's (src/lib/contract/fields.ts).
import type { CompetitionRun, DogRun } from '../../src/lib/api/schemas.ts';
import { COURSE_FIELDS, DOG_RUN_FIELDS } from '../../src/lib/contract/fields.ts';
import type { Fields } from '../../src/lib/domain/merge.ts';

const pick = <T extends object>(from: T, fields: readonly (keyof T & string)[]): Fields =>
	Object.fromEntries(fields.map((f) => [f, from[f]]));

export const dogRunFieldsOf = (d: Pick<DogRun, (typeof DOG_RUN_FIELDS)[number]>): Fields =>
	pick(d, DOG_RUN_FIELDS);

export const runFieldsOf = (r: Pick<CompetitionRun, (typeof COURSE_FIELDS)[number]>): Fields =>
	pick(r, COURSE_FIELDS);
