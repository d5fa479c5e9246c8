import { describe, expect, it } from 'vitest';
import {
	alertsDue,
	BREAK_MS,
	estimateTurn,
	GUESS_MS,
	minutesLeft,
	notePace,
	paceOf,
	PACE_KEPT,
	stageOf,
	type PacePoint,
	type TurnCandidate
} from './turn';

const S = 1000;
const MIN = 60 * S;

/** The queue seen shrinking by one dog every `gaps[i]` ms from `remaining`, opened at 0. */
function seen(remaining: number, gaps: number[]): PacePoint[] {
	let points = notePace([], remaining, 0, true);
	let at = 0;
	for (const gap of gaps) {
		at += gap;
		points = notePace(points, --remaining, at);
	}
	return points;
}

describe('the ring pace measured on the phone', () => {
	it('is the median of one-dog steps, the opening sight not one of them', () => {
		// Opened 20 s into a dog's run: the first step is not a dog's time.
		expect(paceOf(seen(30, [20 * S, 50 * S, 44 * S, 61 * S]))).toBe(50 * S);
		expect(paceOf(seen(30, [20 * S, 50 * S, 40 * S]))).toBe(45 * S);
	});

	it('promises nothing before two dogs were seen to run', () => {
		expect(paceOf(seen(30, []))).toBeNull();
		expect(paceOf(seen(30, [20 * S]))).toBeNull();
		expect(paceOf(seen(30, [20 * S, 50 * S]))).toBeNull();
		expect(paceOf(seen(30, [20 * S, 50 * S, 55 * S]))).toBe(52.5 * S);
	});

	it('skips news of several dogs at once and breaks', () => {
		let points = seen(30, [10 * S, 45 * S, 45 * S]); // 27 left
		points = notePace(points, 22, 200 * S); // five at once: a network that came back
		points = notePace(points, 21, 200 * S + BREAK_MS + 1); // the course walk
		points = notePace(points, 20, 200 * S + BREAK_MS + 1 + 48 * S);
		expect(paceOf(points)).toBe(45 * S);
	});

	it('counts no step into a base (the copy up to date again) and none when a result is undone', () => {
		let points = seen(30, [10 * S, 50 * S, 50 * S]);
		points = notePace(points, 26, 300 * S, true);
		points = notePace(points, 27, 310 * S); // a result undone: the queue grew
		points = notePace(points, 26, 320 * S);
		expect(paceOf(points)).toBe(50 * S);
	});

	it('takes a step of a few seconds for news in two parts, not a dog', () => {
		// The stored copy, then the live one a dog further 300 ms later.
		let points = notePace([], 12, 0, true);
		points = notePace(points, 11, 300);
		points = notePace(points, 10, 300 + 9 * S);
		points = notePace(points, 9, 300 + 9 * S + 50 * S);
		points = notePace(points, 8, 300 + 9 * S + 100 * S);
		expect(paceOf(points)).toBe(50 * S);
	});

	it('counts only steps since a moment: a pace from an earlier visit is not this ring’s now', () => {
		const points = seen(30, [10 * S, 50 * S, 50 * S]); // steps end at 60 s and 110 s
		expect(paceOf(points, 0)).toBe(50 * S);
		expect(paceOf(points, 100 * S)).toBeNull();
	});

	it('notes only changes and keeps the newest points', () => {
		const points = seen(
			40,
			Array.from({ length: 30 }, () => 50 * S)
		);
		expect(points).toHaveLength(PACE_KEPT);
		expect(notePace(points, points.at(-1)!.remaining, 1e9)).toEqual(points);
		expect(paceOf(points)).toBe(50 * S);
	});
});

