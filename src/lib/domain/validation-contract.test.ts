// The app's checks of an entry and the service's of a PUT body hold to the same limits: an edit the
// app lets a steward save is never refused for them ($lib/contract/put-bodies).
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { checkBody, DogRunPutSchema, RunPutSchema } from '$lib/contract/put-bodies';
import { validateCourse, validateDogRunEntry } from './validation';

const dog = { time: null, faults: 0, refusals: 0, disqualified: false, absence: false };

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
