// A value computed once, when first asked: a PUT's body is checked after If-Match, and the check
// and the update use the one result.

/** `make`'s value, computed at the first call and kept. */
export function lazy<T>(make: () => T): () => T {
	let made: { value: T } | undefined;
	return () => (made ??= { value: make() }).value;
}
