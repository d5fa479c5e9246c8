/**
 * The last message of the capture screen ("Saved on device: No. 14 Jessie"), kept across "Save &
 * next" so that Undo stays one tap away. Whether it offers Undo is the message's; what Undo puts
 * back is the steward's record ($lib/ui/state/steward).
 */
class Flash {
	message = $state<string | null>(null);
	/** The message offers Undo of the last save. */
	offersUndo = $state(false);
	#timer: ReturnType<typeof setTimeout> | undefined;

	show(message: string, options: { undo?: boolean } = {}, ms = 10_000): void {
		this.message = message;
		this.offersUndo = options.undo === true;
		clearTimeout(this.#timer);
		this.#timer = setTimeout(() => this.clear(), ms);
	}

	clear(): void {
		clearTimeout(this.#timer);
		this.message = null;
		this.offersUndo = false;
	}
}

export const flash = new Flash();
