import { describe, expect, it } from 'vitest';
import { rankRun, score, type Score } from './scoring';
import type { CourseParams, DogRunResult } from './types';

const course: CourseParams = { trackLength: 219, standardTime: 65, maximalTime: 97.5 };
const run = (r: Partial<DogRunResult>): DogRunResult => ({
	time: null,
	faults: 0,
	refusals: 0,
	disqualified: false,
	absence: false,
	...r
});
const unscored = (status: Score['status'], grade: Score['grade'] = null) => ({
	status,
	courseFaults: 0,
	timeFaults: 0,
	total: 0,
	speed: null,
	grade
});

describe('score', () => {
	it('holds the worked example: SCT 65, 68.17 s, 2 faults, 1 refusal = 18.17', () => {
		expect(score(course, run({ time: 68.17, faults: 2, refusals: 1 }))).toEqual({
			status: 'finished',
			courseFaults: 15,
			timeFaults: 3.17,
			total: 18.17,
			speed: 3.21,
			grade: 'D'
		});
	});

	it.each([
		// time, faults, refusals, courseFaults, timeFaults, total
		[38.63, 0, 0, 0, 0, 0],
		[65, 0, 0, 0, 0, 0],
		[65.01, 0, 0, 0, 0.01, 0.01],
		[65.1, 1, 0, 5, 0.1, 5.1],
		[70.3, 0, 2, 10, 5.3, 15.3],
		[97.5, 4, 2, 30, 32.5, 62.5],
		[66.07, 0, 0, 0, 1.07, 1.07]
	])('time %d, %d faults, %d refusals: %d + %d = %d', (time, faults, refusals, cf, tf, total) => {
		const s = score(course, run({ time, faults, refusals }));
		expect(s.status).toBe('finished');
		expect([s.courseFaults, s.timeFaults, s.total]).toEqual([cf, tf, total]);
	});

	it('computes time faults exactly against a three-decimal SCT', () => {
		const s = score({ ...course, standardTime: 60.125 }, run({ time: 61.2 }));
		expect(s.timeFaults).toBe(1.075);
	});

	it.each([
		[219, 38.63, 5.67],
		[219, 65, 3.37],
		[200, 40, 5],
		[150.5, 30.1, 5]
	])('speed of %d m in %d s is %d m/s', (trackLength, time, speed) => {
		expect(score({ ...course, trackLength }, run({ time })).speed).toBe(speed);
	});

	it.each([
		// total reached by time faults over SCT 65 (0 faults) and by course faults
		[0, 'V'],
		[5.99, 'V'],
		[6, 'VD'],
		[15.99, 'VD'],
		[16, 'D'],
		[25.99, 'D'],
		[26, 'BO'],
		[32.5, 'BO']
	])('grades a total of %d as %s', (total, grade) => {
		const s = score(course, run({ time: Math.round((65 + total) * 100) / 100 }));
		expect(s.total).toBe(total);
		expect(s.grade).toBe(grade);
	});

	it.each([
		[5, 'V'],
		[10, 'VD'],
		[20, 'D'],
		[25, 'D'],
		[30, 'BO']
	])('grades %d course-fault points as %s', (points, grade) => {
		expect(score(course, run({ time: 40, faults: points / 5 })).grade).toBe(grade);
	});

	it.each([
		['3rd refusal', run({ time: 50, refusals: 3 }), 'third-refusal'],
		[
			'3rd refusal flagged disqualified',
			run({ time: 50, refusals: 3, disqualified: true }),
			'third-refusal'
		],
		['3rd refusal without time', run({ refusals: 3 }), 'third-refusal'],
		['time over MCT', run({ time: 97.51 }), 'over-maximal-time'],
		[
			'time over MCT flagged disqualified',
			run({ time: 120, disqualified: true }),
			'over-maximal-time'
		],
		['disqualified by the judge', run({ time: 40, disqualified: true }), 'disqualified'],
		['disqualified without time', run({ disqualified: true }), 'disqualified']
	])('eliminates on %s', (_, r, reason) => {
		expect(score(course, r)).toEqual({
			...unscored('eliminated', 'DIS'),
			eliminationReason: reason
		});
	});

	it('does not eliminate at exactly MCT', () => {
		expect(score(course, run({ time: 97.5 })).status).toBe('finished');
	});

	it.each([
		['absent', run({ absence: true }), course, 'absent'],
		[
			'absent, even if flagged otherwise',
			run({ absence: true, refusals: 3, time: 40 }),
			course,
			'absent'
		],
		['no time yet', run({ faults: 1 }), course, 'pending'],
		['no course yet', run({ time: 40 }), null, 'pending'],
		['a course without SCT', run({ time: 40 }), { ...course, standardTime: 0 }, 'pending']
	])('leaves %s unscored', (_, r, c, status) => {
		expect(score(c, r)).toEqual(unscored(status as Score['status']));
	});

	it('still eliminates on a 3rd refusal without a course', () => {
		expect(score(null, run({ refusals: 3 })).eliminationReason).toBe('third-refusal');
	});

	it('has no speed without a track length', () => {
		expect(score({ ...course, trackLength: 0 }, run({ time: 40 })).speed).toBeNull();
	});
});

