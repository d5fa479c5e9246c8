import { expect } from '@playwright/test';
import { join } from 'node:path';
import type { Service } from '../../server/app';
import { REFUSAL, startStricterUpstream } from '../e2e/support/stricter-upstream';
import {
	getJson,
	putJson,
	walk,
	type CompetitionJson,
	type DogRunJson,
	type RunJson
} from '../e2e/support/service-data';
import { inPage, type Target } from './driver';
import type { FlowContext } from './flows';
import { dogRow, literal, Steward, type Scene } from './steward';

/**
 * i. Mirror mode's Upstream screen (issue 23) in every engine, as tests/e2e/mirror.spec.ts does
 * it in Chromium: the fixture's service becomes the event laptop, a copy of competition 1 of the
 * federation's upstream service (another service on its own file, with ETags), which it reaches
 * through a proxy playing the laptop's internet: cut (no answer at all), or an upstream stricter
 * than ours (a canned 400 with markup in its words). The office writes to the upstream directly,
 * another phone to the laptop. The service listens on loopback, where every caller acts as the
 * secretary (as in the e2e test: nobody signs in). The secretary's phone opens the app once,
 * then taps: Settings → Devices (the upstream line) → the Upstream screen, where a conflict is
 * decided with Keep theirs and a refused change is sent again.
 */

/** How often the laptop reads the upstream's lists again (the e2e test's 200 ms). */
const PULL_MS = 200;
/** The Devices line and the Upstream screen read the status every few seconds. */
const SCREEN_WAIT_MS = 20_000;

const LINE: Target = { testid: 'upstream-line' };
const LINE_TEXT: Target = { testid: 'upstream-line-text', within: LINE };
const NEEDS: Target = { testid: 'upstream-needs' };
const MESSAGE: Target = { testid: 'upstream-message' };
const NOTHING_WAITS: Target = { testid: 'upstream-nothing-waits' };
const CONFLICT: Target = { testid: 'upstream-conflict' };
const REFUSED: Target = { testid: 'upstream-refused' };
const TAB_COMPETITIONS: Target = { role: 'link', name: 'Competitions', attr: { href: '/' } };
const TAB_SETTINGS: Target = { role: 'link', name: 'Settings', attr: { href: '/settings' } };

export async function flowUpstream({ d, handle, log, shot }: FlowContext): Promise<void> {
	const { upstream, proxy, net } = await startStricterUpstream(handle.dir);
	try {
		// The fixture's service, on the same port, becomes the laptop: a new file, filled from
		// the upstream at this first start.
		await handle.stop();
		await handle.start({
			dbFile: join(handle.dir, 'laptop.sqlite'),
			mirror: proxy.url,
			mirrorCompetitions: [1],
			mirrorPullMs: PULL_MS
		});
		await secretary({ d, handle, log, shot }, upstream, net);
	} finally {
		await handle.stop();
		await proxy.close();
		await upstream.close();
	}
}

