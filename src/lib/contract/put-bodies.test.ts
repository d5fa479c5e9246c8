import { describe, expect, it } from 'vitest';
import { checkBody, DogRunPutSchema, putBodyOf, RunPutSchema } from './put-bodies';

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

describe('the body of an edit', () => {
	it('sends only the fields a PUT of its kind may change, and the service takes it', () => {
		const dog = putBodyOf('dogRun', { time: 38.63, faults: 1, standardTime: 40, id: 9 });
		expect(dog).toEqual({ time: 38.63, faults: 1 });
		expect(checkBody(DogRunPutSchema, dog)).toEqual({ ok: true, value: dog });
		const run = putBodyOf('run', { standardTime: 41, maximalTime: 62, time: null });
		expect(run).toEqual({ standardTime: 41, maximalTime: 62 });
		expect(checkBody(RunPutSchema, run)).toEqual({ ok: true, value: run });
	});
});
