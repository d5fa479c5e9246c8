import { describe, expect, it } from 'vitest';
import {
	checkPublicationPatch,
	initialsOf,
	OPEN_PUBLICATION,
	publicCompetitor,
	publicDogRun,
	ranPublicly,
	resultsShown,
	type Publication
} from './publication';

const dogRun = (over: Partial<Record<string, unknown>> = {}) => ({
	id: 7,
	time: 38.12,
	faults: 5,
	refusals: 1,
	disqualified: false,
	absence: false,
	dog: { name: 'Rex' },
	competitor: {
		firstname: 'Jana Marie',
		lastname: 'Nováková-Malá',
		identifier: 'CZ-1234',
		country: 'CZE'
	},
	...over
});

const pub = (p: Partial<Publication>): Publication => ({ ...OPEN_PUBLICATION, ...p });

describe('initials', () => {
	it.each([
		['Jana', 'J.'],
		['Jana Marie', 'J. M.'],
		['Nováková-Malá', 'N.-M.'],
		['  ševčík ', 'Š.'],
		['', ''],
		['Øystein', 'Ø.'],
		['S\u030C\u00E1rka', 'Š.'],
		['"Bára" Nováková', 'B. N.'],
		['ßmith', 'ß.'],
		['J. M.', 'J. M.'],
		['N.-M.', 'N.-M.']
	])('%j → %j', (name, initials) => expect(initialsOf(name)).toBe(initials));
});

describe('handlers on public views', () => {
	const c = dogRun().competitor;
	it('shows them in full, as initials without the identifier, or not at all', () => {
		expect(publicCompetitor(c, 'full')).toBe(c);
		expect(publicCompetitor(c, 'initials')).toEqual({
			firstname: 'J. M.',
			lastname: 'N.-M.',
			identifier: '',
			country: 'CZE'
		});
		expect(publicCompetitor(c, 'hidden')).toEqual({
			firstname: '',
			lastname: '',
			identifier: '',
			country: 'CZE'
		});
	});
});

describe('results on public views', () => {
	it('show live, or once the run is released', () => {
		expect(resultsShown(OPEN_PUBLICATION, 3)).toBe(true);
		expect(resultsShown(pub({ results: 'released' }), 3)).toBe(false);
		expect(resultsShown(pub({ results: 'released', releasedRuns: [3] }), 3)).toBe(true);
	});

	it('keep a result back with whether the dog has run, and only that', () => {
		const held = publicDogRun(dogRun(), 3, pub({ results: 'released' }));
		expect(held).toMatchObject({
			time: null,
			faults: 0,
			refusals: 0,
			disqualified: false,
			absence: false,
			withheld: { done: true }
		});
		expect(held.dog).toEqual({ name: 'Rex' });
		for (const [over, done] of [
			[{ time: null, faults: 0, refusals: 0 }, false],
			[{ time: null, absence: true }, true],
			[{ time: null, disqualified: true }, true]
		] as const) {
			expect(publicDogRun(dogRun(over), 3, pub({ results: 'released' })).withheld).toEqual({
				done
			});
		}
	});

	it('is the same applied twice, and a copy the public was sent stays withheld once released', () => {
		const p = pub({ results: 'released', handlerNames: 'initials' });
		const once = publicDogRun(dogRun(), 3, p);
		expect(publicDogRun(once, 3, p)).toEqual(once);
		// Released since: the copy has no result to show; the next read brings it.
		const released = pub({ results: 'released', releasedRuns: [3], handlerNames: 'initials' });
		expect(publicDogRun(once, 3, released).withheld).toEqual({ done: true });
		expect(ranPublicly(once)).toBe(true);
	});

	it('leaves a dog run as it is when everything shows', () => {
		const d = dogRun();
		expect(publicDogRun(d, 3, OPEN_PUBLICATION)).toBe(d);
	});
});

describe('a change of the settings', () => {
	it('takes any of the three fields, released runs once each and sorted', () => {
		expect(
			checkPublicationPatch({
				handlerNames: 'hidden',
				results: 'released',
				releasedRuns: [4, 2, 4]
			})
		).toEqual({
			ok: true,
			patch: { handlerNames: 'hidden', results: 'released', releasedRuns: [2, 4] }
		});
		expect(checkPublicationPatch({})).toEqual({
			ok: false,
			message: 'Send at least one of handlerNames, results or releasedRuns'
		});
	});

	it.each([
		[{ handlerNames: 'nick' }, 'handlerNames must be one of full, initials, hidden'],
		[{ results: 'never' }, 'results must be one of live, released'],
		[{ releasedRuns: 'all' }, 'releasedRuns must be a list'],
		[{ releasedRuns: [1.5] }, 'releasedRuns must be a list'],
		[{ releasedRuns: [0] }, 'releasedRuns must be a list'],
		[{ other: 1 }, "Unknown field 'other'"]
	])('refuses %j naming the field', (body, message) => {
		const checked = checkPublicationPatch(body);
		expect(checked.ok).toBe(false);
		if (!checked.ok) expect(checked.message).toContain(message);
	});
});
