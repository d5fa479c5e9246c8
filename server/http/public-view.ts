// What the public is sent (a viewer; a reader without a credential where reads are open): every
// dog run as public views show it under its competition's settings (src/lib/contract/
// publication.ts), so that a hidden name or a result not yet released never leaves the service
// for them. The same rule whether a list, one dog run or a push event carries it.
import { publicDogRun, type Publication } from '../../src/lib/contract/publication.ts';
import { API_BASE, decimal, renderBase, stringifyHal } from './hal.ts';

/** The fields of a dog run's representation that the rule reads and writes. */
type DogRunValue = Parameters<typeof publicDogRun>[0] & Record<string, unknown>;

/** A dog run's representation (as representations.ts builds it) as the public may see it. */
export function publicDogRunValue(
	value: Record<string, unknown>,
	p: Publication
): Record<string, unknown> {
	const d = value as DogRunValue & { competitionRun: { id: number } };
	return publicDogRun(d, d.competitionRun.id, p);
}

/**
 * A dog run's template (stringifyHal's text) as the public may see it: the same text a viewer's
 * GET of it answers. The embedded run's course times are written again as the service writes them
 * (two or three fraction digits), which JSON.parse alone would shorten.
 */
export function publicDogRunTemplate(template: string, p: Publication): string {
	// The base mark is a control character, which JSON text cannot hold: parsed on API_BASE,
	// which stringifyHal turns back into the mark.
	const value = JSON.parse(renderBase(template, API_BASE)) as Record<string, unknown> & {
		competitionRun: { standardTime: unknown; maximalTime: unknown };
	};
	const run = value.competitionRun;
	run.standardTime = decimal(Math.round(Number(run.standardTime) * 1000));
	run.maximalTime = decimal(Math.round(Number(run.maximalTime) * 1000));
	return stringifyHal(publicDogRunValue(value, p));
}
