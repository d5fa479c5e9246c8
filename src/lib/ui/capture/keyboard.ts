/**
 * The capture screen on a hardware or Bluetooth keyboard: digits for the time, F / R a fault /
 * refusal (Shift: one less), E disqualified, N absent, Enter save & next, Esc clear the time, U
 * undo. Pure: the screen passes the key and where it was pressed, and does what comes back.
 */
import { timeKeyOf, type TimeKey } from '$lib/domain/time-entry';

export type KeyAction =
	| { kind: 'time'; key: TimeKey }
	| { kind: 'step'; field: 'faults' | 'refusals'; delta: 1 | -1 }
	| { kind: 'toggle'; field: 'disqualified' | 'absence' }
	| { kind: 'undo' }
	| { kind: 'save-next' }
	| { kind: 'clear-time' };

/** A key as the screen saw it (KeyboardEvent's fields). */
export interface KeyPress {
	key: string;
	shiftKey?: boolean;
	ctrlKey?: boolean;
	metaKey?: boolean;
	altKey?: boolean;
	isComposing?: boolean;
	repeat?: boolean;
}

/** Where the key was pressed. */
export interface KeyPlace {
	/** On a button, link, select or text area (reached with Tab): Enter and Space are its own. */
	onControl: boolean;
	/** On a checkbox: Space is its own. */
	onCheckbox: boolean;
}

/**
 * What a key does on the capture screen, or null for nothing (the browser keeps the key then).
 * `absent`: the dog is marked absent, so the time takes no keys.
 */
export function keyAction(press: KeyPress, place: KeyPlace, absent: boolean): KeyAction | null {
	if (press.ctrlKey || press.metaKey || press.altKey || press.isComposing) return null;
	const timeKey = timeKeyOf(press.key);
	if (timeKey) return absent ? null : { kind: 'time', key: timeKey };
	if (place.onControl && (press.key === 'Enter' || press.key === ' ')) return null;
	if (place.onCheckbox && press.key === ' ') return null;
	if (press.repeat) return null;
	const delta = press.shiftKey ? -1 : 1;
	switch (press.key.toLowerCase()) {
		case 'f':
			return { kind: 'step', field: 'faults', delta };
		case 'r':
			return { kind: 'step', field: 'refusals', delta };
		case 'e':
			return { kind: 'toggle', field: 'disqualified' };
		case 'n':
			return { kind: 'toggle', field: 'absence' };
		case 'u':
			return { kind: 'undo' };
		case 'enter':
			return { kind: 'save-next' };
		case 'escape':
			return { kind: 'clear-time' };
		default:
			return null;
	}
}
