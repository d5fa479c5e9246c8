/**
 * The bodies of the two PUTs (interface 4.5 and 4.8) as valibot schemas, built from the fields and
 * limits of ./fields: what the embedded service accepts, word for word the 400 it answers when a
 * body is outside them (the first problem, naming the field). The app's own checks of an entry
 * ($lib/domain/validation) hold to the same limits, so an edit the app lets through is never
 * refused for them.
 */
import * as v from 'valibot';
import {
	type Fields,
	type ResourceKind,
	COURSE_FIELDS,
	COURSE_TIME_DECIMALS,
	DOG_RUN_FIELDS,
	MAX_COUNT,
	MAX_COURSE_TIME,
	MAX_TIME,
	MAX_TRACK_LENGTH,
	TIME_DECIMALS,
	TRACK_LENGTH_DECIMALS
} from './fields';

/** Exactly a decimal with at most `decimals` fraction digits, as parsed from JSON. */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
	return Number.isFinite(value) && Number(value.toFixed(decimals)) === value;
}

/** A positive decimal up to `max` with at most `decimals` fraction digits; else `message`. */
function positiveDecimal(max: number, decimals: number, message: string) {
	return v.pipe(
		v.number(message),
		v.check((x) => x > 0 && x <= max && hasAtMostDecimals(x, decimals), message)
	);
}

function count(field: string) {
	const message = `Field '${field}' must be an integer between 0 and ${MAX_COUNT}`;
	return v.pipe(
		v.number(message),
		v.integer(message),
		v.minValue(0, message),
		v.maxValue(MAX_COUNT, message)
	);
}

function flag(field: string) {
	return v.boolean(`Field '${field}' must be a boolean`);
}

/** A JSON object of `fields` only, one of them at least. */
function body<const E extends v.ObjectEntries>(fields: readonly string[], entries: E) {
	const allowed = fields.join(', ');
	return v.pipe(
		v.strictObject(entries, (issue) => {
			const key = issue.path?.[issue.path.length - 1]?.key;
			return `Unknown field '${String(key)}'; allowed fields: ${allowed}`;
		}),
		v.check(
			(o) => Object.keys(o).length > 0,
			`Request body has nothing to update; send one or more of: ${allowed}`
		)
	);
}

/** A dog run's result fields (interface 4.8): seconds with hundredths, counts, flags. */
export const DogRunPutSchema = body(DOG_RUN_FIELDS, {
	time: v.optional(
		v.nullable(
			positiveDecimal(
				MAX_TIME,
				TIME_DECIMALS,
				`Field 'time' must be null or a number of seconds greater than 0 and at most ${MAX_TIME} with at most ${TIME_DECIMALS} decimals`
			)
		)
	),
	faults: v.optional(count('faults')),
	refusals: v.optional(count('refusals')),
	disqualified: v.optional(flag('disqualified')),
	absence: v.optional(flag('absence'))
});

const courseTime = (field: string) =>
	positiveDecimal(
		MAX_COURSE_TIME,
		COURSE_TIME_DECIMALS,
		`Field '${field}' must be a number of seconds greater than 0 and at most ${MAX_COURSE_TIME} with at most ${COURSE_TIME_DECIMALS} decimals`
	);

/**
 * A run's course parameters (interface 4.5). That the maximal time is not below the standard time
 * is checked against the run as it is (a body may change only one of them): `maximalBelowStandard`.
 */
export const RunPutSchema = body(COURSE_FIELDS, {
	trackLength: v.optional(
		positiveDecimal(
			MAX_TRACK_LENGTH,
			TRACK_LENGTH_DECIMALS,
			`Field 'trackLength' must be a number of metres greater than 0 and at most ${MAX_TRACK_LENGTH} with at most ${TRACK_LENGTH_DECIMALS} decimals`
		)
	),
	standardTime: v.optional(courseTime('standardTime')),
	maximalTime: v.optional(courseTime('maximalTime'))
});

export type DogRunPut = v.InferOutput<typeof DogRunPutSchema>;
export type RunPut = v.InferOutput<typeof RunPutSchema>;
/** The body of either PUT: what `HalClient.put` sends. */
export type PutBody = DogRunPut | RunPut;

/**
 * The PUT body of an edit of a `kind` resource: of `fields`, those a PUT of it may change, and
 * nothing else. The values are the edit's as the app's checks ($lib/domain/validation) let them
 * through, held to the limits above; the service checks them again with the schema of its kind.
 */
export function putBodyOf(kind: 'dogRun', fields: Fields): DogRunPut;
export function putBodyOf(kind: 'run', fields: Fields): RunPut;
export function putBodyOf(kind: ResourceKind, fields: Fields): PutBody;
export function putBodyOf(kind: ResourceKind, fields: Fields): PutBody {
	const names: readonly string[] = kind === 'dogRun' ? DOG_RUN_FIELDS : COURSE_FIELDS;
	return Object.fromEntries(Object.entries(fields).filter(([name]) => names.includes(name)));
}

/** The body, or the words of its first problem (what the service answers 400 with). */
export function checkBody<T>(
	schema: v.GenericSchema<unknown, T>,
	input: unknown
): { ok: true; value: T } | { ok: false; message: string } {
	const result = v.safeParse(schema, input, { abortEarly: true });
	return result.success
		? { ok: true, value: result.output }
		: { ok: false, message: result.issues[0].message };
}
