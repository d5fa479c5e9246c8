import type { Browser } from '@playwright/test';
import type { Row } from '../lib/report.ts';
import type { ServiceFactory } from '../lib/service.ts';

/** What every part of the bench gets from the runner. */
export interface BenchContext {
	smoke: boolean;
	/** Repetitions: `--reps=N` overrides each part's own choice. */
	reps(full: number): number;
	latencyMs: number;
	factory: ServiceFactory;
	/** The bundled bench page (bench/pages), served as the service's appDir. */
	benchPageDir: string;
	/** A snapshot of the production build (build/), served as the service's appDir. */
	appDir: string;
	browser: Browser;
	rows: Row[];
	/** The report's environment line: a part may add what it measured with (e.g. versions). */
	environment: Record<string, string | number>;
	log(message: string): void;
}

/** Null when targets are not enforced (smoke), else whether the figure meets it. */
export function judged(ctx: BenchContext, met: boolean): boolean | null {
	return ctx.smoke ? null : met;
}

export const MB = 1024 * 1024;

/**
 * A phone's network at a ring (one-way latency added to every answer): parts 1 and 2 also measure
 * their ratios to plain fetch at it, where the exchange waits on the network rather than on the
 * 2 cores the browser and the service share at the bench's 20 ms.
 */
export const PHONE_LATENCY_MS = 80;
