import { mkdirSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test, type ServiceHandle } from './fixtures';
import { Chronometer } from './support/chronometer';
import { textProblems } from './support/text-boxes';
import {
	getJson,
	makeAvailableOffline,
	unrecordedRun,
	type DogRunJson
} from './support/service-data';

/**
 * Electronic timing, end to end: a chronometer on TCP (scripted) → the embedded service's timer
 * bridge → the ring's timer stream → the capture screen of a phone. The app is opened once; the
 * steward then moves with taps only (Save & next, ›, the buttons of a held stop).
 */

const SCREENS = 'test-results/screens';

// A small phone in one hand: the timing's states must fit it as the rest of the screen does.
test.use({ viewport: { width: 360, height: 640 }, isMobile: true, hasTouch: true });

/**
 * A screenshot for a person to look at; the capture screen still needs no scrolling, and no text
 * of it is cut or under another (the gates' dot and "from the gates" included).
 */
async function shot(page: Page, name: string, scrolls = false): Promise<void> {
	mkdirSync(SCREENS, { recursive: true });
	await page.screenshot({ path: `${SCREENS}/timing-${name}.png` });
	if (scrolls) return;
	const height = await page.evaluate(() => document.documentElement.scrollHeight);
	expect(height, `${name}: page height`).toBeLessThanOrEqual(641);
	expect(await textProblems(page), `${name}: text`).toEqual([]);
}

const FAST = { reconnectMinMs: 50, reconnectMaxMs: 200, connectTimeoutMs: 1000 };

const dogOnScreen = (page: Page) =>
	page.getByTestId('capture').getAttribute('data-dog-run-id').then(Number);

const onService = (d: DogRunJson) => getJson<DogRunJson>(d._links.self.href);

type Run = Awaited<ReturnType<typeof unrecordedRun>>;

/** The ring laptop's service, started again reading `chrono` as the chronometer of the run's ring. */
async function timeTheRing(handle: ServiceHandle, chrono: Chronometer, data: Run): Promise<void> {
	await handle.stop();
	await handle.start({
		timer: `ring=${data.run.competitionRing.id},tcp:127.0.0.1:${chrono.port}`,
		timerOptions: FAST
	});
	await expect.poll(() => chrono.connected, { timeout: 10_000 }).toBe(true);
}

/** Opens the app once, makes the competition available offline, and taps into it. */
async function openCompetition(page: Page, data: Run): Promise<void> {
	await page.goto('/');
	await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active !== null);
	await makeAvailableOffline(page, data.competition.name);
	await page.locator(`a[href="/competitions/${data.competition.id}"]`).first().click();
}

/** …then the run, then its first dog, by taps. */
async function openFirstDog(page: Page, data: Run): Promise<void> {
	await page.locator(`a[href="/runs/${data.run.id}"]`).first().click();
	const first = data.dogRuns[0]!.id;
	await page.locator(`[data-testid="dog-run"][data-dog-run-id="${first}"]`).click();
	await expect(page.getByTestId('capture')).toHaveAttribute('data-dog-run-id', String(first));
}

