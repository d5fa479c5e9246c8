import { mkdirSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { putJson, ringQueue, type Queue } from './support/service-data';

/**
 * "Your turn" on a spectator's phone (issue 33, part 2): a handler marks their dog on the follow
 * view and turns alerts on; as the ring runs (a result every 50 s on the page's fake clock) the
 * view measures the ring's pace, says "about 2 min", and alerts at "to the gate" and again at
 * "at the start" with a vibration, a sound and a notification. When the results service goes
 * away while the phone's network stays up, the view goes on from its last news and says how old
 * it is; the news, once back, alerts the stage again (a guess may be early). The phone opens the big screen's address once (a fresh context) and goes on by taps.
 */
const SCREENS = 'test-results/screens';
const PHONE = { width: 360, height: 640 };
const DOG_MS = 50_000;

/** Records what the page asked of the phone: vibrations, notifications, tones started. */
const SPIES = () => {
	const seen = { vibrate: 0, notes: [] as string[], tones: 0 };
	(window as unknown as { turnSignals: typeof seen }).turnSignals = seen;
	navigator.vibrate = () => {
		seen.vibrate++;
		return true;
	};
	const show = ServiceWorkerRegistration.prototype.showNotification;
	ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
		seen.notes.push(`${title} / ${options?.body ?? ''}`);
		return show.call(this, title, options).catch(() => undefined);
	};
	const start = OscillatorNode.prototype.start;
	OscillatorNode.prototype.start = function (...args) {
		seen.tones++;
		return start.apply(this, args);
	};
};

type Signals = { vibrate: number; notes: string[]; tones: number };
const signals = (page: Page) =>
	page.evaluate(() => (window as unknown as { turnSignals: Signals }).turnSignals);

interface Words {
	locale: string;
	find: string;
	enable: string;
	on: RegExp;
	before: (n: number, run: string) => string;
	gate: (dog: string) => string;
	start: (dog: string) => string;
	probablyStart: (dog: string) => string;
	where: (run: string, no: number) => string;
	about2: string;
	fromNews: RegExp;
	ok: string;
}

const EN: Words = {
	locale: 'en-US',
	find: 'Find a dog',
	enable: 'Alert me when my dogs are next',
	on: /^Alerts on: .* Notifications too\.$/,
	before: (n, run) => `${n} dogs before it · ${run}`,
	gate: (dog) => `${dog}: to the gate`,
	start: (dog) => `${dog}: at the start`,
	probablyStart: (dog) => `${dog}: probably at the start`,
	where: (run, no) => `${run} · No. ${no}`,
	about2: 'about 2 min',
	fromNews: /estimated from news 2 min\. ago|estimated from news 2 minutes ago/,
	ok: 'OK'
};

const CS: Words = {
	locale: 'cs-CZ',
	find: 'Najít psa',
	enable: 'Upozornit mě, až budou moji psi na řadě',
	on: /^Upozornění zapnuta: .* I oznámení\.$/,
	before: (n, run) => `Před ním ${n} ${n < 5 ? 'psi' : 'psů'} · ${run}`,
	gate: (dog) => `${dog}: k bráně`,
	start: (dog) => `${dog}: na startu`,
	probablyStart: (dog) => `${dog}: asi na startu`,
	where: (run, no) => `${run} · č. ${no}`,
	about2: 'asi za 2 min',
	fromNews: /odhad podle zpráv před 2 min/,
	ok: 'OK'
};

/**
 * Resolves once the page has had no request to the service in flight for `quietMs` (its push
 * stream aside). The clock jumps only then: a request in flight across a jump of 50 s would time
 * out on the page's clock, which no phone at the ring sees.
 */
async function settled(page: Page, quietMs = 700): Promise<void> {
	const open = new Set<unknown>();
	let last = Date.now();
	const api = (r: { url(): string }) => r.url().includes('/api/') && !r.url().endsWith('/changes');
	const started = (r: { url(): string }) => {
		if (!api(r)) return;
		open.add(r);
		last = Date.now();
	};
	const ended = (r: { url(): string }) => {
		open.delete(r);
		last = Date.now();
	};
	page.on('request', started);
	page.on('requestfinished', ended);
	page.on('requestfailed', ended);
	try {
		await expect
			.poll(() => open.size === 0 && Date.now() - last >= quietMs, { timeout: 15_000 })
			.toBe(true);
	} finally {
		page.off('request', started);
		page.off('requestfinished', ended);
		page.off('requestfailed', ended);
	}
}

/** The steward's save of the dog at the start, straight to the service (not the app under test). */
async function ringRuns(queue: Queue, index: number): Promise<void> {
	const { dog } = queue.waiting[index]!;
	expect(await putJson(dog._links.self.href, { time: 38 + index / 10 })).toBe(200);
}

