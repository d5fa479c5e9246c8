// A CPU profile's heaviest functions by self time (bench parts record one on request, to find
// out what a long task is made of: RINGSIDE_BENCH_PROFILE=<dir>).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession } from '@playwright/test';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: ProfileNode[];
	samples?: number[];
	timeDeltas?: number[];
}

/** Where profiles go, or null when none is asked for. */
export const profileDir = (): string | null => process.env.RINGSIDE_BENCH_PROFILE || null;

export async function startProfile(session: CDPSession): Promise<void> {
	await session.send('Profiler.enable');
	await session.send('Profiler.setSamplingInterval', { interval: 200 });
	await session.send('Profiler.start');
}

/** Stops the profile, writes it as `<name>.cpuprofile` (DevTools opens it) and returns it. */
export async function stopProfile(
	session: CDPSession,
	dir: string,
	name: string
): Promise<CpuProfile> {
	const { profile } = (await session.send('Profiler.stop')) as { profile: CpuProfile };
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
	return profile;
}

/** The `n` functions with the most self time (idle, program and GC included), in ms. */
export function heaviest(profile: CpuProfile, n = 15): { where: string; ms: number }[] {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const self = new Map<string, number>();
	const samples = profile.samples ?? [];
	const deltas = profile.timeDeltas ?? [];
	for (let i = 0; i < samples.length; i++) {
		const node = byId.get(samples[i]!);
		if (!node) continue;
		const { functionName, url, lineNumber, columnNumber } = node.callFrame;
		const file = url ? url.slice(url.lastIndexOf('/') + 1) : '';
		const where = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}:${columnNumber + 1}`;
		self.set(where, (self.get(where) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
	}
	return [...self]
		.map(([where, ms]) => ({ where, ms }))
		.sort((a, b) => b.ms - a.ms)
		.slice(0, n);
}