describe('rankRun', () => {
	const entries: { id: string; result: DogRunResult }[] = [
		{ id: 'pending', result: run({}) },
		{ id: 'absent', result: run({ absence: true }) },
		{ id: 'dis', result: run({ time: 40, disqualified: true }) },
		{ id: 'clean-slow', result: run({ time: 60 }) },
		{ id: 'refusal3', result: run({ refusals: 3 }) },
		{ id: 'clean-fast', result: run({ time: 38.63 }) },
		{ id: 'time-faults-5', result: run({ time: 70 }) },
		{ id: 'fault-fast', result: run({ time: 40, faults: 1 }) },
		{ id: 'tie-a', result: run({ time: 50, refusals: 1 }) },
		{ id: 'tie-b', result: run({ time: 50, faults: 1 }) },
		{ id: 'mct', result: run({ time: 100 }) },
		{ id: 'absent-2', result: run({ absence: true }) },
		{ id: 'pending-2', result: run({ faults: 2 }) }
	];

	it('orders finished by total, course faults, time; then eliminated, absent, pending', () => {
		expect(rankRun(entries, course).map((e) => [e.id, e.rank])).toEqual([
			['clean-fast', 1],
			['clean-slow', 2],
			['time-faults-5', 3],
			['fault-fast', 4],
			['tie-a', 5],
			['tie-b', 5],
			['dis', null],
			['refusal3', null],
			['mct', null],
			['absent', null],
			['absent-2', null],
			['pending', null],
			['pending-2', null]
		]);
	});

	it.each([
		[
			'fewer course faults win an equal total',
			[run({ time: 70 }), run({ time: 65, faults: 1 })],
			[
				[0, 1],
				[1, 2]
			]
		],
		[
			'the faster time wins equal total and course faults',
			[run({ time: 45, faults: 1 }), run({ time: 44.99, faults: 1 })],
			[
				[1, 1],
				[0, 2]
			]
		],
		[
			'equal total, course faults and time share a rank (1, 2, 2, 4)',
			[run({ time: 42 }), run({ time: 40 }), run({ time: 42 }), run({ time: 43 })],
			[
				[1, 1],
				[0, 2],
				[2, 2],
				[3, 4]
			]
		],
		[
			'float drift does not break a tie',
			[run({ time: 0.1 + 0.2 + 40 }), run({ time: 40.3 })],
			[
				[0, 1],
				[1, 1]
			]
		]
	])('%s', (_, results, expected) => {
		const ranked = rankRun(
			results.map((result, id) => ({ id, result })),
			course
		);
		expect(ranked.map((e) => [e.id, e.rank])).toEqual(expected);
	});

	it('ranks nobody without a course, but still sorts eliminated before absent', () => {
		const ranked = rankRun(
			[
				{ id: 1, result: run({ time: 40 }) },
				{ id: 2, result: run({ absence: true }) },
				{ id: 3, result: run({ disqualified: true }) }
			],
			null
		);
		expect(ranked.map((e) => [e.id, e.rank, e.score.status])).toEqual([
			[3, null, 'eliminated'],
			[2, null, 'absent'],
			[1, null, 'pending']
		]);
	});

	it('ranks an empty run', () => {
		expect(rankRun([], course)).toEqual([]);
	});

	it('ranks 1,000 dogs in a consistent order', () => {
		let seed = 42;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
		const big = Array.from({ length: 1000 }, (_, id) => ({
			id,
			result: run({
				time: random() < 0.03 ? null : Math.round((30 + random() * 80) * 100) / 100,
				faults: Math.floor(random() * 3),
				refusals: Math.floor(random() * 4),
				disqualified: random() < 0.1,
				absence: random() < 0.03
			})
		}));
		// Its speed is measured in bench/, not asserted here.
		const ranked = rankRun(big, course);
		expect(ranked).toHaveLength(1000);
		const finished = ranked.filter((e) => e.rank !== null);
		for (let i = 1; i < finished.length; i++) {
			const [a, b] = [finished[i - 1], finished[i]];
			expect(a && b && a.score.total <= b.score.total).toBe(true);
		}
	});
});
