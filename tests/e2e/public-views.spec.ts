import { mkdirSync } from 'node:fs';
import type { Page, Response } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { findNginx } from '../../scripts/nginx-bin';
import { findPgBin } from '../../scripts/pg-bin';
import { startTopology, type Topology } from '../../scripts/topology';
import { ringQueue } from './support/service-data';
import { phone } from './support/phone';

/**
 * Public views respect privacy and the secretary (issue 33, part 3), at an event where only joined
 * phones read: two instances of the service in separate processes on one PostgreSQL database
 * behind nginx, as docs/deployment.md runs them. The secretary's phone sets how handlers' names
 * show and whether results wait for release; spectators' phones (joined with the spectators'
 * link, their streams on whichever instance nginx chose) follow within a second, one of them
 * while it was offline, and the service never sends them a hidden name. Every phone is opened
 * once and goes on by taps, at 360×640, in English and in Czech.
 *
 * Needs PostgreSQL's and nginx's binaries; with RINGSIDE_TEST_PG=1 (CI) it fails without them.
 */
const available = findPgBin() !== null && findNginx() !== null;
const required = process.env.RINGSIDE_TEST_PG === '1';
const SCREENS = 'test-results/screens';
/** Generous: the issue asks for a second; more fails only a view that does not follow at all. */
const FOLLOWS_WITHIN_MS = 5_000;

test.skip(!available && !required, 'PostgreSQL or nginx is not installed');

/** Every JSON answer of the service the page reads, from now on (bodies kept as text). */
function answersOf(page: Page): { texts: string[]; stop: () => void } {
	const texts: string[] = [];
	const seen = (response: Response) => {
		if (!response.url().includes('/api/') || response.url().endsWith('/changes')) return;
		void response.text().then(
			(text) => texts.push(text),
			() => undefined
		);
	};
	page.on('response', seen);
	return { texts, stop: () => page.off('response', seen) };
}

/** How long after `act` the page shows what `shown` waits for, in ms. */
async function timed(act: () => Promise<void>, shown: () => Promise<void>): Promise<number> {
	const start = Date.now();
	await act();
	await shown();
	return Date.now() - start;
}