describe('a marked dog’s turn', () => {
	it('is at the start, at the gate for the next two, waiting after them', () => {
		expect([0, 1, 2, 3].map(stageOf)).toEqual(['start', 'gate', 'gate', 'waiting']);
	});

	it('says the time left at the ring’s pace while the copy is live', () => {
		expect(estimateTurn(7, 50 * S)).toEqual({
			before: 7,
			stage: 'waiting',
			leftMs: 350 * S,
			estimated: false
		});
		expect(minutesLeft(350 * S)).toBe(6);
		expect(estimateTurn(7, null)).toEqual({
			before: 7,
			stage: 'waiting',
			leftMs: null,
			estimated: false
		});
	});

	it('goes on from an old copy: the dogs the pace says ran since are taken off', () => {
		// 4 min without news at 50 s a dog: 4 dogs ran, probably.
		expect(estimateTurn(7, 50 * S, 4 * MIN)).toEqual({
			before: 3,
			stage: 'waiting',
			leftMs: 110 * S,
			estimated: true
		});
		expect(estimateTurn(3, 50 * S, 1.5 * MIN).stage).toBe('gate');
		expect(estimateTurn(3, 50 * S, 9 * MIN)).toMatchObject({
			before: 0,
			stage: 'start',
			leftMs: 0
		});
		// Too little time for a dog to have run: the copy's own place, not an estimate.
		expect(estimateTurn(3, 50 * S, 20 * S)).toMatchObject({ before: 3, estimated: false });
		expect(minutesLeft(20 * S)).toBe(0);
	});
});

describe('when to alert', () => {
	const dog = (dogId: number, before: number, runId = 1): TurnCandidate => ({
		runId,
		dogId,
		estimate: estimateTurn(before, 50 * S)
	});

	it('alerts at the gate, once, and again at the start', () => {
		let alerted = {};
		const steps = [5, 4, 3, 2, 2, 1, 0, 0];
		const given: string[] = [];
		for (const before of steps) {
			const r = alertsDue([dog(9, before)], alerted);
			alerted = r.alerted;
			given.push(...r.due.map((d) => `${before}:${d.estimate.stage}`));
		}
		expect(given).toEqual(['2:gate', '0:start']);
	});

	it('alerts at the start only when the dog skipped the gate (a dog absent before it)', () => {
		const first = alertsDue([dog(9, 3)], {});
		const second = alertsDue([dog(9, 0)], first.alerted);
		expect(second.due.map((d) => d.estimate.stage)).toEqual(['start']);
	});

	it('alerts a guess once, and the news of the same stage once more (a guess may be early)', () => {
		const guess = (before: number, ageMs: number) => ({
			runId: 1,
			dogId: 9,
			estimate: estimateTurn(before, 50 * S, ageMs)
		});
		const guessed = alertsDue([guess(4, 2 * MIN)], {});
		expect(guessed.due.map((d) => d.estimate)).toMatchObject([{ stage: 'gate', estimated: true }]);
		// Still no news, a minute on: the same guess, nothing again.
		const again = alertsDue([guess(4, 2.5 * MIN)], guessed.alerted);
		expect(again.due).toHaveLength(0);
		// The news: three before it (the ring was slower than guessed): nothing yet.
		const back = alertsDue([dog(9, 3)], again.alerted);
		expect(back.due).toHaveLength(0);
		// Then the news calls it to the gate, and to the start: each alerted once.
		const gate = alertsDue([dog(9, 2)], back.alerted);
		expect(gate.due).toHaveLength(1);
		expect(alertsDue([dog(9, 1)], gate.alerted).due).toHaveLength(0);
		expect(alertsDue([dog(9, 0)], gate.alerted).due).toHaveLength(1);
	});

	it('makes no guess from news older than the limit, nor one at the news’ own stage', () => {
		const old = estimateTurn(9, 50 * S, GUESS_MS + 1);
		expect(old).toEqual({ before: 9, stage: 'waiting', leftMs: null, estimated: false });
		const news = alertsDue([dog(9, 2)], {});
		const guessSame = alertsDue(
			[{ runId: 1, dogId: 9, estimate: estimateTurn(3, 50 * S, 60 * S) }],
			news.alerted
		);
		expect(guessSame.due).toHaveLength(0);
	});

	it('counts each run apart, and forgets the dogs no longer waiting', () => {
		const a = alertsDue([dog(9, 1, 1), dog(8, 2, 1)], {});
		expect(a.due).toHaveLength(2);
		const b = alertsDue([dog(9, 2, 2)], a.alerted);
		expect(b.due).toHaveLength(1);
		expect(Object.keys(b.alerted)).toEqual(['2:9']);
	});
});