async function secretary(
	{ d, handle, log, shot }: FlowContext,
	upstream: Service,
	net: { cut: boolean; refuse: number | null }
): Promise<void> {
	const laptop = handle.url;
	const competition = await getJson<CompetitionJson>(`${laptop}api/v1/competitions/1`);
	// A run of today: the competition screen opens on today's runs.
	const today = new Date().toLocaleDateString('sv');
	const runs = await walk<RunJson>(competition._links.competitionRuns.href, 'competitionRuns');
	const run = runs.find((r) => r.date === today) ?? runs[0]!;
	const dogRuns = await walk<DogRunJson>(run._links.dogRuns.href, 'dogRuns');
	const [first, second] = dogRuns.filter((r) => !r.absence && !r.disqualified) as [
		DogRunJson,
		DogRunJson
	];
	const scene: Scene = { competition, run, dogRuns };
	const onLaptop = (r: DogRunJson) => `${laptop}api/v1/dogRuns/${r.id}`;
	const onUpstream = (r: DogRunJson) => `${upstream.url}api/v1/dogRuns/${r.id}`;
	const upstreamHolds = async (r: DogRunJson) => getJson<DogRunJson>(onUpstream(r));
	const count = (t: Target) => d.evaluate<number>(inPage(`findAll(${JSON.stringify(t)}).length`));

	// The secretary's phone: the app once, then taps. Settings → Devices shows the upstream line.
	const steward = new Steward(d, scene);
	await steward.openApp(laptop);
	await d.tap(TAB_SETTINGS);
	await d.tap({ testid: 'devices-link' });
	await d.waitForText(LINE_TEXT, /^All published/, SCREEN_WAIT_MS);
	expect(await d.visible(NEEDS), 'nothing needs the secretary yet').toBe(false);

	// The internet goes; a phone records a time (a PUT to the laptop, as the capture screen's);
	// the office corrects the same dog's time on the federation's service meanwhile.
	net.cut = true;
	const cut = performance.now();
	expect(await putJson(onLaptop(first), { time: 50.5 }), 'the phone’s PUT').toBe(200);
	expect(await putJson(onUpstream(first), { time: 49.99 }), 'the office’s PUT').toBe(200);
	// The line is read again every few seconds while the screen is open: no tap.
	const lost = await d.waitForText(LINE_TEXT, /1 waiting · internet lost/, SCREEN_WAIT_MS);
	expect(lost, 'the line while the internet is lost').toMatch(/^Published up to /);
	const lostMs = performance.now() - cut;
	await shot('i-devices-internet-lost');

	net.cut = false;
	const back = performance.now();
	await d.waitForText(NEEDS, '1 needs you', SCREEN_WAIT_MS);
	const needsMs = performance.now() - back;
	log(
		`the Devices line said "${lost}" ${Math.round(lostMs)} ms after the cut, ` +
			`and "1 needs you" ${Math.round(needsMs)} ms after the internet returned`
	);
	await shot('i-devices-needs-you');

	// The line opens the Upstream screen: the conflict, with both values.
	await d.tap(LINE);
	await d.waitForText({ role: 'heading', name: 'Upstream' }, 'Upstream');
	await d.waitFor(
		'the Upstream screen to say it is connected',
		() => d.visible({ testid: 'upstream-connection', attr: { 'data-connected': 'true' } }),
		SCREEN_WAIT_MS
	);
	await d.waitFor('the conflict on the Upstream screen', () => d.visible(CONFLICT), SCREEN_WAIT_MS);
	expect(await count(CONFLICT), 'conflicts listed').toBe(1);
	await d.waitForText(CONFLICT, new RegExp(literal(first.dog.name)));
	const field: Target = { testid: 'upstream-field', within: CONFLICT };
	expect(await d.visible({ ...field, attr: { 'data-field': 'time' } }), 'the field: time').toBe(
		true
	);
	expect(await d.text({ testid: 'ours', within: field }), 'ours').toMatch(/\b50\.50\b/);
	expect(await d.text({ testid: 'theirs', within: field }), 'theirs').toMatch(/\b49\.99\b/);
	await shot('i-upstream-conflict');

	// Nothing overwritten while undecided; Keep theirs takes the upstream's value here.
	expect((await getJson<DogRunJson>(onLaptop(first))).time, 'the laptop, undecided').toBe(50.5);
	expect((await upstreamHolds(first)).time, 'the upstream, undecided').toBe(49.99);
	await d.tap({ testid: 'keep-theirs', within: CONFLICT });
	await d.waitForText(MESSAGE, /theirs kept/);
	await d.waitFor('the conflict to leave the screen', async () => !(await d.visible(CONFLICT)));
	expect((await getJson<DogRunJson>(onLaptop(first))).time, 'the laptop after Keep theirs').toBe(
		49.99
	);
	expect((await upstreamHolds(first)).time, 'the upstream after Keep theirs').toBe(49.99);

	// The laptop's run screen shows the upstream's time (reached by taps), then back.
	await d.tap(TAB_COMPETITIONS);
	await steward.openRun();
	await d.waitForText({ testid: 'result', within: dogRow(first) }, /\b49\.99\b/);
	await shot('i-run-shows-theirs');
	await d.tap(TAB_SETTINGS);
	await d.tap({ testid: 'devices-link' });
	await d.tap(LINE);
	await d.waitFor('nothing waiting', () => d.visible(NOTHING_WAITS), SCREEN_WAIT_MS);

	// A change the upstream refuses: its words shown as text, and Send again once it takes it.
	net.refuse = second.id;
	const faults = second.faults + 5;
	expect(await putJson(onLaptop(second), { faults }), 'the phone’s PUT').toBe(200);
	await d.waitFor('the refused change on the screen', () => d.visible(REFUSED), SCREEN_WAIT_MS);
	expect(await count(REFUSED), 'refused changes listed').toBe(1);
	await d.waitForText(REFUSED, new RegExp(literal(second.dog.name)));
	const refusal: Target = { testid: 'upstream-refusal', within: REFUSED };
	expect(await d.text(refusal), 'the upstream’s words').toBe(REFUSAL);
	expect(
		await d.evaluate<number>(inPage(`findOne(${JSON.stringify(refusal)}).children.length`)),
		'elements in the upstream’s words'
	).toBe(0);
	expect(await d.evaluate<string>(`typeof window.__xss`), 'the words’ script').toBe('undefined');
	expect((await upstreamHolds(second)).faults, 'the upstream, refused').toBe(second.faults);
	await shot('i-upstream-refused');

	net.refuse = null;
	// Timed from the tap's start (a driver may return from a click only after the page's work).
	const sent = performance.now();
	await d.tap({ testid: 'send-again', within: REFUSED });
	// The upstream is watched on its own, while the screen is checked.
	const held = d.waitFor(
		'the upstream to hold the faults',
		async () => ((await upstreamHolds(second)).faults === faults ? performance.now() - sent : null),
		SCREEN_WAIT_MS
	);
	held.catch(() => {}); // awaited below; not unhandled if a check before fails
	await d.waitForText(MESSAGE, /sent again/);
	// The service's answer to Send again is shown at once: the change leaves the refused ones.
	await d.waitFor(
		'the refused change to leave the screen',
		async () => !(await d.visible(REFUSED)),
		SCREEN_WAIT_MS
	);
	const leftMs = performance.now() - sent;
	const heldMs = await held;
	// "Nothing waits" comes with the screen's next read (every 5 s).
	await d.waitFor('nothing waiting', () => d.visible(NOTHING_WAITS), SCREEN_WAIT_MS);
	const clearedMs = performance.now() - sent;
	log(
		`after Send again: the refused change left the screen in ${Math.round(leftMs)} ms, ` +
			`the upstream held the faults in ${Math.round(heldMs)} ms, ` +
			`the screen said nothing waits after ${Math.round(clearedMs)} ms`
	);
	await shot('i-upstream-sent-again');

	// Back on Devices, by taps: all published.
	await d.tap({ role: 'link', name: '← Back', attr: { href: '/devices' } });
	await d.waitForText(LINE_TEXT, /^All published · last /, SCREEN_WAIT_MS);
	expect(await d.visible(NEEDS), 'nothing needs the secretary').toBe(false);
	await shot('i-devices-all-published');

	// What each service holds at the end: the upstream's time, and the faults sent again.
	for (const [where, read] of [
		['upstream', onUpstream],
		['laptop', onLaptop]
	] as const) {
		const a = await getJson<DogRunJson>(read(first));
		const b = await getJson<DogRunJson>(read(second));
		expect({ time: a.time, faults: b.faults }, `what the ${where} holds`).toEqual({
			time: 49.99,
			faults
		});
	}
}