test('the secretary hides names and holds results back; spectators on either instance follow at once', async ({
	browser
}) => {
	test.setTimeout(300_000);
	mkdirSync(SCREENS, { recursive: true });
	const t: Topology = await startTopology({
		args: [
			'--seed',
			'small',
			'--app',
			'build',
			'--quiet',
			'--read-budget',
			'off',
			'--auth',
			'required'
		]
	});
	try {
		// The start prints the secretary's join link; the secretary opens it on a phone, once.
		const token = /\/join#t=([A-Za-z0-9_-]+)/.exec(t.instances[0]!.output())?.[1];
		expect(token, t.instances[0]!.output()).toBeTruthy();
		const desk = await phone(browser, t.url, { locale: 'en-US' });
		await desk.goto(`/join#t=${token}`);
		await desk.getByTestId('join').click();
		await expect(desk.getByTestId('joined')).toBeVisible();

		// The competition under way, made available offline: then the spectators' link, made on
		// the Devices screen, gives each of its rings a big screen that brings spectators in.
		await desk.getByRole('link', { name: 'Competitions' }).first().click();
		const card = desk.getByTestId('competition').filter({ hasText: 'In progress' }).first();
		await card.getByRole('button', { name: 'Make available offline' }).click();
		await expect(card.getByTestId('offline-badge')).toHaveAttribute('data-kept', 'true', {
			timeout: 30_000
		});
		await desk.getByRole('link', { name: 'Settings' }).first().click();
		await desk.getByTestId('devices-link').click();
		await desk.getByTestId('make-spectators').click();
		const boardLink = desk.getByTestId('spectators-board').first();
		await expect(boardLink).toBeVisible();
		const boardHref = (await boardLink.getAttribute('href'))!;
		const spectators = new URLSearchParams(new URL(boardHref).hash.slice(1)).get('spectators')!;
		// The test reads the service as a viewer would, with the same link.
		const joined = await fetch(new URL('/api/v1/devices/join', t.url), {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: spectators, name: 'test reader' })
		});
		const reader = {
			Authorization: `Bearer ${((await joined.json()) as { credential: string }).credential}`
		};
		const { competition, ringId, waiting } = await ringQueue(t.url, reader);
		const atStart = waiting[0]!;
		const { firstname, lastname } = atStart.dog.competitor;
		expect(lastname).not.toBe('');

		// A spectator scans the big screen's code: one tap on Join, and the ring's view.
		const followAddress = `/join#${new URLSearchParams({ t: spectators, then: `/follow/${competition.id}/${ringId}` })}`;
		const fan = await phone(browser, t.url, { locale: 'en-US' });
		await fan.goto(followAddress);
		await fan.getByTestId('join').click();
		const current = fan.getByTestId('follow-current');
		await expect(current).toContainText(atStart.dog.dog.name, { timeout: 30_000 });
		await expect(current).toContainText(`${firstname} ${lastname}`);
		await expect(fan.getByTestId('follow')).toHaveAttribute('data-live', 'push');

		// The secretary opens the competition and its Public views.
		await desk.getByRole('link', { name: 'Competitions' }).first().click();
		await desk
			.getByTestId('competition')
			.filter({ hasText: competition.name })
			.getByRole('link')
			.first()
			.click();
		const settings = desk.getByTestId('public-views');
		await expect(settings).toBeVisible({ timeout: 30_000 });
		await expect(settings.getByTestId('names-full')).toHaveAttribute('aria-pressed', 'true');

		// Hidden: gone from the spectator's phone within a second, and never sent to it again.
		const answers = answersOf(fan);
		const hideMs = await timed(
			() => settings.getByTestId('names-hidden').click(),
			() => expect(current).not.toContainText(lastname, { timeout: FOLLOWS_WITHIN_MS })
		);
		console.log(`names hidden on the spectator's phone ${hideMs} ms after the secretary's tap`);
		await expect(settings.getByTestId('names-hidden')).toHaveAttribute('aria-pressed', 'true');
		await expect(settings.getByTestId('public-views-status')).toContainText('Saved');
		await expect(current).toContainText(atStart.dog.dog.name);
		await expect(fan.getByTestId('follow-next')).not.toContainText(lastname);
		await expect.poll(() => answers.texts.length, { timeout: 10_000 }).toBeGreaterThan(0);
		await desk.screenshot({
			path: `${SCREENS}/public-views-secretary-en-US-360.png`,
			fullPage: true
		});
		await fan.screenshot({ path: `${SCREENS}/public-views-hidden-en-US-360.png`, fullPage: true });

		// A phone without signal keeps its copy; it applies the change when it hears again.
		await fan.context().setOffline(true);
		await settings.getByTestId('names-initials').click();
		await expect(settings.getByTestId('names-initials')).toHaveAttribute('aria-pressed', 'true');
		await fan.waitForTimeout(1_500);
		await expect(current).not.toContainText(lastname);
		await expect(current).not.toContainText(`${lastname[0]}.`);
		await fan.context().setOffline(false);
		await expect(current).toContainText(`${firstname[0]}. ${lastname[0]}.`, { timeout: 15_000 });
		answers.stop();
		for (const text of answers.texts) expect(text).not.toContain(lastname);

		// Results once released: the order and who has run, no result, no ranking.
		await settings.getByTestId('results-released').click();
		await expect(settings.getByTestId('results-released')).toHaveAttribute('aria-pressed', 'true');
		await expect(fan.getByTestId('results-not-released')).toBeVisible({
			timeout: FOLLOWS_WITHIN_MS
		});
		const last = fan.getByTestId('follow-last');
		await expect(last.getByTestId('result-withheld').first()).toHaveText('Done');

		// The big screen, opened with the spectators' link: the same settings.
		const tv = await (
			await browser.newContext({ viewport: { width: 1920, height: 1080 } })
		).newPage();
		await tv.goto(boardHref);
		await expect(tv.getByTestId('board-start-no')).toHaveText(String(atStart.startNo), {
			timeout: 30_000
		});
		await expect(tv.getByTestId('results-not-released')).toBeVisible();
		await expect(tv.getByTestId('board-current')).toContainText(`${firstname[0]}. ${lastname[0]}.`);
		await expect(tv.getByTestId('board')).not.toContainText(lastname);

		// In Czech, another spectator: the same view, in its words.
		const czech = await phone(browser, t.url, { locale: 'cs-CZ' });
		await czech.goto(followAddress);
		await czech.getByTestId('join').click();
		await expect(czech.getByTestId('follow-current')).toContainText(atStart.dog.dog.name, {
			timeout: 30_000
		});
		await expect(czech.getByTestId('results-not-released')).toHaveText(
			'Výsledky se zde ukážou, až je sekretariát zveřejní.'
		);
		await expect(
			czech.getByTestId('follow-last').getByTestId('result-withheld').first()
		).toHaveText('Hotovo');
		await expect(czech.getByTestId('follow-current')).toContainText(
			`${firstname[0]}. ${lastname[0]}.`
		);
		await czech.screenshot({
			path: `${SCREENS}/public-views-withheld-cs-CZ-360.png`,
			fullPage: true
		});

		// The secretary releases the run at the start from its results screen.
		await desk.getByTestId('run').filter({ hasText: atStart.run.name }).first().click();
		await desk.getByTestId('run-outputs').getByRole('link', { name: 'Results' }).click();
		const release = desk.getByTestId('release');
		await expect(release).toHaveAttribute('data-released', 'false', { timeout: 30_000 });
		const releaseMs = await timed(
			() => release.getByTestId('release-run').click(),
			() =>
				expect(fan.getByTestId('results-not-released')).toHaveCount(0, {
					timeout: FOLLOWS_WITHIN_MS
				})
		);
		console.log(
			`results released on the spectator's phone ${releaseMs} ms after the secretary's tap`
		);
		await expect(release).toHaveAttribute('data-released', 'true');
		await expect(tv.getByTestId('results-not-released')).toHaveCount(0, {
			timeout: FOLLOWS_WITHIN_MS
		});
		await expect(tv.getByTestId('board-ranking').getByRole('listitem').first()).toBeVisible();
		await desk.screenshot({
			path: `${SCREENS}/public-views-release-en-US-360.png`,
			fullPage: true
		});

		// The secretary's phone in Czech: the same settings in its words.
		await desk.getByRole('link', { name: 'Settings' }).first().click();
		await desk.locator('#language').selectOption('cs');
		await desk.getByRole('link', { name: 'Závody' }).first().click();
		await desk
			.getByTestId('competition')
			.filter({ hasText: competition.name })
			.getByRole('link')
			.first()
			.click();
		const nastaveni = desk.getByTestId('public-views');
		await expect(nastaveni.getByRole('heading')).toHaveText('Veřejné obrazovky', {
			timeout: 30_000
		});
		await expect(nastaveni.getByTestId('names-initials')).toHaveText('Iniciály');
		await expect(nastaveni.getByTestId('names-initials')).toHaveAttribute('aria-pressed', 'true');
		await nastaveni.getByTestId('names-full').click();
		await expect(nastaveni.getByTestId('public-views-status')).toContainText('Uloženo');
		await expect(czech.getByTestId('follow-current')).toContainText(`${firstname} ${lastname}`, {
			timeout: FOLLOWS_WITHIN_MS
		});
		await desk.screenshot({
			path: `${SCREENS}/public-views-secretary-cs-CZ-360.png`,
			fullPage: true
		});
	} finally {
		await t.stop();
	}
});
