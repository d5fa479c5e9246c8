import { describe, expect, it } from 'vitest';
import { platformOf } from './platform';

const IPHONE =
	'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const IPAD_DESKTOP_MODE =
	'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
const CHROME_IOS =
	'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1';
const FIREFOX_ANDROID = 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0';
const CHROME_ANDROID =
	'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36';
const FIREFOX_DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';

const facts = (
	userAgent: string,
	more: { touch?: number; standalone?: boolean; sync?: boolean; secure?: boolean } = {}
) => ({
	userAgent,
	maxTouchPoints: more.touch ?? 0,
	standalone: more.standalone ?? false,
	backgroundSync: more.sync ?? false,
	secureContext: more.secure ?? true
});

describe('platformOf', () => {
	it.each([
		['an iPhone in Safari', facts(IPHONE, { touch: 5 }), 'ios'],
		['Chrome on an iPhone (Safari’s engine)', facts(CHROME_IOS, { touch: 5 }), 'ios'],
		['an iPad that says Macintosh, with touch', facts(IPAD_DESKTOP_MODE, { touch: 5 }), 'ios'],
		['a Mac (no touch)', facts(IPAD_DESKTOP_MODE), null],
		['Firefox on Android', facts(FIREFOX_ANDROID, { touch: 5 }), 'firefox-android'],
		[
			'Chrome on Android (it offers its own prompt)',
			facts(CHROME_ANDROID, { touch: 5, sync: true }),
			null
		],
		['Firefox on a laptop', facts(FIREFOX_DESKTOP), null],
		['an iPhone opened from the Home Screen', facts(IPHONE, { touch: 5, standalone: true }), null],
		// Over plain HTTP on a network address nothing can be installed or kept offline.
		['an iPhone at an insecure address', facts(IPHONE, { touch: 5, secure: false }), null],
		['Firefox on Android at an insecure address', facts(FIREFOX_ANDROID, { secure: false }), null]
	] as const)('%s: install hint %s', (_name, f, install) => {
		expect(platformOf(f).install).toBe(install);
	});

	it('says results go out only while the app is open where there is no Background Sync', () => {
		expect(platformOf(facts(IPHONE, { touch: 5 })).sendsOnlyWhileOpen).toBe(true);
		expect(platformOf(facts(FIREFOX_ANDROID)).sendsOnlyWhileOpen).toBe(true);
		expect(platformOf(facts(CHROME_ANDROID, { sync: true })).sendsOnlyWhileOpen).toBe(false);
		// No worker at an insecure address, whatever the browser names.
		expect(
			platformOf(facts(CHROME_ANDROID, { sync: true, secure: false })).sendsOnlyWhileOpen
		).toBe(true);
	});
});
