/**
 * Schemas of the competition results service's resources (interface document, section 2).
 *
 * Lenient where it costs nothing: unknown fields are kept (loose objects), only fields the document
 * lists are checked. Strict where the app relies on a value: numbers must be finite, dates
 * YYYY-MM-DD, times HH:MM:SS, and every top-level resource must carry `_links.self` (the app
 * re-reads and updates through it).
 */
import * as v from 'valibot';
import { CHECK_IN_STATUSES } from '../contract/check-in';
import { HANDLER_NAMES, RESULTS_MODES } from '../contract/publication';

const finiteNumber = v.pipe(v.number(), v.finite());
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const date = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date YYYY-MM-DD'));
const timeOfDay = v.pipe(v.string(), v.regex(/^\d{2}:\d{2}:\d{2}$/, 'Expected a time HH:MM:SS'));

// --- Links (HAL) ---

export const LinkSchema = v.looseObject({
	href: v.string(),
	templated: v.optional(v.boolean()),
	name: v.optional(v.string()),
	title: v.optional(v.string()),
	type: v.optional(v.string())
});
export type Link = v.InferOutput<typeof LinkSchema>;

/** A relation holds one link or an array of links (interface 2.5). */
export const LinkOrLinksSchema = v.union([LinkSchema, v.array(LinkSchema)]);
export type LinkOrLinks = v.InferOutput<typeof LinkOrLinksSchema>;

export const LinksSchema = v.record(v.string(), LinkOrLinksSchema);
export type Links = v.InferOutput<typeof LinksSchema>;

/** `_links` of a resource the app addresses: `self` is required and is one link. */
export const SelfLinksSchema = v.objectWithRest({ self: LinkSchema }, LinkOrLinksSchema);
export type SelfLinks = v.InferOutput<typeof SelfLinksSchema>;

// --- Small reference resources (2.8) ---

export const RefSchema = v.looseObject({ id: finiteNumber, name: v.string() });
export type Ref = v.InferOutput<typeof RefSchema>;
export const DogSizeClassSchema = RefSchema;
export type DogSizeClass = Ref;
export const CompetitionRunLevelSchema = RefSchema;
export type CompetitionRunLevel = Ref;
export const CompetitionLevelSchema = RefSchema;
export type CompetitionLevel = Ref;

// --- Judge (2.5) and ring (2.6) --- Their links are context links (runs of this judge or ring in
// the enclosing competition), not addresses of their own, and the document shows no `self`:
// `_links` is optional; use requireLink() where one is needed.

export const JudgeSchema = v.looseObject({
	id: finiteNumber,
	firstname: v.string(),
	lastname: v.string(),
	country: v.string(),
	_links: v.optional(LinksSchema)
});
export type Judge = v.InferOutput<typeof JudgeSchema>;

export const CompetitionRingSchema = v.looseObject({
	id: finiteNumber,
	name: v.string(),
	_links: v.optional(LinksSchema)
});
export type CompetitionRing = v.InferOutput<typeof CompetitionRingSchema>;

// --- Competition (2.4) ---

export const CompetitionSchema = v.looseObject({
	id: finiteNumber,
	name: v.string(),
	dateFrom: date,
	dateTo: date,
	details: v.nullable(v.string()),
	fees: v.nullable(v.string()),
	/** Known values: NEW, IN_PROGRESS; the complete list is not shown, so any string is accepted. */
	state: v.string(),
	judges: v.array(JudgeSchema),
	rings: v.array(CompetitionRingSchema),
	_links: SelfLinksSchema
});
export type Competition = v.InferOutput<typeof CompetitionSchema>;

// --- Competition run (2.7) ---

const competitionRunEntries = {
	id: finiteNumber,
	name: v.string(),
	date,
	startTime: timeOfDay,
	/** Seconds, with two or three fraction digits. */
	standardTime: finiteNumber,
	/** Seconds, with two or three fraction digits. */
	maximalTime: finiteNumber,
	trackLength: finiteNumber,
	/** Percent of completed dog runs, 0 to 100 in the examples (not enforced). */
	progress: finiteNumber,
	dogSizeClass: DogSizeClassSchema,
	competitionRunLevel: CompetitionRunLevelSchema,
	judge: JudgeSchema,
	competitionRing: CompetitionRingSchema
};

export const CompetitionRunSchema = v.looseObject({
	...competitionRunEntries,
	_links: SelfLinksSchema
});
export type CompetitionRun = v.InferOutput<typeof CompetitionRunSchema>;

/**
 * The competition run embedded in a dog run. The document calls it "the full representation", but
 * nothing about the dog run depends on its links, so a missing `_links` there does not reject the
 * dog run.
 */
export const EmbeddedCompetitionRunSchema = v.looseObject({
	...competitionRunEntries,
	_links: v.optional(LinksSchema)
});
export type EmbeddedCompetitionRun = v.InferOutput<typeof EmbeddedCompetitionRunSchema>;

// --- Competitor (2.9), dog (2.10), dog run (2.11) ---

export const CompetitorSchema = v.looseObject({
	id: finiteNumber,
	firstname: v.string(),
	lastname: v.string(),
	identifier: v.string(),
	country: v.nullable(v.string())
});
export type Competitor = v.InferOutput<typeof CompetitorSchema>;

export const DogSchema = v.looseObject({
	id: finiteNumber,
	name: v.string(),
	homeName: v.string(),
	workbookNo: v.string(),
	birthday: date,
	competitionLevel: CompetitionLevelSchema,
	dogSizeClass: DogSizeClassSchema
});
export type Dog = v.InferOutput<typeof DogSchema>;

