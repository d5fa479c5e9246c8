/**
 * At most `size` tasks at once, started in the order they asked: the replay's requests, whether a
 * lane's or a list read ahead, share the browser's connections to the service this way.
 */
export class Slots {
	#free: number;
	readonly #waiting: (() => void)[] = [];

	constructor(size: number) {
		this.#free = Math.max(1, size);
	}

	async take<T>(task: () => Promise<T>): Promise<T> {
		if (this.#free > 0) this.#free--;
		else await new Promise<void>((resolve) => this.#waiting.push(resolve));
		try {
			return await task();
		} finally {
			const next = this.#waiting.shift();
			if (next) next();
			else this.#free++;
		}
	}
}

/** A task's priority, or how to work it out when a slot is free (it may change while it waits). */
export type Priority = number | (() => number);

const valueOf = (priority: Priority): number =>
	typeof priority === 'function' ? priority() : priority;

/**
 * At most `size` tasks at once; a free slot goes to the waiting task of highest priority (first
 * come first among equals). A download ranks each list's next page by how many pages that list
 * still has after it, so the longest chains of `next` links start early and no slot sits idle
 * while one long list is read page by page at the end.
 *
 * A chain of requests (a list's pages) can hold one slot from one request to the next (`acquire`,
 * `pass`, `release`): the next page's link is known only once a page is in, and by then a slot
 * given back would already have gone to a waiting task of lower rank.
 */
export class PrioritySlots {
	#free: number;
	#order = 0;
	readonly #waiting: { priority: Priority; order: number; start: () => void }[] = [];

	constructor(size: number) {
		this.#free = Math.max(1, size);
	}

	async take<T>(priority: Priority, task: () => Promise<T>): Promise<T> {
		await this.acquire(priority);
		try {
			return await task();
		} finally {
			this.release();
		}
	}

	/** Resolves once a slot is held; give it back with `release`. */
	async acquire(priority: Priority): Promise<void> {
		if (this.#free > 0) this.#free--;
		else {
			await new Promise<void>((start) =>
				this.#waiting.push({ priority, order: this.#order++, start })
			);
		}
	}

	/** Gives a held slot to the waiting task of highest priority, or frees it. */
	release(): void {
		const best = this.#best();
		if (best === -1) this.#free++;
		else this.#waiting.splice(best, 1)[0]!.start();
	}

	/**
	 * The holder of a slot goes on with a request of `priority`: it keeps the slot unless a waiting
	 * task ranks at least as high (which asked first), else hands it over and queues for another.
	 */
	async pass(priority: Priority): Promise<void> {
		const best = this.#best();
		if (best === -1 || valueOf(this.#waiting[best]!.priority) < valueOf(priority)) return;
		this.release();
		await this.acquire(priority);
	}

	#best(): number {
		let best = -1;
		let bestValue = 0;
		for (let i = 0; i < this.#waiting.length; i++) {
			const w = this.#waiting[i]!;
			const value = valueOf(w.priority);
			const b = best === -1 ? undefined : this.#waiting[best]!;
			if (b === undefined || value > bestValue || (value === bestValue && w.order < b.order)) {
				best = i;
				bestValue = value;
			}
		}
		return best;
	}
}

/**
 * Group commit: items handed in while a write runs are written together by the next one, so a
 * burst of results costs a few transactions instead of one each. With `gather`, a write waits for
 * that many items, or `waitMs`, or a call of `idle()`, whichever comes first. `write` answers each
 * item, in order; a failed write rejects the items it held.
 */
export class GroupWriter<I, O> {
	readonly #write: (items: I[]) => Promise<O[]>;
	readonly #gather: number;
	readonly #waitMs: number;
	#queue: { item: I; resolve: (out: O) => void; reject: (error: unknown) => void }[] = [];
	#running: Promise<void> | null = null;
	#wake: (() => void) | null = null;
	#draining = false;

	constructor(
		write: (items: I[]) => Promise<O[]>,
		{ gather = 1, waitMs = 0 }: { gather?: number; waitMs?: number } = {}
	) {
		this.#write = write;
		this.#gather = gather;
		this.#waitMs = waitMs;
	}

	submit(item: I): Promise<O> {
		return new Promise<O>((resolve, reject) => {
			this.#queue.push({ item, resolve, reject });
			if (this.#queue.length >= this.#gather) this.#wake?.();
			this.#running ??= this.#drain();
		});
	}

	/** Writes what is waiting at once; resolves once everything handed in so far is written. */
	async idle(): Promise<void> {
		this.#draining = true;
		this.#wake?.();
		try {
			while (this.#running) await this.#running;
		} finally {
			this.#draining = false;
		}
	}

	async #drain(): Promise<void> {
		while (this.#queue.length > 0) {
			if (this.#queue.length < this.#gather && !this.#draining) {
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, this.#waitMs);
					this.#wake = () => {
						clearTimeout(timer);
						resolve();
					};
				});
				this.#wake = null;
			}
			const batch = this.#queue;
			this.#queue = [];
			try {
				const out = await this.#write(batch.map((b) => b.item));
				batch.forEach((b, i) => b.resolve(out[i] as O));
			} catch (error) {
				for (const b of batch) b.reject(error);
			}
		}
		this.#running = null;
	}
}
