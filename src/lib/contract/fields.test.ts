import { describe, expect, it } from 'vitest';
import { COURSE_FIELDS, DOG_RUN_FIELDS, EDITABLE_FIELDS, maximalBelowStandard } from './fields';

describe('the editable fields', () => {
	it('are the interface’s, dog runs’ then courses’, each once', () => {
		expect(EDITABLE_FIELDS).toEqual([...DOG_RUN_FIELDS, ...COURSE_FIELDS]);
		expect(new Set(EDITABLE_FIELDS).size).toBe(EDITABLE_FIELDS.length);
	});

	it.each([
		[65, 97.5, false],
		[65, 65, false],
		[65, 64.999, true],
		[40.1, 40.099, true],
		// 0.1 + 0.2 is not 0.3 in floats; the rule compares thousandths.
		[0.3, 0.1 + 0.2, false]
	])('SCT %d, MCT %d: maximal below standard %s', (standard, maximal, below) => {
		expect(maximalBelowStandard(standard, maximal)).toBe(below);
	});
});
