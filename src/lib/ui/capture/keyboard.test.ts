import { describe, expect, it } from 'vitest';
import { keyAction, type KeyPlace } from './keyboard';

const body: KeyPlace = { onControl: false, onCheckbox: false };
const button: KeyPlace = { onControl: true, onCheckbox: false };
const checkbox: KeyPlace = { onControl: false, onCheckbox: true };

describe('keyAction', () => {
	it.each([
		['3', { kind: 'time', key: '3' }],
		['.', { kind: 'time', key: 'sep' }],
		[',', { kind: 'time', key: 'sep' }],
		['Backspace', { kind: 'time', key: 'back' }],
		['f', { kind: 'step', field: 'faults', delta: 1 }],
		['R', { kind: 'step', field: 'refusals', delta: 1 }],
		['e', { kind: 'toggle', field: 'disqualified' }],
		['n', { kind: 'toggle', field: 'absence' }],
		['u', { kind: 'undo' }],
		['Enter', { kind: 'save-next' }],
		['Escape', { kind: 'clear-time' }],
		['x', null],
		['Tab', null]
	] as const)('%s on the screen: %o', (key, action) => {
		expect(keyAction({ key }, body, false)).toEqual(action);
	});

	it('Shift takes one away', () => {
		expect(keyAction({ key: 'F', shiftKey: true }, body, false)).toEqual({
			kind: 'step',
			field: 'faults',
			delta: -1
		});
		expect(keyAction({ key: 'R', shiftKey: true }, body, false)).toMatchObject({ delta: -1 });
	});

	it('leaves shortcuts of the browser and the system alone, and a key held down', () => {
		for (const mod of ['ctrlKey', 'metaKey', 'altKey', 'isComposing'] as const) {
			expect(keyAction({ key: 'f', [mod]: true }, body, false)).toBeNull();
			expect(keyAction({ key: '5', [mod]: true }, body, false)).toBeNull();
		}
		expect(keyAction({ key: 'f', repeat: true }, body, false)).toBeNull();
		expect(keyAction({ key: 'Enter', repeat: true }, body, false)).toBeNull();
	});

	it('Enter and Space on a button, Space on a checkbox, do what they do there', () => {
		expect(keyAction({ key: 'Enter' }, button, false)).toBeNull();
		expect(keyAction({ key: ' ' }, button, false)).toBeNull();
		expect(keyAction({ key: ' ' }, checkbox, false)).toBeNull();
		expect(keyAction({ key: 'Enter' }, checkbox, false)).toEqual({ kind: 'save-next' });
		// Digits still go to the time from a button (the steward tabbed there).
		expect(keyAction({ key: '4' }, button, false)).toEqual({ kind: 'time', key: '4' });
	});

	it('an absent dog takes no time keys, but the rest still works', () => {
		expect(keyAction({ key: '4' }, body, true)).toBeNull();
		expect(keyAction({ key: 'Backspace' }, body, true)).toBeNull();
		expect(keyAction({ key: 'n' }, body, true)).toEqual({ kind: 'toggle', field: 'absence' });
	});
});
