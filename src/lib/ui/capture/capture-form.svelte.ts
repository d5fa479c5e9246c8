import type { DomainErrorCode } from '$lib/domain/errors';
import { MAX_COUNT, parseTime } from '$lib/domain/numbers';
import { score, type Score } from '$lib/domain/scoring';
import { pressTimeKey, type TimeKey } from '$lib/domain/time-entry';
import type { CourseParams, DogRunResult } from '$lib/domain/types';
import { validateDogRunEntry, type EntryValidation } from '$lib/domain/validation';

/**
 * The state of the result form of one dog run. The steward types the time as text (a decimal
 * comma is fine); faults and refusals move with large buttons; the rules (3rd refusal, maximal
 * time) are applied as the steward types and shown as hints.
 */
export class CaptureForm {
	timeText = $state('');
	/** The next keypad digit replaces the time shown (just loaded), as a selected field would. */
	fresh = $state(true);
	/** The steward typed in the Time field since it was filled (a time from the gates waits then). */
	timeTyped = $state(false);
	faults = $state(0);
	refusals = $state(0);
	disqualified = $state(false);
	absence = $state(false);
	course = $state.raw<CourseParams | null>(null);
	/** The values the form was filled with: what the steward saw, the base of what they change. */
	seen = $state.raw<DogRunResult | null>(null);

	readonly parsedTime = $derived(parseTime(this.timeText));

	readonly entry = $derived<DogRunResult>({
		time: this.parsedTime.ok ? this.parsedTime.value : null,
		faults: this.faults,
		refusals: this.refusals,
		disqualified: this.disqualified,
		absence: this.absence
	});

	readonly validation = $derived<EntryValidation>(validateDogRunEntry(this.entry, this.course));

	/** A code for the time field, or null when it parses. */
	readonly timeError = $derived<DomainErrorCode | null>(
		!this.parsedTime.ok
			? this.parsedTime.code
			: (this.validation.errors.find((e) => e.field === 'time')?.code ?? null)
	);

	readonly valid = $derived(this.parsedTime.ok && this.validation.errors.length === 0);

	readonly preview = $derived<Score>(score(this.course, this.validation.normalized));

	/** Fills the form with what the steward currently sees (snapshot with unsent edits). */
	load(result: DogRunResult, course: CourseParams | null, format: (time: number) => string): void {
		this.timeText = result.time === null ? '' : format(result.time);
		this.faults = result.faults;
		this.refusals = result.refusals;
		this.disqualified = result.disqualified;
		this.absence = result.absence;
		this.course = course;
		this.fresh = true;
		this.timeTyped = false;
		this.seen = result;
	}

	/** Puts a time from the gates or the stopwatch in the field (the steward still saves it). */
	fillTime(text: string): void {
		this.timeText = text;
		this.fresh = true;
		this.timeTyped = false;
	}

	/** A key of the app's keypad (or a keyboard's digit keys) on the time. */
	press(key: TimeKey, separator: string): void {
		const next = pressTimeKey({ text: this.timeText, fresh: this.fresh }, key, separator);
		this.timeText = next.text;
		this.fresh = next.fresh;
		this.timeTyped = true;
	}

	clearTime(): void {
		this.timeText = '';
		this.fresh = false;
		this.timeTyped = true;
	}

	step(field: 'faults' | 'refusals', delta: 1 | -1): void {
		this[field] = Math.max(0, Math.min(MAX_COUNT, this[field] + delta));
	}

	/** The steward changed something since the form was filled. */
	readonly dirty = $derived(this.seen !== null && Object.keys(this.changes()).length > 0);

	/** The fields whose value differs from what the steward saw: what a save records. */
	changes(current: DogRunResult | null = this.seen): Partial<DogRunResult> {
		if (current === null) return {};
		const next = this.validation.normalized;
		const changes: Partial<DogRunResult> = {};
		if (next.time !== current.time) changes.time = next.time;
		if (next.faults !== current.faults) changes.faults = next.faults;
		if (next.refusals !== current.refusals) changes.refusals = next.refusals;
		if (next.disqualified !== current.disqualified) changes.disqualified = next.disqualified;
		if (next.absence !== current.absence) changes.absence = next.absence;
		return changes;
	}
}

/** The same result, field by field (null: none). */
export function sameResult(a: DogRunResult | null, b: DogRunResult | null): boolean {
	if (a === null || b === null) return a === b;
	return (
		a.time === b.time &&
		a.faults === b.faults &&
		a.refusals === b.refusals &&
		a.disqualified === b.disqualified &&
		a.absence === b.absence
	);
}
