/**
 * The steward's commands, in one place: save a result, undo the last save, change a course,
 * decide a conflict, send a refused edit again, discard one, and after a sign-in send what waited
 * for it. Each writes through $lib/sync/outbox in one transaction; the outbox's change is what
 * tells the replay scheduler (which hears the outbox itself, $lib/sync/outbox-watch), so no command
 * calls it. "Sync now" is the one command that asks the scheduler itself. The undo record of the
 * last save lives here; the message that offers it is the flash's ($lib/ui/state/flash).
 */
import type { ConflictResolution } from '$lib/sync/outbox';
import type { CourseParams, DogRunResult } from '$lib/domain/types';

/** What Undo puts back: the values one dog run showed before a save. */
export interface UndoTarget {
	dogRunId: number;
	/** The fields the save changed, with the values they had before it. */
	restore: Partial<DogRunResult>;
	/** The same fields with the values the save recorded: the undo's base. */
	saved: Partial<DogRunResult>;
	/** "No. 14 Jessie": who the save was for, in the words of the screen. */
	label: string;
}

// The outbox policy is loaded with the first command, not with the first screen.
const outbox = () => import('$lib/sync/outbox');

class Steward {
	/** The last save, while it can be undone; null when there is nothing to undo. */
	undoable = $state.raw<UndoTarget | null>(null);

	/**
	 * Saves the fields of a dog run's result that changed from what the steward saw (`seen`, the
	 * base of the change). Returns the changes saved (empty: nothing to save); the save can then be
	 * undone, and is named by `label`.
	 */
	async saveResult(
		dogRunId: number,
		seen: DogRunResult,
		changes: Partial<DogRunResult>,
		label: string
	): Promise<Partial<DogRunResult>> {
		if (Object.keys(changes).length === 0) return changes;
		await (await outbox()).saveDogRunEdit(dogRunId, changes, Date.now(), seen);
		// Undo puts back what this save changed, as the steward saw it before.
		const restore = Object.fromEntries(
			Object.keys(changes).map((f) => [f, seen[f as keyof DogRunResult]])
		) as Partial<DogRunResult>;
		this.undoable = { dogRunId, restore, saved: changes, label };
		return changes;
	}

	/** Puts back what the last save changed; returns what was undone (null: nothing to undo). */
	async undoLastSave(): Promise<UndoTarget | null> {
		const target = this.undoable;
		if (!target) return null;
		await (await outbox()).undoDogRunSave(target.dogRunId, target.restore, target.saved);
		this.undoable = null;
		return target;
	}

	/** The last save can no longer be undone from here (another message took its place). */
	forgetUndo(): void {
		this.undoable = null;
	}

	async saveCourse(runId: number, changes: Partial<CourseParams>): Promise<void> {
		if (Object.keys(changes).length === 0) return;
		await (await outbox()).saveRunEdit(runId, changes);
	}

	async resolve(key: string, choice: ConflictResolution): Promise<void> {
		await (await outbox()).resolveConflict(key, choice);
	}

	/** "Send again": a refused edit (corrected or not) goes at once. */
	async sendAgain(key: string): Promise<void> {
		await (await outbox()).retryNow(key);
	}

	async discard(key: string): Promise<void> {
		await (await outbox()).discardEntry(key);
	}

	/** Signed in (again): what the service refused for want of credentials goes at once. */
	async signedIn(): Promise<number> {
		return (await outbox()).retryAfterSignIn();
	}
}

export const steward = new Steward();
