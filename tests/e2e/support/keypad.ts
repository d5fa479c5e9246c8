import type { Page } from '@playwright/test';

/**
 * Taps a time on the capture screen's own keypad, as a steward does ("38,63": the comma or a
 * point is the keypad's separator key); returns how many taps that was.
 */
export async function tapTime(page: Page, text: string): Promise<number> {
	const keypad = page.getByTestId('keypad');
	for (const ch of text) {
		const key = ch === ',' || ch === '.' ? 'sep' : ch;
		await keypad.locator(`[data-key="${key}"]`).click();
	}
	return text.length;
}
