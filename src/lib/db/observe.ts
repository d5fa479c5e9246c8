/**
 * A read of the device's data, run again whenever what it read changes: here, in another tab or
 * in the worker (Dexie's liveQuery). Screens observe the named reads of ./queries through it and
 * never see Dexie itself. Returns the stop.
 */
import { liveQuery } from 'dexie';

export interface Observer<T> {
	next(value: T): void;
	error?(error: unknown): void;
}

export function observe<T>(read: () => Promise<T>, observer: Observer<T>): () => void {
	const subscription = liveQuery(read).subscribe({
		next: (value) => observer.next(value),
		error: (error: unknown) => observer.error?.(error)
	});
	return () => subscription.unsubscribe();
}
