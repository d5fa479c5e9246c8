import type { ServiceHandle } from '../e2e/fixtures';
import type { CompetitionJson, DogRunJson, RunJson } from '../e2e/support/service-data';
import type { Driver, Target } from './driver';

/**
 * What a ring steward does with the app, in any engine: the app opened once, then taps only
 * (the competition list, the competition, the run, a dog, the capture screen's own keypad, the
 * sync bar). Each step waits for what the steward would see before the next tap.
 */

/** The competition in progress, a run nobody recorded yet, its dog runs in start order. */
export interface Scene {
	competition: CompetitionJson;
	run: RunJson;
	dogRuns: DogRunJson[];
}

/** A result as the steward enters it. */
export interface Entry {
	/** As tapped on the keypad: '38,63' (the comma is the separator key). */
	time: string;
	faults?: number;
	refusals?: number;
}

/** The time as the service stores it (seconds, two decimals). */
export function seconds(entry: Entry): number {
	return Number(entry.time.replace(',', '.'));
}

/** A time as the app shows it in English: a point, two decimals. */
export function shownTime(time: number): string {
	return time.toFixed(2);
}

/** `text` as a regular expression that matches it literally. */
export function literal(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches a text that contains every one of `parts`, in any order. */
export function allOf(...parts: string[]): RegExp {
	return new RegExp(`^${parts.map((p) => `(?=[\\s\\S]*${literal(p)})`).join('')}`);
}

export const card = (name: string): Target => ({ testid: 'competition', hasText: name });
export const capture = (d: DogRunJson): Target => ({
	testid: 'capture',
	attr: { 'data-dog-run-id': String(d.id) }
});
export const dogRow = (d: DogRunJson): Target => ({
	testid: 'dog-run',
	attr: { 'data-dog-run-id': String(d.id) }
});
const PILL: Target = { testid: 'connectivity' };

export class Steward {
	constructor(
		readonly d: Driver,
		readonly scene: Scene
	) {}

	/** Start number and name, as the app says it ("No. 3 Wendy"). */
	label(d: DogRunJson): string {
		return `No. ${this.scene.dogRuns.indexOf(d) + 1} ${d.dog.name}`;
	}

	/** Opens the app (the one page load) and waits for its service worker and the list. */
	async openApp(url: string): Promise<void> {
		await this.d.open(url);
		await this.d.waitFor('the service worker to be active', () =>
			this.d.evaluate<boolean>(
				`Promise.race([navigator.serviceWorker.ready.then((r) => r.active !== null),
					new Promise((resolve) => setTimeout(() => resolve(false), 1000))])`
			)
		);
		await this.d.waitFor('the competition list', () =>
			this.d.visible(card(this.scene.competition.name))
		);
	}

	async makeAvailableOffline(): Promise<string> {
		const here = card(this.scene.competition.name);
		await this.d.tap({ role: 'button', name: 'Make available offline', within: here });
		const badge = await this.d.waitForText(
			{ testid: 'offline-badge', within: here },
			/^✓ Available offline/,
			60_000
		);
		await this.d.waitFor('the download to finish', async () => {
			return !(await this.d.visible({ testid: 'download-progress', within: here }));
		});
		return badge;
	}

	/** From the competition list: the competition, the run's day, the run. */
	async openRun(): Promise<void> {
		const { competition, run } = this.scene;
		await this.d.tap({ role: 'link', within: card(competition.name) });
		await this.d.waitForText({ role: 'heading', name: competition.name }, competition.name);
		const day: Target = { testid: 'day', attr: { 'data-date': run.date } };
		if (await this.d.visible(day)) await this.d.tap(day);
		await this.d.tap({ testid: 'run', attr: { href: `/runs/${run.id}` } });
		await this.d.waitForText({ role: 'heading', name: run.name }, run.name);
	}

	/** From the run screen: a dog's capture screen. */
	async openDog(d: DogRunJson): Promise<void> {
		await this.d.tap(dogRow(d));
		await this.onDog(d);
	}

	/** Waits until the capture screen shows `d` (its number and name in the heading). */
	async onDog(d: DogRunJson): Promise<void> {
		const no = this.scene.dogRuns.indexOf(d) + 1;
		await this.d.waitForText(
			{ role: 'heading', within: capture(d) },
			new RegExp(`^${no} ${literal(d.dog.name)}`)
		);
	}

	/** Back from the capture screen to the run (the app bar's link). */
	async backToRun(): Promise<void> {
		const { run } = this.scene;
		await this.d.tap({ role: 'link', name: `Back to ${run.name}` });
		await this.d.waitForText({ role: 'heading', name: run.name }, run.name);
	}

	/** Types a time on the capture screen's keypad and checks the field shows it. */
	async tapTime(text: string): Promise<void> {
		for (const ch of text) {
			const key = ch === ',' || ch === '.' ? 'sep' : ch;
			await this.d.tap({ attr: { 'data-key': key }, within: { testid: 'keypad' } });
		}
		await this.d.waitForText({ testid: 'time-input' }, text.replace(',', '.'));
	}

	/** Enters a result on the screen of `d` (the time on the keypad, then the steppers). */
	async enter(d: DogRunJson, entry: Entry): Promise<void> {
		await this.onDog(d);
		await this.tapTime(entry.time);
		for (const [field, label] of [
			['faults', 'Faults'],
			['refusals', 'Refusals']
		] as const) {
			for (let i = 0; i < (entry[field] ?? 0); i++) {
				await this.d.tap({ role: 'button', name: `One more ${label}` });
			}
			await this.d.waitForText({ testid: `${field}-value` }, String(entry[field] ?? 0));
		}
	}

	/**
	 * Save & next on the screen of `d`: the confirmation names the dog and the next dog is on
	 * screen (or, on the last dog, the app says it was the last).
	 */
	async saveAndNext(d: DogRunJson): Promise<DogRunJson | null> {
		await this.d.tap({ testid: 'save-next' });
		const next = this.scene.dogRuns[this.scene.dogRuns.indexOf(d) + 1] ?? null;
		await this.d.waitForText(
			{ testid: 'flash' },
			new RegExp(
				next
					? `^Saved on device: ${literal(this.label(d))}`
					: `^${literal('This was the last dog of the run.')}`
			)
		);
		if (next) await this.onDog(next);
		return next;
	}

	/** The header's connectivity pill, as a steward reads it. */
	pill(): Promise<string | null> {
		return this.d.text(PILL);
	}

	/** The unsent count on the sync bar ("3 not sent"), or null when nothing waits. */
	unsent(): Promise<string | null> {
		return this.d.text({ testid: 'pending-count' });
	}

	/** The sync bar (the app bar's counts on a task screen, else the bar's summary): Sync. */
	async openSync(): Promise<void> {
		const compact: Target = { testid: 'sync-bar', role: 'link' };
		await this.d.tap(
			(await this.d.visible(compact)) ? compact : { role: 'link', within: { testid: 'sync-bar' } }
		);
		await this.d.waitForText({ role: 'heading', name: 'Sync' }, 'Sync');
	}
}

/** What the service holds for a dog run, read from its own database (no request). */
export function onService(
	handle: ServiceHandle,
	dogRunId: number
): { time: number | null; faults: number; refusals: number } {
	const db = handle.service.db;
	if (!db) throw new Error('the engine flows need the service on SQLite');
	const row = db
		.prepare('SELECT time_cs, faults, refusals FROM dog_run WHERE id = ?')
		.get(dogRunId) as { time_cs: number | null; faults: number; refusals: number } | undefined;
	if (!row) throw new Error(`no dog run ${dogRunId} on the service`);
	return {
		time: row.time_cs === null ? null : row.time_cs / 100,
		faults: row.faults,
		refusals: row.refusals
	};
}

/** The accepted PUTs of one dog run, from the service's own PUT log. */
export function acceptedPuts(handle: ServiceHandle, dogRunId: number): Record<string, unknown>[] {
	return handle
		.putLog()
		.filter((p) => p.resourceKind === 'dogRun' && p.resourceId === dogRunId && p.status === 200)
		.map((p) => JSON.parse(p.requestBody ?? '{}') as Record<string, unknown>);
}