export const DogRunSchema = v.looseObject({
	id: finiteNumber,
	/** Null before a time is recorded. Unit not shown by the interface. */
	time: v.nullable(finiteNumber),
	refusals: finiteNumber,
	faults: finiteNumber,
	disqualified: v.boolean(),
	absence: v.boolean(),
	competitionRun: EmbeddedCompetitionRunSchema,
	dog: DogSchema,
	competitor: CompetitorSchema,
	/**
	 * The embedded service's public answers only (a viewer, an open read): the run's results are
	 * not released yet, so the result fields are empty and this says whether the dog has run.
	 */
	withheld: v.optional(v.looseObject({ done: v.boolean() })),
	_links: SelfLinksSchema
});
export type DogRun = v.InferOutput<typeof DogRunSchema>;

/**
 * What public views show of a competition (an extension of the embedded service, linked as the
 * competition's `publication`; src/lib/contract/publication.ts). The secretary's answer carries a
 * HAL-FORMS `_templates.default` (PUT): the device may change it.
 */
export const PublicationSchema = v.looseObject({
	competitionId: finiteNumber,
	handlerNames: v.picklist(HANDLER_NAMES),
	results: v.picklist(RESULTS_MODES),
	releasedRuns: v.array(finiteNumber),
	updatedAt: v.nullable(v.string()),
	_templates: v.optional(
		v.looseObject({ default: v.optional(v.looseObject({ method: v.string() })) })
	),
	_links: SelfLinksSchema
});
export type PublicationJson = v.InferOutput<typeof PublicationSchema>;

/**
 * The gate's mark of a dog run (an extension of the embedded service, linked as the dog run's
 * `checkIn`; src/lib/contract/check-in.ts). Status and time null: never marked.
 */
export const CheckInSchema = v.looseObject({
	dogRunId: finiteNumber,
	competitionId: finiteNumber,
	status: v.nullable(v.picklist(CHECK_IN_STATUSES)),
	markedAt: v.nullable(v.string()),
	_links: SelfLinksSchema
});
export type CheckInJson = v.InferOutput<typeof CheckInSchema>;

/** Every mark of a competition's gates (the competition's `checkIns`). */
export const CheckInsSchema = v.looseObject({
	competitionId: finiteNumber,
	checkIns: v.array(CheckInSchema),
	_links: SelfLinksSchema
});

// --- Update bodies (4.5, 4.8); partial updates are allowed ---

export interface CompetitionRunUpdate {
	trackLength?: number;
	standardTime?: number;
	maximalTime?: number;
}

export interface DogRunUpdate {
	/** The interface shows a Number; whether null (no time yet) is accepted is not shown. */
	time?: number;
	refusals?: number;
	faults?: number;
	disqualified?: boolean;
	absence?: boolean;
}

// --- Paged list envelope (2.1 to 2.3) ---

export const PageInfoSchema = v.looseObject({
	size: count,
	totalElements: count,
	totalPages: count,
	number: count
});
export type PageInfo = v.InferOutput<typeof PageInfoSchema>;

export interface PagedList<TName extends string, TItem> {
	/** Absent when the list is empty. */
	_embedded?: { [K in TName]: TItem[] };
	page: PageInfo;
	_links: SelfLinks;
	[key: string]: unknown;
}

/**
 * The envelope of a list whose items sit in `_embedded[collection]`. `_embedded` may be absent only
 * when the page is past the last one (an empty list has totalPages 0): a page that should hold
 * items but has no `_embedded` is rejected, so a renamed collection cannot pass for an empty list.
 */
export function pagedList<const TName extends string, TItem>(
	collection: TName,
	item: v.GenericSchema<unknown, TItem>
): v.GenericSchema<unknown, PagedList<TName, TItem>> {
	const embedded = v.looseObject({ [collection]: v.array(item) });
	const envelope = v.pipe(
		v.looseObject({
			_embedded: v.optional(embedded),
			page: PageInfoSchema,
			_links: SelfLinksSchema
		}),
		v.forward(
			v.check(
				(list) => list._embedded !== undefined || list.page.number >= list.page.totalPages,
				`Expected _embedded.${collection} on a page before the last`
			),
			['_embedded']
		)
	);
	// The computed key makes valibot infer an index signature; the check above makes the declared
	// type true.
	return envelope as v.GenericSchema<unknown, PagedList<TName, TItem>>;
}

export const CompetitionListSchema = pagedList('competitions', CompetitionSchema);
export type CompetitionList = v.InferOutput<typeof CompetitionListSchema>;
export const CompetitionRunListSchema = pagedList('competitionRuns', CompetitionRunSchema);
export type CompetitionRunList = v.InferOutput<typeof CompetitionRunListSchema>;
export const DogRunListSchema = pagedList('dogRuns', DogRunSchema);
export type DogRunList = v.InferOutput<typeof DogRunListSchema>;

// --- Error object (section 7); lenient: only status and message are required ---

export const ErrorBodySchema = v.looseObject({
	timestamp: v.optional(v.string()),
	status: finiteNumber,
	error: v.optional(v.string()),
	message: v.string(),
	path: v.optional(v.string()),
	traceId: v.optional(v.string()),
	/** Not in the interface: the embedded service's code of the error. */
	code: v.optional(v.pipe(v.string(), v.maxLength(64)))
});
export type ErrorBody = v.InferOutput<typeof ErrorBodySchema>;
