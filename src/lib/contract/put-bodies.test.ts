import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateCourse, validateDogRunEntry } from '$lib/domain/validation';
import { checkBody, DogRunPutSchema, RunPutSchema } from './put-bodies';

const dog = { time: null, faults: 0, refusals: 0, disqualified: false, absence: false };

describe('the PUT bodies the service accepts', () => {
	it.each([
		[{ time: 38.63 }, true],
		[{ time: 999.99 }, true],
		[{ time: 999.991 }, false],
		[{ time: 1000 }, false],
		[{ time: 0 }, false],
		[{ time: -1 }, false],
		[{ time: 38.631 }, false],
		[{ time: null }, true],
		[{ time: '38.63' }, false],
		[{ faults: 99 }, true],
		[{ faults: 100 }, false],
		[{ refusals: 1.5 }, false],
		[{ disqualified: 'yes' }, false],
		[{ absence: true, time: null }, true],
		[{}, false],
		[{ speed: 5 }, false]
	])('a dog run: %o → %s', (body, ok) => {
		expect(checkBody(DogRunPutSchema, body).ok).toBe(ok);
	});

	it('answers with the first problem, naming the field', () => {
		expect(checkBody(DogRunPutSchema, { faults: 3, speed: 5 })).toEqual({
			ok: false,
			message:
				"Unknown field 'speed'; allowed fields: time, faults, refusals, disqualified, absence"
		});
		expect(checkBody(DogRunPutSchema, { refusals: 100 })).toEqual({
			ok: false,
			message: "Field 'refusals' must be an integer between 0 and 99"
		});
	});

	it.each([
		[{ trackLength: 2000 }, true],
		[{ trackLength: 2000.01 }, false],
		[{ trackLength: 219.5 }, true],
		[{ standardTime: 999.999 }, true],
		[{ standardTime: 65.1234 }, false],
		[{ maximalTime: 0 }, false]
	])('a run: %o → %s', (body, ok) => {
		expect(checkBody(RunPutSchema, body).ok).toBe(ok);
	});
});

describe('the service’s limits are the app’s', () => {
	// What a steward's entry can be: whole hundredths or thousandths, to past the limits.
	const hundredths = fc.integer({ min: -100, max: 100_100 }).map((c) => c / 100);
	const thousandths = fc.integer({ min: -1000, max: 1_000_100 }).map((m) => m / 1000);
	const anyNumber = fc.double({ min: -10, max: 1100, noNaN: true });

	it('a time the app lets a steward save is one the service takes, and the other way round', () => {
		fc.assert(
			fc.property(fc.oneof(hundredths, thousandths), (time) => {
				const app = validateDogRunEntry({ ...dog, time }, null);
				const accepted = !app.errors.some((e) => e.field === 'time');
				return checkBody(DogRunPutSchema, { time }).ok === accepted;
			})
		);
	});

	it('whatever number reaches the form, what the app sends of it the service takes', () => {
		fc.assert(
			fc.property(anyNumber, (time) => {
				const app = validateDogRunEntry({ ...dog, time }, null);
				if (app.errors.some((e) => e.field === 'time')) return true;
				return checkBody(DogRunPutSchema, { time: app.normalized.time }).ok;
			})
		);
	});

	it('so are the counts and the course parameters', () => {
		fc.assert(
			fc.property(fc.integer({ min: -5, max: 120 }), (n) => {
				const app = validateDogRunEntry({ ...dog, faults: n }, null).errors.length === 0;
				return checkBody(DogRunPutSchema, { faults: n }).ok === app;
			})
		);
		fc.assert(
			fc.property(
				fc.oneof(hundredths, thousandths),
				fc.oneof(hundredths, thousandths),
				(trackLength, standardTime) => {
					const course = { trackLength, standardTime, maximalTime: standardTime };
					const app = validateCourse(course).errors.length === 0;
					return checkBody(RunPutSchema, course).ok === app;
				}
			)
		);
	});
});
