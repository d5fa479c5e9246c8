import { expect } from '@playwright/test';
import { putJson, ringQueue, type Queue } from '../e2e/support/service-data';
import type { Driver, Target } from './driver';
import type { FlowContext } from './flows';
import { literal } from './steward';

/**
 * j. "Your turn" on a spectator's phone (issue 33, part 2) in every engine, as
 * tests/e2e/your-turn.spec.ts does it in Chromium with Playwright's clock. Here the clock is the
 * page's own Date moved on by the flow (no driver of the three has Playwright's), and the screen
 * is "turned on again" (visibilitychange) after each jump, as a phone out of a pocket: the view
 * reads the time then. The phone opens the big screen's address once, marks a dog among the next
 * ones with its star, turns alerts on and watches the ring run a dog every 50 s: the pace is
 * measured, the alert comes at "to the gate" with "about 2 min", and once the service is gone
 * (the phone's network up) the view alerts "probably at the start" from its last news.
 */

const DOG_MS = 50_000;
const ALERT: Target = { testid: 'turn-alert' };
const CURRENT: Target = { testid: 'follow-current' };

/** Installs the moved clock and the signal recorders (once per document). */
const INSTALL = String.raw`(() => {
	if (window.turnTest) return true;
	const RealDate = Date;
	let offset = 0;
	class MovedDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(RealDate.now() + offset);
			else super(...args);
		}
		static now() {
			return RealDate.now() + offset;
		}
	}
	window.Date = MovedDate;
	const seen = { vibrate: 0, tones: 0, notes: 0 };
	navigator.vibrate = () => {
		seen.vibrate++;
		return true;
	};
	if (typeof OscillatorNode !== 'undefined') {
		const start = OscillatorNode.prototype.start;
		OscillatorNode.prototype.start = function (...a) {
			seen.tones++;
			return start.apply(this, a);
		};
	}
	if (typeof ServiceWorkerRegistration !== 'undefined') {
		const show = ServiceWorkerRegistration.prototype.showNotification;
		ServiceWorkerRegistration.prototype.showNotification = function (...a) {
			seen.notes++;
			return show.apply(this, a).catch(() => undefined);
		};
	}
	window.turnTest = {
		seen,
		advance(ms) {
			offset += ms;
			document.dispatchEvent(new Event('visibilitychange'));
		}
	};
	return true;
})()`;

async function advance(d: Driver, ms: number): Promise<void> {
	await d.evaluate(`window.turnTest.advance(${ms})`);
}

const seen = (d: Driver) =>
	d.evaluate<{ vibrate: number; tones: number; notes: number }>('window.turnTest.seen');

async function ringRuns(queue: Queue, index: number): Promise<void> {
	const { dog } = queue.waiting[index]!;
	expect(await putJson(dog._links.self.href, { time: 38 + index / 10 })).toBe(200);
}

export async function flowTurn({ d, handle, log, shot }: FlowContext): Promise<void> {
	const queue = await ringQueue(handle.url);
	const theirs = queue.waiting[5]!;
	const name = theirs.dog.dog.name;
	await d.open(new URL(`/follow/${queue.competition.id}/${queue.ringId}`, handle.url).href);
	await d.waitForText(CURRENT, new RegExp(literal(queue.waiting[0]!.dog.dog.name)));
	await d.evaluate(INSTALL);

	// Their dog is among the next five: its star, then the switch.
	await d.tap({
		testid: 'mark',
		attr: { 'data-dog-id': String(theirs.dog.dog.id) },
		within: { testid: 'follow-next' }
	});
	await d.waitForText({ testid: 'my-dog-status' }, `5 dogs before it · ${theirs.run.name}`);
	await d.tap({ role: 'button', name: 'Alert me when my dogs are next' });
	await d.waitFor('the switch pressed', () =>
		d.evaluate<boolean>(
			`document.querySelector('[data-testid="turn-switch"] button[aria-pressed="true"]') !== null`
		)
	);

	for (let i = 0; i < 3; i++) {
		await advance(d, DOG_MS);
		await ringRuns(queue, i);
		await d.waitForText(CURRENT, new RegExp(literal(queue.waiting[i + 1]!.dog.dog.name)));
	}
	await d.waitForText({ testid: 'turn-alert-title', within: ALERT }, `${name}: to the gate`);
	await d.waitForText(
		{ testid: 'turn-alert-body', within: ALERT },
		`${theirs.run.name} · No. ${theirs.startNo} · about 2 min`
	);
	expect(await d.text({ testid: 'my-dog-left' })).toBe('about 2 min');
	const atGate = await seen(d);
	expect(atGate.vibrate, 'vibrated once').toBe(1);
	await shot('j-to-the-gate');
	await d.tap({ role: 'button', name: `OK, ${name}: to the gate`, within: ALERT });
	await d.waitFor('the alert dismissed', async () => !(await d.visible(ALERT)));

	// The service goes; once the view knows, two minutes pass without news.
	await handle.stop();
	await d.waitFor('the view to see the service gone', async () =>
		/No contact|Offline/.test((await d.text({ testid: 'follow-status' })) ?? '')
	);
	await advance(d, 2 * 60_000 + 10_000);
	await d.waitForText(
		{ testid: 'turn-alert-title', within: ALERT },
		`${name}: probably at the start`
	);
	await d.waitForText({ testid: 'turn-alert-body', within: ALERT }, /estimated from news 2 min/);
	const estimated = await seen(d);
	expect(estimated.vibrate, 'vibrated again').toBe(2);
	await shot('j-probably-at-the-start');
	log(
		`alerts: vibrations ${estimated.vibrate}, tones ${estimated.tones}, notifications ${estimated.notes} (the engine's permission: ${await d.evaluate<string>("typeof Notification === 'undefined' ? 'none' : Notification.permission")})`
	);
}
