/**
 * A screen nobody touches (the big screen) should not go dark: the screen is kept awake while
 * visible, where the browser can (Screen Wake Lock), and taken again each time it comes back into
 * view. Returns the stop; a refusal (battery saver, no permission) only lets the screen dim.
 */
export function keepScreenAwake(): () => void {
	let lock: WakeLockSentinel | null = null;
	let stopped = false;
	const acquire = async () => {
		if (document.visibilityState !== 'visible' || !('wakeLock' in navigator)) return;
		try {
			lock = await navigator.wakeLock.request('screen');
			if (stopped) void lock.release();
		} catch {
			// Refused: the screen may dim, nothing else changes.
		}
	};
	document.addEventListener('visibilitychange', acquire);
	void acquire();
	return () => {
		stopped = true;
		document.removeEventListener('visibilitychange', acquire);
		void lock?.release().catch(() => undefined);
	};
}