test('the time comes from the gates onto the dog on screen; a stop for another dog is held; a pulled cable is said', async ({
	page,
	handle
}) => {
	test.setTimeout(120_000);
	const chrono = await new Chronometer().start();
	try {
		const data = await unrecordedRun(handle.url, 6);
		// The ring laptop's service reads the chronometer of this ring.
		await timeTheRing(handle, chrono, data);
		await openCompetition(page, data);
		await openFirstDog(page, data);
		const [first, second, third] = data.dogRuns as [DogRunJson, DogRunJson, DogRunJson];
		const capture = page.getByTestId('capture');
		await expect(capture).toHaveAttribute('data-gates', 'connected', { timeout: 15_000 });

		// Dog 1 runs: the running time shows large, the stop fills Time "from the gates".
		chrono.send('START 1005');
		await expect(page.getByTestId('running-time')).toBeVisible();
		await shot(page, '1-running');
		const sentAt = chrono.send('STOP 39644');
		await expect(page.getByTestId('time-input')).toHaveValue('38.63');
		const shownAfter = Date.now() - sentAt;
		console.log(`[timing] stop line → Time field on the phone: ${shownAfter} ms (one sample)`);
		await expect(page.getByTestId('time-source')).toHaveText('from the gates');
		await shot(page, '2-from-the-gates');
		// The next dog starts and stops while this one is still on screen: its time is not put
		// over this one's; the steward is asked, and keeps this dog's.
		chrono.send('START 200000');
		chrono.send('STOP 240000');
		const ask = page.getByTestId('gate-ask');
		await expect(ask).toContainText('40.00');
		await expect(page.getByTestId('time-input')).toHaveValue('38.63');
		await ask.getByRole('button', { name: 'Keep 38.63' }).click();
		await expect(ask).toHaveCount(0);
		await expect(page.getByTestId('time-input')).toHaveValue('38.63');
		// Faults stay manual; Save & next confirms and moves on.
		await page.getByRole('button', { name: 'One more Faults' }).click();
		await page.getByTestId('save-next').click();
		await expect(capture).toHaveAttribute('data-dog-run-id', String(second.id));
		await expect(page.getByTestId('time-input')).toHaveValue('');
		await expect
			.poll(
				async () => {
					const d = await onService(first);
					return [d.time, d.faults];
				},
				{ timeout: 15_000 }
			)
			.toEqual([38.63, 1]);

		// Dog 2 starts; the steward moves on to dog 3 too early; the stop comes: it is not put on
		// dog 3, it is held and shown with why, and one tap puts it on dog 2.
		chrono.send('START 50000');
		await expect(page.getByTestId('running-time')).toBeVisible();
		await page.getByRole('link', { name: 'Next dog' }).click();
		await expect(capture).toHaveAttribute('data-dog-run-id', String(third.id));
		chrono.send('STOP 90009');
		const held = page.getByTestId('held-stop');
		await expect(held).toContainText('40.00');
		await expect(held).toContainText('another dog was on screen');
		await shot(page, '3-held');
		await expect(page.getByTestId('time-input')).toHaveValue('');
		await page.getByTestId('held-put-starter').click();
		await expect(capture).toHaveAttribute('data-dog-run-id', String(second.id));
		await expect(page.getByTestId('time-input')).toHaveValue('40.00');
		await expect(page.getByTestId('time-source')).toHaveText('from the gates');
		await expect(page.getByTestId('held-stop')).toHaveCount(0);
		// Away and back without saving: the gates' time is still there, not lost.
		await page.getByRole('link', { name: 'Next dog' }).click();
		await expect(capture).toHaveAttribute('data-dog-run-id', String(third.id));
		await expect(page.getByTestId('time-input')).toHaveValue('');
		await page.getByRole('link', { name: 'Previous dog' }).click();
		await expect(capture).toHaveAttribute('data-dog-run-id', String(second.id));
		await expect(page.getByTestId('time-input')).toHaveValue('40.00');
		await page.getByTestId('save-next').click();
		await expect(capture).toHaveAttribute('data-dog-run-id', String(third.id));
		await expect.poll(async () => (await onService(second)).time, { timeout: 15_000 }).toBe(40);

		// A stop with no start (the chronometer was reset): held; set aside, nothing is filled.
		chrono.send('RESET');
		chrono.send('STOP 12345');
		await expect(page.getByTestId('held-stop')).toContainText('no start was seen');
		await page.getByTestId('held-set-aside').click();
		await expect(page.getByTestId('held-stop')).toHaveCount(0);
		await expect(page.getByTestId('keypad')).toBeVisible();
		await expect(page.getByTestId('time-input')).toHaveValue('');

		// The cable is pulled at the ring laptop: the screen says so; times can still be typed.
		chrono.pull();
		await expect(capture).toHaveAttribute('data-gates', 'disconnected', { timeout: 15_000 });
		await expect(page.getByTestId('timing-problem')).toContainText('lost the chronometer');
		await shot(page, '4-cable-pulled');
		await page.getByTestId('keypad').locator('[data-key="4"]').click();
		await expect(page.getByTestId('time-input')).toHaveValue('4');
		chrono.plugIn();
		await expect(capture).toHaveAttribute('data-gates', 'connected', { timeout: 15_000 });
		await expect(page.getByTestId('timing-problem')).toHaveCount(0);

		// Nothing from the gates ever landed on dog 3.
		expect((await onService(third)).time).toBeNull();
		expect(await dogOnScreen(page)).toBe(third.id);
	} finally {
		await chrono.close();
	}
});

