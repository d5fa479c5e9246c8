import type { DogRunResult } from '$lib/domain/types';

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

/** The last save's confirmation, kept across "Save & next" so Undo stays one tap away. */
class Flash {
	message = $state<string | null>(null);
	/** What Undo restores; null when there is nothing to undo. */
	undo = $state.raw<UndoTarget | null>(null);
	#timer: ReturnType<typeof setTimeout> | undefined;

	show(message: string, undo: UndoTarget | null = null, ms = 10_000): void {
		this.message = message;
		this.undo = undo;
		clearTimeout(this.#timer);
		this.#timer = setTimeout(() => this.clear(), ms);
	}

	clear(): void {
		clearTimeout(this.#timer);
		this.message = null;
		this.undo = null;
	}
}

export const flash = new Flash();
