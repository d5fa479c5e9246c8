/** The last save's confirmation, kept across "Save & next" so Undo stays one tap away. */
class Flash {
	message = $state<string | null>(null);
	/** The outbox key the Undo button restores; null when there is nothing to undo. */
	undoKey = $state<string | null>(null);
	#timer: ReturnType<typeof setTimeout> | undefined;

	show(message: string, undoKey: string | null = null, ms = 10_000): void {
		this.message = message;
		this.undoKey = undoKey;
		clearTimeout(this.#timer);
		this.#timer = setTimeout(() => this.clear(), ms);
	}

	clear(): void {
		this.message = null;
		this.undoKey = null;
	}
}

export const flash = new Flash();
