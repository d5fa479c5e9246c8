/**
 * A vitest environment for Svelte state with effects (*.svelte.test.ts): Node's globals, but the
 * code transformed for the client, so that Svelte compiles and resolves its client runtime, where
 * effects run. Node's own environment transforms for the server, where they never do; no DOM is
 * needed for state classes.
 */
import type { Environment } from 'vitest/environments';

export default {
	name: 'svelte-client',
	viteEnvironment: 'client',
	setup() {
		return { teardown() {} };
	}
} satisfies Environment;
