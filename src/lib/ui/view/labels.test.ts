import { describe, expect, it } from 'vitest';
import { labelOnce, notInName } from './labels';

const czech = (no: string) => `VK ${no}`;
const english = (no: string) => `Book ${no}`;
const after = (no: string) => `${no} (VK)`;

describe('labelOnce', () => {
	it.each([
		[czech, 'VK 11389/20', 'VK 11389/20'],
		[czech, 'vk 11389/20', 'vk 11389/20'],
		[czech, '11389/20', 'VK 11389/20'],
		[czech, ' VK 11389/20 ', 'VK 11389/20'],
		[czech, 'VKX 12', 'VK VKX 12'],
		[english, 'VK 11389/20', 'Book VK 11389/20'],
		[english, '12345', 'Book 12345'],
		[after, '12 VK', '12 VK'],
		[after, '12', '12 (VK)']
	])('shows %#: the label once', (labelled, value, shown) => {
		expect(labelOnce(labelled, value)).toBe(shown);
	});
});

describe('notInName', () => {
	it('leaves out what the run name already says', () => {
		expect(notInName('Agility 2 A3 Large', ['Large', 'A3', 'Šárka Dvořáková'])).toEqual([
			'Šárka Dvořáková'
		]);
		expect(notInName('Jumping A1 Small', ['Medium', 'A1'])).toEqual(['Medium']);
		// "A1" is not in "A10", nor "Large" in "XLarge"
		expect(notInName('Open A10 XLarge', ['A1', 'Large'])).toEqual(['A1', 'Large']);
		expect(notInName('Jumping', ['', 'A2'])).toEqual(['A2']);
	});
});
