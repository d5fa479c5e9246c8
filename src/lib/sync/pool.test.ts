import { describe, expect, it } from 'vitest';
import { PrioritySlots } from './pool';

function deferred(): { promise: Promise<void>; resolve: () => void } {
	let resolve!: () => void;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
}

describe('PrioritySlots', () => {
	it('runs at most `size` at once and gives a free slot to the highest priority, first come first among equals', async () => {
		const slots = new PrioritySlots(2);
		const started: string[] = [];
		let running = 0;
		let most = 0;
		const gates = new Map<string, ReturnType<typeof deferred>>();
		const task = (name: string, priority: number) => {
			const gate = deferred();
			gates.set(name, gate);
			return slots.take(priority, async () => {
				started.push(name);
				running++;
				most = Math.max(most, running);
				await gate.promise;
				running--;
			});
		};
		const all = [task('a', 0), task('b', 0), task('low', 1), task('high', 5), task('low2', 1)];
		await Promise.resolve();
		expect(started).toEqual(['a', 'b']);
		gates.get('a')!.resolve();
		await new Promise((r) => setTimeout(r, 0));
		expect(started).toEqual(['a', 'b', 'high']);
		gates.get('b')!.resolve();
		gates.get('high')!.resolve();
		await new Promise((r) => setTimeout(r, 0));
		expect(started).toEqual(['a', 'b', 'high', 'low', 'low2']);
		gates.get('low')!.resolve();
		gates.get('low2')!.resolve();
		await Promise.all(all);
		expect(most).toBe(2);
	});

	it('lets a chain keep its slot for its next request unless a waiting task ranks as high', async () => {
		const slots = new PrioritySlots(1);
		const started: string[] = [];
		await slots.acquire(3);
		const low = slots.take(2, async () => void started.push('low'));
		// Nothing waiting ranks as high as the chain's next request: it keeps the slot.
		await slots.pass(3);
		expect(started).toEqual([]);
		const high = slots.take(3, async () => void started.push('high'));
		// Now one does (asked first, same rank): the chain hands over and queues behind it.
		const passed = slots.pass(3).then(() => started.push('chain'));
		await high;
		await passed;
		expect(started).toEqual(['high', 'chain']);
		slots.release();
		await low;
		expect(started).toEqual(['high', 'chain', 'low']);
	});

	it('works out a priority given as a function when a slot is free, not when the task asked', async () => {
		const slots = new PrioritySlots(1);
		const started: string[] = [];
		await slots.acquire(0);
		let rising = 1;
		const fixed = slots.take(2, async () => void started.push('fixed'));
		const late = slots.take(
			() => rising,
			async () => void started.push('rising')
		);
		rising = 3;
		slots.release();
		await Promise.all([fixed, late]);
		expect(started).toEqual(['rising', 'fixed']);
	});

	it('frees the slot when a task fails', async () => {
		const slots = new PrioritySlots(1);
		await expect(slots.take(0, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
		await expect(slots.take(0, () => Promise.resolve(7))).resolves.toBe(7);
	});
});
