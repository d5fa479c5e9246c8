// Vitest global setup of the `postgres` project: one throw-away PostgreSQL cluster for the run
// (scripts/pg-cluster.ts), its URL provided to the test files, stopped at the end.
import type { TestProject } from 'vitest/node';
import { startCluster } from '../../scripts/pg-cluster.ts';

declare module 'vitest' {
	export interface ProvidedContext {
		pgUrl: string;
	}
}

export default async function setup(project: TestProject): Promise<() => void> {
	const cluster = await startCluster({ durable: false });
	project.provide('pgUrl', cluster.url);
	return () => cluster.stop();
}