for (const words of [EN, CS]) {
	test(`your turn: pace, alerts at the gate and at the start, and an estimate offline (${words.locale})`, async ({
		browser,
		handle
	}) => {
		test.setTimeout(120_000);
		mkdirSync(SCREENS, { recursive: true });
		const queue = await ringQueue(handle.url);
		const theirs = queue.waiting[5]!;
		const { name } = theirs.dog.dog;

		const context = await browser.newContext({
			baseURL: handle.url,
			viewport: PHONE,
			isMobile: true,
			hasTouch: true,
			locale: words.locale,
			permissions: ['notifications']
		});
		const phone = await context.newPage();
		await phone.clock.install();
		await phone.addInitScript(SPIES);
		await phone.goto(`/follow/${queue.competition.id}/${queue.ringId}`);
		await expect(phone.getByTestId('follow-current')).toContainText(
			queue.waiting[0]!.dog.dog.name,
			{ timeout: 30_000 }
		);

		// Their dog, found and marked; alerts on (the phone asks for notifications on the tap).
		await phone.getByLabel(words.find).fill(name);
		await phone
			.getByTestId('found-dog')
			.filter({ hasText: theirs.dog.competitor.lastname })
			.getByTestId('mark')
			.tap();
		const mine = phone.getByTestId('my-dog');
		await expect(mine.getByTestId('my-dog-status')).toHaveText(words.before(5, theirs.run.name));
		await phone.getByRole('button', { name: words.enable }).tap();
		await expect(phone.getByTestId('turn-switch').getByRole('status')).toHaveText(words.on);
		// No pace yet: no time promised.
		await expect(mine.getByTestId('my-dog-left')).toHaveCount(0);

		// The ring runs: a dog every 50 s. After three, the pace is measured, and their dog is
		// called to the gate, with the time left at that pace.
		for (let i = 0; i < 3; i++) {
			await settled(phone);
			await phone.clock.fastForward(DOG_MS);
			await ringRuns(queue, i);
			await expect(phone.getByTestId('follow-current')).toContainText(
				queue.waiting[i + 1]!.dog.dog.name
			);
			if (i === 1) {
				await expect(mine.getByTestId('my-dog-status')).toHaveText(
					words.before(3, theirs.run.name)
				);
				// One step measured (the first, from the opening, is not a dog's): still no time.
				await expect(mine.getByTestId('my-dog-left')).toHaveCount(0);
			}
		}
		const alert = phone.getByTestId('turn-alert');
		await expect(alert).toHaveCount(1);
		await expect(alert.getByTestId('turn-alert-title')).toHaveText(words.gate(name));
		await expect(alert.getByTestId('turn-alert-body')).toHaveText(
			`${words.where(theirs.run.name, theirs.startNo)} · ${words.about2}`
		);
		await expect(mine.getByTestId('my-dog-left')).toHaveText(words.about2);
		let seen = await signals(phone);
		expect(seen.vibrate).toBe(1);
		expect(seen.tones).toBeGreaterThan(0);
		expect(seen.notes).toEqual([
			`${words.gate(name)} / ${words.where(theirs.run.name, theirs.startNo)} · ${words.about2}`
		]);
		await phone.evaluate(() => window.scrollTo(0, 0));
		await phone.screenshot({ path: `${SCREENS}/your-turn-gate-${words.locale}-360.png` });

		// One more dog: still at the gate, no second alert. Dismissed with a tap.
		await settled(phone);
		await phone.clock.fastForward(DOG_MS);
		await ringRuns(queue, 3);
		await expect(mine.getByTestId('my-dog-status')).toHaveText(
			new RegExp(`${theirs.run.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
		);
		await expect(phone.getByTestId('follow-current')).toContainText(queue.waiting[4]!.dog.dog.name);
		expect((await signals(phone)).vibrate).toBe(1);
		await alert.getByRole('button', { name: words.ok }).tap();
		await expect(alert).toHaveCount(0);

		// The results service goes away (the phone's network stays up). Two minutes on, by the
		// ring's pace their dog is probably at the start: alerted from the last news, with its age.
		await handle.stop();
		await phone.clock.fastForward(2 * 60_000 + 10_000);
		await expect(alert.getByTestId('turn-alert-title')).toHaveText(words.probablyStart(name), {
			timeout: 20_000
		});
		await expect(alert.getByTestId('turn-alert-body')).toHaveText(words.fromNews);
		seen = await signals(phone);
		expect(seen.vibrate).toBe(2);
		expect(seen.notes).toHaveLength(2);
		await phone.evaluate(() => window.scrollTo(0, 0));
		await phone.screenshot({ path: `${SCREENS}/your-turn-estimated-${words.locale}-360.png` });

		// The service back, the dog ahead of theirs runs: the news puts it at the start, and that is
		// alerted too (a guess may be early: the news is what to go by), once.
		await handle.start();
		await ringRuns(queue, 4);
		await expect(phone.getByTestId('follow-current')).toContainText(name, { timeout: 30_000 });
		await expect(alert.first().getByTestId('turn-alert-title')).toHaveText(words.start(name));
		seen = await signals(phone);
		expect(seen.vibrate).toBe(3);
		expect(seen.notes.at(-1)).toBe(
			`${words.start(name)} / ${words.where(theirs.run.name, theirs.startNo)}`
		);

		// A reload keeps the switch and alerts nothing twice.
		await phone.reload();
		await expect(phone.getByTestId('follow-current')).toContainText(name, { timeout: 30_000 });
		await expect(phone.getByTestId('turn-switch').getByRole('status')).toHaveText(words.on);
		expect((await signals(phone)).vibrate).toBe(0);
		await context.close();
	});
}
