/**
 * What the phone's browser can do for an offline app, from what it says of itself: iPhones and
 * iPads (every browser there is Safari's engine) have no Background Sync and no install prompt,
 * and Safari deletes the storage of a site not used for 7 days unless it was added to the Home
 * Screen; Firefox on Android has no Background Sync and installs from its menu. Pure: the caller
 * passes what `navigator` and `matchMedia` say.
 */
export interface PlatformFacts {
	userAgent: string;
	/** navigator.maxTouchPoints: an iPad says "Macintosh" but has touch. */
	maxTouchPoints: number;
	/** Opened from the Home Screen (display-mode standalone, or Safari's navigator.standalone). */
	standalone: boolean;
	/** 'SyncManager' in window. */
	backgroundSync: boolean;
	/**
	 * window.isSecureContext: over plain HTTP on a network address no browser installs the app or
	 * keeps it offline, so there is nothing to put on the Home Screen.
	 */
	secureContext: boolean;
}

export interface Platform {
	/** How to put the app on the Home Screen, when the browser offers no prompt of its own. */
	install: 'ios' | 'firefox-android' | null;
	/** Unsent results go out only while the app is open. */
	sendsOnlyWhileOpen: boolean;
}

export function platformOf(facts: PlatformFacts): Platform {
	const ua = facts.userAgent;
	const ios = /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && facts.maxTouchPoints > 1);
	const firefoxAndroid = /Android/.test(ua) && /Firefox\//.test(ua);
	let install: Platform['install'] = null;
	if (!facts.standalone && facts.secureContext) {
		install = ios ? 'ios' : firefoxAndroid ? 'firefox-android' : null;
	}
	// Chromium names SyncManager at an insecure address too, where no worker can take the sync.
	return { install, sendsOnlyWhileOpen: !facts.backgroundSync || !facts.secureContext };
}

/** This browser's facts (in a page only). */
export function currentPlatform(): Platform {
	const nav = navigator as Navigator & { standalone?: boolean };
	return platformOf({
		userAgent: nav.userAgent,
		maxTouchPoints: nav.maxTouchPoints ?? 0,
		standalone: nav.standalone === true || matchMedia('(display-mode: standalone)').matches,
		backgroundSync: 'SyncManager' in window,
		secureContext: window.isSecureContext !== false
	});
}
