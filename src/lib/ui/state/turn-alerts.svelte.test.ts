import 'fake-indexeddb/auto';
import { beforeEach, describe, expect, it } from 'vitest';
import { db } from '$lib/db/db';
import { estimateTurn, type TurnCandidate } from '../view/turn';
import { TurnAlerts, type AlertSignals, type NotifyPermission } from './turn-alerts.svelte';

/** The signals a phone gave, in order. */
function recorder(permission: NotifyPermission, answer: NotifyPermission = permission) {
	const given: string[] = [];
	let current = permission;
	const signals: AlertSignals = {
		permission: () => current,
		requestPermission: async () => {
			given.push('asked');
			current = answer;
			return answer;
		},
		unlockSound: () => given.push('unlock'),
		vibrate: () => given.push('vibrate'),
		sound: () => given.push('sound'),
		notify: async (title, body, tag) => void given.push(`notify ${tag}: ${title} / ${body}`)
	};
	return { given, signals };
}

const S = 1000;
const dog = (before: number): TurnCandidate => ({
	runId: 4,
	dogId: 9,
	estimate: estimateTurn(before, 50 * S)
});
const words = (c: TurnCandidate) => ({ title: `dog ${c.dogId}`, body: c.estimate.stage });

beforeEach(async () => {
	await db.delete();
	await db.open();
});

describe('your-turn alerts on the follow view', () => {
	it('asks for notifications on the tap that turns them on, and gives all three signals', async () => {
		const { given, signals } = recorder('default', 'granted');
		const turns = new TurnAlerts(signals);
		await turns.load(1, 2);
		await turns.enable();
		expect(turns.permission).toBe('granted');
		turns.check([dog(3)], words);
		turns.check([dog(2)], words);
		await Promise.resolve();
		expect(given).toEqual(['unlock', 'asked', 'vibrate', 'sound', 'notify 4:9:gate: dog 9 / gate']);
		expect(turns.shown.map((a) => a.id)).toEqual(['4:9:gate']);
	});

	it('vibrates and sounds without notifications when they are blocked', async () => {
		const { given, signals } = recorder('denied');
		const turns = new TurnAlerts(signals);
		await turns.load(1, 2);
		await turns.enable();
		turns.check([dog(0)], words);
		expect(given).toEqual(['unlock', 'vibrate', 'sound']);
	});

	it('alerts once per stage across a reload, and is kept with the switch', async () => {
		const first = recorder('granted');
		const before = new TurnAlerts(first.signals);
		await before.load(1, 2);
		await before.enable();
		before.check([dog(1)], words);
		await new Promise((r) => setTimeout(r, 20));

		const again = recorder('granted');
		const after = new TurnAlerts(again.signals);
		await after.load(1, 2);
		expect(after.enabled).toBe(true);
		after.check([dog(1)], words);
		expect(again.given).toEqual([]);
		after.check([dog(0)], words);
		expect(again.given).toEqual(['vibrate', 'sound', 'notify 4:9:start: dog 9 / start']);
	});

	it('keeps the alerts given per ring: a view of another ring forgets none of them', async () => {
		const a = recorder('granted');
		const ringA = new TurnAlerts(a.signals);
		await ringA.load(1, 2);
		await ringA.enable();
		ringA.check([dog(1)], words);
		// Another ring's view (another tab) checks its own dogs, none of them this one.
		const ringB = new TurnAlerts(recorder('granted').signals);
		await ringB.load(1, 3);
		ringB.check([], words);
		await new Promise((r) => setTimeout(r, 20));
		const again = recorder('granted');
		const backToA = new TurnAlerts(again.signals);
		await backToA.load(1, 2);
		backToA.check([dog(1)], words);
		expect(again.given).toEqual([]);
	});

	it('gives no signal while switched off, and none for what it saw then once on', async () => {
		const { given, signals } = recorder('granted');
		const turns = new TurnAlerts(signals);
		await turns.load(1, 2);
		turns.check([dog(2)], words);
		expect(given).toEqual([]);
		expect(turns.shown).toEqual([]);
		await turns.enable();
		turns.check([dog(2)], words);
		expect(given).toEqual(['unlock']);
	});

	it('decides nothing before the phone’s record is read', async () => {
		const { given, signals } = recorder('granted');
		const turns = new TurnAlerts(signals);
		turns.check([dog(0)], words);
		await turns.load(1, 2);
		await turns.enable();
		turns.check([dog(0)], words);
		expect(given.filter((g) => g === 'vibrate')).toHaveLength(1);
	});

	it('keeps the ring’s pace per ring across a reload', async () => {
		const turns = new TurnAlerts(recorder('granted').signals);
		await turns.load(1, 2);
		turns.observe(20, 0, true);
		turns.observe(19, 30 * S);
		turns.observe(18, 80 * S);
		turns.observe(17, 126 * S);
		expect(turns.paceAt(126 * S)).toBe(48 * S);
		await new Promise((r) => setTimeout(r, 20));

		const later = new TurnAlerts(recorder('granted').signals);
		await later.load(1, 2);
		expect(later.paceAt(126 * S)).toBe(48 * S);
		// An hour and more later, another day's pace is not this one's.
		expect(later.paceAt(126 * S + 61 * 60 * S)).toBeNull();
		const otherRing = new TurnAlerts(recorder('granted').signals);
		await otherRing.load(1, 3);
		expect(otherRing.paceAt(126 * S)).toBeNull();
	});
});
