import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { between, mulberry32, seedsFrom, weighted, type Random } from './support/random';
import { getJson, ringQueue, type DogRunJson } from './support/service-data';

/**
 * A seeded walk of the gate screen (issue 33, part 4): random taps of a gate steward (Present, Not
 * presented, the same again to take a mark back) on the ring's next dogs, the signal lost and
 * back, and reloads, against a model of what each dog's mark is. The screen is checked against
 * the model after every step, and the service at the end, once every mark went out.
 *
 * RINGSIDE_WALK_SEEDS=17,42 reruns given seeds; RINGSIDE_WALK_STEPS sets the length.
 */
const SEEDS = seedsFrom('RINGSIDE_WALK_SEEDS', [1, 2]);
const STEPS = Number(process.env.RINGSIDE_WALK_STEPS ?? 24);
/** Dogs the walk taps: the first rows, on screen without scrolling far. */
const DOGS = 5;

type Mark = 'present' | 'not-presented' | null;
type Action = 'present' | 'not-presented' | 'offline' | 'online' | 'reload';

const row = (page: Page, id: number) =>
	page.locator(`[data-testid="gate-dog"][data-dog-run-id="${id}"]`);

async function checkScreen(page: Page, model: Map<number, Mark>, step: string): Promise<void> {
	for (const [id, mark] of model) {
		await expect(row(page, id), `${step}: dog run ${id}`).toHaveAttribute(
			'data-status',
			mark ?? 'none'
		);
	}
}

for (const seed of SEEDS) {
	test(`gate walk, seed ${seed}: every tap kept, sent and on the service`, async ({
		page,
		handle
	}) => {
		test.setTimeout(180_000);
		console.log(`gate walk seed ${seed} (RINGSIDE_WALK_SEEDS=${seed} reruns it), ${STEPS} steps`);
		const random: Random = mulberry32(seed);
		const { competition, ringId, waiting } = await ringQueue(handle.url);
		const ring = competition.rings.find((r) => r.id === ringId)!.name;
		const dogs: DogRunJson[] = waiting.slice(0, DOGS).map((w) => w.dog);

		await page.setViewportSize({ width: 360, height: 640 });
		await page.goto('/');
		const card = page.getByTestId('competition').filter({ hasText: competition.name });
		await card.getByRole('button', { name: 'Make available offline' }).click();
		await expect(card.getByTestId('offline-badge')).toHaveAttribute('data-kept', 'true', {
			timeout: 30_000
		});
		await card.getByRole('link').first().click();
		await page
			.getByTestId('gate-link')
			.filter({ hasText: `${ring}: gate` })
			.click();
		await expect(row(page, dogs[0]!.id)).toBeVisible({ timeout: 30_000 });

		const model = new Map<number, Mark>(dogs.map((d) => [d.id, null]));
		let offline: boolean = false;
		for (let step = 1; step <= STEPS; step++) {
			const action: Action = weighted<Action>(random, [
				['present', 5],
				['not-presented', 4],
				['offline', offline ? 0 : 1],
				['online', offline ? 2 : 0],
				['reload', 1]
			]);
			const dog = dogs[between(random, 0, dogs.length - 1)]!;
			const label = `seed ${seed} step ${step}: ${action}${action.endsWith('present') || action === 'not-presented' ? ` dog run ${dog.id}` : ''}`;
			if (action === 'present' || action === 'not-presented') {
				const button = action === 'present' ? 'gate-present' : 'gate-not-presented';
				await row(page, dog.id).getByTestId(button).click();
				model.set(dog.id, model.get(dog.id) === action ? null : action);
			} else if (action === 'offline' || action === 'online') {
				offline = action === 'offline';
				await page.context().setOffline(offline);
			} else {
				await page.reload();
				await expect(row(page, dogs[0]!.id)).toBeVisible({ timeout: 30_000 });
			}
			await checkScreen(page, model, label);
		}

		// Back online: every mark goes out, and the service has what the gate steward left.
		await page.context().setOffline(false);
		await expect(page.getByTestId('gate-sync')).toContainText('Every mark', { timeout: 30_000 });
		await checkScreen(page, model, `seed ${seed}: at the end`);
		const links = competition._links as unknown as Record<string, { href: string }>;
		const { checkIns } = await getJson<{ checkIns: { dogRunId: number; status: Mark }[] }>(
			links.checkIns!.href
		);
		const onService = new Map(checkIns.map((c) => [c.dogRunId, c.status]));
		for (const [id, mark] of model) {
			expect(onService.get(id) ?? null, `seed ${seed}: dog run ${id} on the service`).toBe(mark);
		}
	});
}
