/**
 * What the app bar shows for the screen on display. A task screen (the capture screen) gives a
 * way back in place of the brand and the bar then carries the sync state, so the screen needs no
 * second bar and no tab bar: every control of a result fits a small phone without scrolling.
 */
class Screen {
	back = $state.raw<{ href: string; label: string } | null>(null);
}

export const screen = new Screen();