test('the hand stopwatch times a dog with two taps, and the steward saves it', async ({
	page,
	handle
}) => {
	test.setTimeout(90_000);
	const data = await unrecordedRun(handle.url, 3);
	await openCompetition(page, data);
	await page.getByRole('link', { name: 'Settings' }).click();
	await page.getByTestId('stopwatch-setting').check();
	await page.getByRole('link', { name: 'Competitions' }).click();
	await page.locator(`a[href="/competitions/${data.competition.id}"]`).first().click();
	await openFirstDog(page, data);
	const [first, second] = data.dogRuns as [DogRunJson, DogRunJson];

	const target = page.getByTestId('stopwatch-target');
	await expect(target).toHaveText('Start');
	await shot(page, '5-stopwatch');
	await target.click();
	await expect(target).toHaveText('Stop');
	await expect(page.getByTestId('running-time')).toBeVisible();
	// A double tap right after the start is not a stop.
	await target.click();
	await expect(target).toHaveText('Stop');
	await shot(page, '6-stopwatch-running');
	await page.waitForTimeout(1_200);
	await target.click();
	const time = page.getByTestId('time-input');
	await expect(time).toHaveValue(/^\d+\.\d\d$/);
	const seconds = Number(await time.inputValue());
	expect(seconds).toBeGreaterThanOrEqual(1.2);
	expect(seconds).toBeLessThan(10);
	await expect(page.getByTestId('time-source')).toHaveText('stopwatch');
	// With a time, the keypad is back for a correction.
	await expect(page.getByTestId('keypad')).toBeVisible();
	await page.getByTestId('save-next').click();
	await expect(page.getByTestId('capture')).toHaveAttribute('data-dog-run-id', String(second.id));
	await expect(page.getByTestId('stopwatch-target')).toHaveText('Start');
	await expect.poll(async () => (await onService(first)).time, { timeout: 15_000 }).toBe(seconds);
});

test('the ring board: the 15 s countdown warns at 5 s, the course walk counts down, the gates show the running time, also on the big screen', async ({
	page,
	handle
}) => {
	test.setTimeout(90_000);
	const chrono = await new Chronometer().start();
	try {
		const data = await unrecordedRun(handle.url, 3);
		await timeTheRing(handle, chrono, data);
		await openCompetition(page, data);
		const ringId = data.run.competitionRing.id;
		await page.locator(`a[href="/rings/${data.competition.id}/${ringId}"]`).first().click();
		await expect(page.getByTestId('ring-gates')).toHaveText('Gates connected', {
			timeout: 15_000
		});
		// The ring board's point on the first screen: the dog at the start and Record, unscrolled
		// (the clocks' tools below them); also while a countdown shows.
		const firstScreen = async (where: string) => {
			await page.evaluate(() => window.scrollTo(0, 0));
			const current = page.getByTestId('ring-current');
			await expect(current).toContainText(data.dogRuns[0]!.dog.name);
			for (const part of [current, current.getByRole('link', { name: 'Record' })]) {
				const b = (await part.boundingBox())!;
				expect(b.y + b.height, `${where}: ${part}`).toBeLessThanOrEqual(640);
			}
		};
		await firstScreen('ring board');
		await shot(page, '6b-ring-board', true);

		// The judge signals: the handler has 15 s.
		await page.getByRole('button', { name: '15 s to start' }).click();
		const countdown = page.getByTestId('countdown');
		await expect(countdown).toContainText(/1[45] s/);
		await expect(countdown).not.toHaveClass(/warn/);
		// The chronometer's own countdown (DOWN) takes over, and warns in its last 5 s.
		chrono.send('DOWN 5');
		await expect(countdown).toHaveClass(/warn/);
		await expect(countdown).toContainText(/[45] s/);
		await shot(page, '7-ring-countdown', true);
		await firstScreen('ring board, countdown');
		// The dog starts: the countdown ends, the running time shows until the stop.
		chrono.send('START 2000');
		await expect(countdown).toHaveCount(0);
		await expect(page.getByTestId('ring-running')).toBeVisible();
		chrono.send('STOP 40000');
		await expect(page.getByTestId('ring-running')).toHaveCount(0);

		// The course walk: chosen length, counting down, ended by hand.
		await page.getByRole('combobox', { name: 'Course walk' }).selectOption('5');
		await page.getByRole('button', { name: 'Course walk' }).click();
		const walkShown = page.getByTestId('walk');
		await expect(walkShown).toContainText(/[45]:\d\d/);
		await shot(page, '8-ring-walk', true);
		await page.getByRole('button', { name: 'End the walk' }).click();
		await expect(walkShown).toHaveCount(0);

		// The big screen of the ring shows the spectators the running time and the stop.
		await page.getByTestId('board-link').click();
		await expect(page.getByTestId('board-current')).toBeVisible();
		chrono.send('START 100000');
		await expect(page.getByTestId('board-clock')).toBeVisible();
		chrono.send('STOP 138120');
		await expect(page.getByTestId('board-clock')).toContainText('38.12 s');
		await shot(page, '9-big-screen', true);
		await page.goBack();

		// A line that is not the protocol is shown as it came, and never becomes a time.
		chrono.send('STOP 38?30');
		await expect(page.getByTestId('ring-garbage')).toContainText('“STOP 38?30”');
		await expect(page.getByTestId('ring-running')).toHaveCount(0);

		chrono.pull();
		await expect(page.getByTestId('ring-gates')).toContainText('lost the chronometer', {
			timeout: 15_000
		});
	} finally {
		await chrono.close();
	}
});
